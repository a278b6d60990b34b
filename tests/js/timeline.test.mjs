// The timeline (views/timeline.js): where a pointer or a key puts the as-of line, what it
// says, and what the lanes and their table show, each against CPython's answer for the
// timeline store and numbers counted here from the store itself.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { asOfAt, asOfByKey, asOfText, indexAsOf, labelRows, lanesOf, renderTimelineLanes, renderTimelineText, sideOf, spanOf, trueSinceOf } from "../../site/js/views/timeline.js";
import { ageAt } from "../../site/js/views/format.js";

const ROOT = new URL("../../", import.meta.url);
const STORE = JSON.parse(readFileSync(new URL("fixtures/timeline-store.json", ROOT), "utf8"));

/** CPython's full result for a policy on the timeline store. @param {object} policy @returns {any} */
function run(policy) {
  const python = existsSync(new URL(".venv/bin/python", ROOT)) ? ".venv/bin/python" : "python3";
  const script = "import json, sys, engine\nprint(engine.run_json(sys.stdin.read()))";
  return JSON.parse(execFileSync(python, ["-c", script], { cwd: ROOT, input: JSON.stringify({ store: STORE, policy }), encoding: "utf8" }));
}

const BASE = { question: "database-host", store: "all", previous_sessions: true, max_age_hours: 500 };
const TRUE_SINCE = STORE.records.map((/** @type {any} */ r) => r.true_since_hours ?? r.age_hours);

test("the line moves an hour per arrow, a day per page key, to now with Home and to the oldest record with End", () => {
  const span = spanOf(STORE.records);
  assert.equal(span, Math.max(...STORE.records.map((/** @type {any} */ r) => r.age_hours)));
  assert.equal(asOfByKey("ArrowLeft", 0, span), 1);
  assert.equal(asOfByKey("ArrowUp", 10, span), 11);
  assert.equal(asOfByKey("ArrowRight", 0, span), 0);
  assert.equal(asOfByKey("ArrowDown", 10, span), 9);
  assert.equal(asOfByKey("PageUp", span - 3, span), span);
  assert.equal(asOfByKey("PageDown", 30, span), 6);
  assert.equal(asOfByKey("Home", 120, span), 0);
  assert.equal(asOfByKey("End", 0, span), span);
  assert.equal(asOfByKey("a", 5, span), null);
  // A pointer: the left end is the oldest record, the right end now, in whole hours.
  assert.equal(asOfAt(0, span), span);
  assert.equal(asOfAt(1, span), 0);
  assert.equal(asOfAt(-0.5, span), span);
  assert.equal(asOfAt(0.75, 400), 100);
  assert.deepEqual([sideOf(90), sideOf(50), sideOf(5)], ["end", "middle", "start"]);
  // Close marks' labels take the next line down, three lines at most.
  assert.deepEqual(labelRows([0, 50, 52, 53, 55, 90]), [0, 0, 1, 2, 0, 0]);
});

test("a record's time true defaults to its age, as the store format says", () => {
  assert.deepEqual(trueSinceOf(STORE.records), TRUE_SINCE);
  assert.deepEqual(trueSinceOf([{ age_hours: 7 }, { age_hours: 7, true_since_hours: 0 }]), [7, 0]);
});

test("as of 100 hours ago: every lane's marks carry the answer's outcomes, each arrow its superseded_by, and the words count from then", () => {
  const result = run({ ...BASE, as_of_hours: 100 });
  const lanes = String(renderTimelineLanes(result, { tenantLabels: { atlas: "Atlas team", beacon: "Beacon team" }, trueSince: TRUE_SINCE }));
  for (const r of result.records) {
    assert.match(lanes, new RegExp(`data-record-id="${r.id}" data-outcome="${r.outcome}"`), r.id);
  }
  const arrows = [...lanes.matchAll(/data-from="(\w+)" data-to="(\w+)"/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(arrows, result.records.filter((/** @type {any} */ r) => r.superseded_by).map((/** @type {any} */ r) => [r.id, r.superseded_by]));
  assert.deepEqual(arrows, [["D1", "D2"]]);
  assert.match(lanes, /data-as-of="100"/);
  // The active tenant's lanes first, keyed before the records with no key.
  assert.deepEqual(lanesOf(result.records, "atlas").map((l) => `${l.tenant} ${l.key}`), ["atlas db.primary", "atlas release.freeze", "atlas null", "beacon db.primary"]);
  const text = String(renderTimelineText(result, { tenantLabels: {}, trueSince: TRUE_SINCE }));
  assert.match(text, /Ages count from the as-of, 100 hours ago; the latest fact per key is the one written last/);
  assert.match(text, /<th scope="row">D3<\/th><td>atlas · db.primary<\/td><td class="num">30 <em>\(after the as-of\)<\/em><\/td><td class="num">30 <em>\(after the as-of\)<\/em><\/td><td class="num">–<\/td><td>Not written yet<\/td>/);
  assert.match(text, /<th scope="row">D1<\/th><td>atlas · db.primary<\/td><td class="num">400<\/td><td class="num">400<\/td><td class="num">300 h<\/td><td>Superseded by D2<\/td>/);
  // How many records existed then, counted from the store's ages.
  const written = STORE.records.filter((/** @type {any} */ r) => r.age_hours >= 100).length;
  assert.equal(asOfText(100, result), `As of 100 hours ago: ${written} of ${STORE.records.length} records written`);
  assert.match(String(indexAsOf(result, "df counts")), new RegExp(`the ${written} records written by then: N = ${written}, and df counts among them`));
  assert.equal(String(indexAsOf(run(BASE), "df counts")), "");
  assert.equal(ageAt(400, 100), "300 h (12.5 days) old as of 100 h ago");
  assert.equal(ageAt(30, 100), "written 30 h ago, after the as-of");
  assert.equal(ageAt(30, 0), "30 h");
});

test("by the time true, a fact announced before it held shows where it became true, and the key says which clock decides", () => {
  const result = run({ ...BASE, question: "release-freeze", as_of_hours: 20, latest_by: "true" });
  const f2 = STORE.records.findIndex((/** @type {any} */ r) => r.id === "F2");
  const lanes = String(renderTimelineLanes(result, { tenantLabels: {}, trueSince: TRUE_SINCE }));
  assert.match(lanes, /data-record-id="F2" data-outcome="not_true_yet"/);
  assert.match(lanes, /class="timeline-true"/);
  const text = String(renderTimelineText(result, { tenantLabels: {}, trueSince: TRUE_SINCE }));
  assert.match(text, /the one that became true last/);
  assert.match(text, new RegExp(`<th scope="row">F2</th><td>atlas · release.freeze</td><td class="num">50</td><td class="num">${TRUE_SINCE[f2]} <em>\\(after the as-of\\)</em></td><td class="num">30 h</td><td>Not true yet</td>`));
});

test("everywhere a policy goes carries the as-of and the clock: the link, the LMS resume data, a notebook entry, the baseline", async () => {
  const { policyFields, readQuery, writeQuery } = await import("../../site/js/core/state.js");
  const { decodeResume, encodeResume } = await import("../../site/js/lms/lms-core.js");
  const { compare, observation, observationText, snapshot } = await import("../../site/js/core/observations.js");
  const fields = policyFields(STORE);
  const { policy, notices } = readQuery("?as_of_hours=100&latest_by=true", fields);
  assert.deepEqual(notices, []);
  assert.equal(policy.as_of_hours, 100);
  assert.equal(policy.latest_by, "true");
  const query = writeQuery(policy, fields);
  assert.match(query, /(^\?|&)as_of_hours=100&latest_by=true(&|$)/);
  const refused = readQuery("?as_of_hours=-3&latest_by=someday", fields);
  assert.equal(refused.policy.as_of_hours, 0);
  assert.equal(refused.policy.latest_by, "written");
  assert.equal(refused.notices.length, 2);
  assert.match(refused.notices[0], /as_of_hours=“-3” must be a number from 0 to 100000/);
  const resumed = decodeResume(encodeResume({ query, stage: 4, step: null, progress: { reached: {}, checks: [] }, baseline: null, notes: null }).text);
  assert.equal(resumed?.query, query);
  const then = run({ ...BASE, as_of_hours: 100, latest_by: "true" });
  const entry = observationText(observation(then, "link", new Date(0)));
  assert.match(entry, /as_of_hours=100 latest_by=true/);
  const changed = compare(snapshot(run(BASE)), snapshot(then)).settings.map((s) => s.name);
  assert.deepEqual(changed, ["as_of_hours", "latest_by"]);
});

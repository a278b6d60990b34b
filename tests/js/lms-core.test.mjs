// What the page reports to an LMS, pure: SCORM 1.2's time formats, resume data within
// suspend_data's 4,096 characters and its fallback, notes merged on relaunch,
// completion and the score, an interaction's values; when cmi5 passes; and the cmi5
// outbox's requests, with a stand-in for fetch.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { cmi5Launch, passes } from "../../site/js/lms/cmi5-reporter.js";
import { XAPI_VERSION, XapiOutbox } from "../../site/js/lms/xapi-outbox.js";
import {
  LOCAL_NOTES_HEADING,
  SUSPEND_DATA_LIMIT,
  clockTime,
  completedGuide,
  decodeResume,
  emptyProgress,
  encodeResume,
  interactionValues,
  mergeNotes,
  score,
  sessionTime,
} from "../../site/js/lms/lms-core.js";

const siteStore = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));
const TIMESPAN = /^\d{4}:[0-5]\d:[0-5]\d\.\d\d$/; // HHHH:MM:SS.SS

test("session time is HHHH:MM:SS.SS, centiseconds rounded down, clamped to the format's range", () => {
  assert.equal(sessionTime(0), "0000:00:00.00");
  assert.equal(sessionTime(9), "0000:00:00.00");
  assert.equal(sessionTime(1234), "0000:00:01.23");
  assert.equal(sessionTime(((2 * 60 + 5) * 60 + 7) * 1000 + 990), "0002:05:07.99");
  assert.equal(sessionTime(-5000), "0000:00:00.00");
  assert.equal(sessionTime(1e15), "9999:59:59.99");
  for (const ms of [59_999, 60_000, 3_599_999, 3_600_000, 123_456_789]) assert.match(sessionTime(ms), TIMESPAN);
  assert.equal(sessionTime(3_599_999), "0000:59:59.99");
});

test("clock time is HH:MM:SS in local time", () => {
  assert.equal(clockTime(new Date(2026, 0, 2, 3, 4, 5)), "03:04:05");
  assert.equal(clockTime(new Date(2026, 0, 2, 23, 59, 59)), "23:59:59");
});

const resume = (/** @type {Partial<import("../../site/js/lms/lms-core.js").Resume>} */ change = {}) => ({
  query: "question=timeout-incident&budget_words=9",
  stage: 3,
  step: { guide: "current-vs-historical", index: 1 },
  progress: { reached: ["current-vs-historical:0"], first: { "current-vs-historical:0": true }, completed: null },
  baseline: { policy: { budget_words: 9 }, selected: ["M5"] },
  notes: "M5 fits exactly.",
  ...change,
});

test("resume data round-trips through suspend_data text", () => {
  const { text, dropped } = encodeResume(resume());
  assert.deepEqual(dropped, []);
  assert.ok(text.length <= SUSPEND_DATA_LIMIT);
  assert.deepEqual(decodeResume(text), resume());
});

test("too much for suspend_data: the notes are left out first, then the baseline, and the page is told", () => {
  const long = "n".repeat(5000);
  const noNotes = encodeResume(resume({ notes: long }));
  assert.deepEqual(noNotes.dropped, ["notes"]);
  assert.ok(noNotes.text.length <= SUSPEND_DATA_LIMIT);
  assert.deepEqual(decodeResume(noNotes.text), resume({ notes: null }));
  const bigBaseline = { policy: {}, outcomes: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`R${i}`, "over_budget"])) };
  const neither = encodeResume(resume({ notes: long, baseline: bigBaseline }));
  assert.deepEqual(neither.dropped, ["notes", "baseline"]);
  assert.deepEqual(decodeResume(neither.text), resume({ notes: null, baseline: null }));
  // Exactly at the limit still fits; one character more does not.
  const base = encodeResume(resume({ notes: "" })).text.length;
  assert.deepEqual(encodeResume(resume({ notes: "x".repeat(SUSPEND_DATA_LIMIT - base) })).dropped, []);
  assert.deepEqual(encodeResume(resume({ notes: "x".repeat(SUSPEND_DATA_LIMIT - base + 1) })).dropped, ["notes"]);
  // An empty baseline is not reported as left out.
  assert.deepEqual(encodeResume(resume({ notes: long, baseline: null })).dropped, ["notes"]);
});

test("suspend_data that is not ours, or damaged, resumes nothing", () => {
  for (const text of ["", "lesson=3", "{", "null", JSON.stringify({ v: 99, q: "" }), JSON.stringify({ v: 1 })]) {
    assert.equal(decodeResume(text), null, text);
  }
  const odd = decodeResume(JSON.stringify({ v: 1, q: "", s: 9, st: { guide: 3 }, p: { reached: [1, "a:0"], first: { "a:0": "yes", "a:1": true } } }));
  assert.deepEqual(odd, { query: "", stage: 4, step: null, progress: { reached: ["a:0"], first: { "a:1": true }, completed: null }, baseline: null, notes: null });
});

test("a relaunch's notes: the LMS's copy, with this browser's differing notes kept after it", () => {
  assert.equal(mergeNotes("", "lms"), "lms");
  assert.equal(mergeNotes("local", null), "local");
  assert.equal(mergeNotes("same", "same"), "same");
  assert.equal(mergeNotes("local", "  "), "local");
  assert.equal(mergeNotes("part", "part and more"), "part and more");
  assert.equal(mergeNotes("mine", "theirs"), `theirs\n\n${LOCAL_NOTES_HEADING}\nmine`);
});

const guides = siteStore.guides;

test("completion: every step of one guided experiment reached, whichever order", () => {
  assert.equal(completedGuide([], guides), null);
  assert.equal(completedGuide(["current-vs-historical:0", "current-vs-historical:2"], guides), null);
  assert.equal(completedGuide(["current-vs-historical:2", "scope-before-recall:0", "current-vs-historical:0", "current-vs-historical:1"], guides), "current-vs-historical");
  assert.equal(completedGuide(["x:0"], [{ id: "x", steps: [] }]), null);
});

test("the score is the share of all guided steps whose first checked prediction matched", () => {
  const two = [{ id: "a", steps: [1, 2, 3] }, { id: "b", steps: [1, 2, 3, 4, 5, 6, 7] }];
  assert.deepEqual(score(emptyProgress(), two), { raw: 0, scaled: 0, matched: 0, steps: 10 });
  const marks = { "a:0": true, "a:1": false, "a:2": true, "b:0": true, "c:0": true };
  assert.deepEqual(score({ ...emptyProgress(), first: marks }, two), { raw: 30, scaled: 0.3, matched: 3, steps: 10 });
  const first = { "current-vs-historical:0": true, "current-vs-historical:1": false, "current-vs-historical:2": true };
  const oneGuide = [guides[0]];
  assert.deepEqual(score({ ...emptyProgress(), first }, oneGuide), { raw: 67, scaled: 2 / 3, matched: 2, steps: 3 });
  assert.equal(score(emptyProgress(), []), null);
});

test("an interaction's values, the id first, in SCORM 1.2's vocabulary", () => {
  const when = new Date(2026, 10, 29, 9, 30, 5);
  const check = { step: "current-vs-historical:1", predicted: ["M5", "M10"], tray: [], matched: false, latencyMs: 12_340 };
  assert.deepEqual(interactionValues(2, check, when), [
    ["cmi.interactions.2.id", "prediction-3-step-current-vs-historical-1"],
    ["cmi.interactions.2.type", "choice"],
    ["cmi.interactions.2.student_response", "M10,M5"],
    ["cmi.interactions.2.correct_responses.0.pattern", ""],
    ["cmi.interactions.2.result", "wrong"],
    ["cmi.interactions.2.latency", "0000:00:12.34"],
    ["cmi.interactions.2.time", "09:30:05"],
  ]);
  const free = interactionValues(0, { step: null, predicted: ["M5"], tray: ["M5"], matched: true, latencyMs: 0 }, when);
  assert.deepEqual(free[0], ["cmi.interactions.0.id", "prediction-1-free-exploration"]);
  assert.deepEqual(free[4], ["cmi.interactions.0.result", "correct"]);
});

test("cmi5: a launch needs all five parameters; passing follows the LMS's mastery score when it gives one", () => {
  const all = "?endpoint=https%3A%2F%2Flrs%2F&fetch=https%3A%2F%2Flms%2Ft&actor=%7B%22name%22%3A%22A%22%7D&registration=r&activityId=a";
  assert.deepEqual(cmi5Launch(all), { endpoint: "https://lrs/", fetch: "https://lms/t", actor: { name: "A" }, registration: "r", activityId: "a" });
  assert.equal(cmi5Launch(all.replace("registration=r&", "")), null);
  assert.equal(cmi5Launch(all.replace("%7B%22name%22%3A%22A%22%7D", "oops")), null);
  assert.equal(cmi5Launch(""), null);
  assert.equal(passes(0.5, undefined), true);
  assert.equal(passes(0.49, undefined), false);
  assert.equal(passes(0.6, 0.8), false);
  assert.equal(passes(0.8, 0.8), true);
});

/**
 * A stand-in for fetch: each request waits until the test answers it.
 * @returns {{send: typeof fetch, requests: {url: string, init: any, answer: (ok: boolean | "unreachable") => Promise<void>}[]}}
 */
function fakeFetch() {
  /** @type {any[]} */
  const requests = [];
  const send = (/** @type {any} */ url, /** @type {any} */ init) =>
    new Promise((resolve, reject) => {
      requests.push({
        url,
        init,
        answer: async (/** @type {boolean | "unreachable"} */ ok) => {
          if (ok === "unreachable") reject(new TypeError("Failed to fetch"));
          else resolve(/** @type {any} */ ({ ok, status: ok ? 200 : 500 }));
          await new Promise((done) => setTimeout(done, 0));
        },
      });
    });
  return { send: /** @type {any} */ (send), requests };
}

const address = { activityId: "urn:au", agent: { name: "A" }, registration: "r", stateId: "resume" };
const sent = (/** @type {{init: any}} */ request) => JSON.parse(request.init.body);

test("cmi5 outbox: statements go in order, one request at a time, each waiting one batched; every request keepalive, authorised and versioned", async () => {
  const { send, requests } = fakeFetch();
  const outbox = new XapiOutbox({ endpoint: "https://lrs.test/xapi", auth: () => "Basic token", send });
  const first = outbox.statement({ id: "1" });
  void outbox.statement({ id: "2" });
  void outbox.statement({ id: "3" });
  outbox.keepState(address, { n: "old" });
  outbox.keepState(address, { n: "new" });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url, "https://lrs.test/xapi/statements");
  assert.deepEqual(sent(requests[0]), [{ id: "1" }]);
  assert.deepEqual(requests[0].init.headers, { Authorization: "Basic token", "X-Experience-API-Version": XAPI_VERSION, "Content-Type": "application/json" });
  assert.equal(requests[0].init.keepalive, true);
  await requests[0].answer(true);
  assert.equal(await first, true);
  assert.deepEqual(sent(requests[1]), [{ id: "2" }, { id: "3" }]);
  await requests[1].answer(true);
  assert.equal(requests[2].init.method, "PUT");
  const url = new URL(requests[2].url);
  assert.equal(url.pathname, "/xapi/activities/state");
  assert.deepEqual(Object.fromEntries(url.searchParams), { activityId: "urn:au", agent: '{"name":"A"}', registration: "r", stateId: "resume" });
  assert.deepEqual(sent(requests[2]), { n: "new" }, "only the latest resume document");
  await requests[2].answer(true);
  assert.equal(requests.length, 3);
  assert.ok(outbox.empty);
});

test("cmi5 outbox: a refused or unreachable request keeps what it carried, said once, and it goes again, first, with the next change", async () => {
  const { send, requests } = fakeFetch();
  /** @type {boolean[]} */
  const heard = [];
  const outbox = new XapiOutbox({ endpoint: "https://lrs.test/", auth: () => "Basic t", onSaved: (saved) => heard.push(saved), send });
  const answered = outbox.statement({ id: "a" });
  await requests[0].answer(false);
  assert.equal(await answered, false);
  assert.deepEqual(heard, [false]);
  outbox.keepState(address, { n: 1 });
  assert.deepEqual(sent(requests[1]), [{ id: "a" }], "again, before the state");
  await requests[1].answer("unreachable");
  assert.deepEqual(heard, [false], "said once");
  assert.equal(requests.length, 2, "held until the next change");
  void outbox.statement({ id: "b" });
  assert.deepEqual(sent(requests[2]), [{ id: "a" }, { id: "b" }]);
  await requests[2].answer(true);
  assert.deepEqual(heard, [false, true]);
  assert.deepEqual(sent(requests[3]), { n: 1 });
  await requests[3].answer(true);
  assert.ok(outbox.empty);
});

test("cmi5 outbox: as the page goes, everything not yet sent goes at once, keepalive; nothing after", async () => {
  const { send, requests } = fakeFetch();
  const outbox = new XapiOutbox({ endpoint: "https://lrs.test/", auth: () => "Basic t", send });
  void outbox.statement({ id: "under way" });
  void outbox.statement({ id: "answered" });
  void outbox.statement({ id: "terminated" });
  outbox.keepState(address, { n: "last" });
  outbox.flush();
  assert.deepEqual(requests.map(sent), [[{ id: "under way" }], [{ id: "answered" }, { id: "terminated" }], { n: "last" }]);
  assert.ok(requests.every((r) => r.init.keepalive));
  void outbox.statement({ id: "late" });
  await requests[0].answer(true);
  assert.equal(requests.length, 3);
});

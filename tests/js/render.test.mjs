// The pure renderer's own-question views: how the question was read, honest coverage,
// and a learner's text always shown as text, never as markup.
import assert from "node:assert/strict";
import { test } from "node:test";

import { nearMissText, renderReading } from "../../site/js/views/reading.js";
import { renderComparison } from "../../site/js/views/comparison.js";
import { renderIntro } from "../../site/js/views/experiment.js";
import { renderGuideBar, renderStart } from "../../site/js/views/guides.js";
import { renderTray } from "../../site/js/views/tray.js";
import { compare } from "../../site/js/core/observations.js";

const question = (/** @type {any} */ fields) => ({ id: "", text: "", own: true, terms: [], dropped_terms: [], stop_words: [], reading: [], ...fields });
/** A reading claim as engine/reading.py makes it. @param {string} kind @param {string} text */
const claim = (kind, text, scorer = "tfidf") => ({ kind, scorer, items: [], text, record: null, values: [] });

/** A result with an empty tray, as far as renderTray reads it. */
const result = (/** @type {any} */ q, coverage = { found: 0, total: 0, supporting: [], found_ids: [] }) => ({
  policy: { tenant: "team-a", max_records: 3, question_text: q.own ? q.text : "" },
  question: q,
  records: [],
  selected: [],
  words_used: 0,
  budget_words: 40,
  coverage,
});

test("the reading prints the engine's claims in order, each marked with its kind and scorer, under the question", () => {
  const reading = [claim("terms", "BM25 reads the terms production.", "bm25"), claim("pieces", "The embedding reads 2 word pieces, in order: where production.", "embedding")];
  const markup = String(renderReading(question({ text: "Where production?", reading })));
  assert.match(markup, /<strong>Your question, as read<\/strong>/);
  assert.match(markup, /<li class="read-claim" data-kind="terms" data-scorer="bm25">BM25 reads the terms production\.<\/li><li class="read-claim" data-kind="pieces" data-scorer="embedding">/);
  assert.match(String(renderReading(question({ own: false, id: "q", text: "Which region?" }))), /<strong>“Which region\?”, as read<\/strong>/);
});

test("coverage of an own question says plainly that none is declared, never 0 of 0", () => {
  const tray = String(renderTray(/** @type {any} */ (result(question({ text: "hello" }))), { "team-a": "Team A" }));
  assert.match(tray, /Your own question has no declared supporting facts/);
  assert.match(tray, /data-found="0" data-total="0"/);
  assert.doesNotMatch(tray, /0 of 0/);
  const fixed = String(renderTray(/** @type {any} */ (result(question({ own: false }), { found: 0, total: 1, supporting: ["M2"], found_ids: [] })), {}));
  assert.match(fixed, /0 of 1 supporting fact for team-a selected; missing M2\./);
});

test("markup in a learner's text is escaped wherever the renderer shows it", () => {
  const evil = `<img src=x onerror="alert(1)"><script>alert(2)</script>&amp;`;
  const reading = String(renderReading(question({ text: evil, reading: [claim("ignored", "TF-IDF ignores <b>x</b>: in no record.")] })));
  assert.doesNotMatch(reading, /<b>|<i>|<img/);
  assert.match(reading, /TF-IDF ignores &lt;b&gt;x&lt;\/b&gt;: in no record\./);
  const snap = (/** @type {string} */ text) => ({
    policy: /** @type {any} */ ({ question_text: text }), selected: [], words_used: 0, budget_words: 40, coverage: { found: 0, total: 0 }, outcomes: {},
  });
  const comparison = String(renderComparison(snap(""), snap(evil), compare(snap(""), snap(evil))));
  assert.doesNotMatch(comparison, /<img|<script/);
  assert.match(comparison, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&lt;script&gt;/);
  assert.match(comparison, /<td>\(empty\)<\/td>/);
  assert.match(comparison, /coverage not measured \(your own question\)/);
});

/** A result whose records have these outcomes, as far as renderTray reads it. */
const decided = (/** @type {string[]} */ outcomes, /** @type {any} */ fields = {}) => {
  const records = outcomes.map((outcome, i) => ({ id: `M${i + 1}`, outcome, text: `record ${i + 1}`, words: 5 }));
  const selected = records.filter((r) => r.outcome === "selected").map((r) => r.id);
  const ranked = records.filter((r) => ["selected", "over_budget", "record_limit"].includes(r.outcome)).map((r) => r.id);
  return /** @type {any} */ ({
    ...result(question({ own: false, terms: ["region"] })),
    records,
    selected,
    ranked,
    policy: { tenant: "team-a", max_records: 3, budget_words: 40, min_similarity: 0.35, question_text: "" },
    ...fields,
  });
};
const trayText = (/** @type {any} */ r) => String(renderTray(r, {})).replace(/<[^>]+>/g, "");

test("an empty tray says why in the words that fit: scope, no shared word, budget, record limit", () => {
  assert.match(trayText(decided(["other_tenant", "other_tenant", "too_old"])), /The tray is empty: all 3 records are out of scope \(2 other tenant, 1 too old\), so none was scored\./);
  const noWord = trayText(decided(["other_tenant", "no_shared_terms", "no_shared_terms"], { question: question({ terms: [], dropped_terms: ["slow"] }) }));
  assert.match(noWord, /The tray is empty: 1 out of scope \(1 other tenant\); 2 in scope share no word with the question; no word of the question is in any record\./);
  assert.doesNotMatch(noWord, /fit|too long/);
  assert.match(trayText(decided(["over_budget", "over_budget"])), /The tray is empty: 2 are too long for the words left of the 40-word budget\./);
  assert.match(trayText(decided(["below_similarity"])), /1 in scope is below the minimum similarity of 0\.35/);
  assert.match(trayText(decided(["selected", "record_limit"], { policy: { max_records: 1, budget_words: 40 } })), /Not in the tray: 1 is over the limit of 1 record\./);
  const mmr = { policy: { max_records: 1, budget_words: 40, mmr_lambda: 0.5 } };
  const ranked = { ranked: ["M1", "M2", "M3"] };
  assert.match(trayText(decided(["selected", "too_similar", "too_similar"], { ...mmr, ...ranked })), /Not in the tray: 2 are too like a record already in it \(diversity λ 0\.5\)\./);
  // A full tray with nothing ranked left out needs no reason.
  assert.doesNotMatch(trayText(decided(["selected", "selected", "selected", "other_tenant"])), /Not in the tray|empty/);
});

test("a question word in no record that a record holds in a longer form is named where its tray is empty and in the reading", () => {
  const note = "TF-IDF matches only exact words, with no stemming: “deploy” is not “deployment” or “deployed”; “fail” is not “failed”.";
  const q = question({ terms: [], dropped_terms: ["deploy", "fail"], reading: [claim("ignored", "TF-IDF ignores deploy, fail: in no record."), claim("near_miss", note)] });
  assert.equal(nearMissText(q), note);
  assert.ok(trayText(decided(["no_shared_terms"], { question: q })).includes(`no word of the question is in any record. ${note}`));
  // Under the embedding no near-miss claim is made, so neither the reading nor the tray says it.
  const meaning = question({ dropped_terms: ["deploy"], reading: [claim("pieces", "The embedding reads 1 word piece, in order: deploy.", "embedding")] });
  assert.equal(nearMissText(meaning), "");
  assert.doesNotMatch(trayText(decided(["below_similarity"], { question: meaning })), /stemming/);
});

test("the introduction names the question asked, fixed or own, the tenant and the scorer in force", () => {
  const intro = (/** @type {any} */ q, scorer = "tfidf") => String(renderIntro(/** @type {any} */ ({ question: q, policy: { tenant: "team-a", scorer } }), { "team-a": "Team A" }));
  const fixed = intro(question({ own: false, text: "Which region?" }));
  assert.match(fixed, /^You ask one of the store's questions, “Which region\?”, of Team A's memory\. Each record in scope is scored by TF-IDF cosine/);
  const own = intro(question({ text: "<b>where</b>" }), "bm25");
  assert.match(own, /^You ask your own question, “&lt;b&gt;where&lt;\/b&gt;”, of Team A's memory\..* scored by BM25:/);
  for (const scorer of ["embedding", "hybrid"]) assert.doesNotMatch(intro(question({}), scorer), /TF-IDF|undefined/);
});

test("Start here lists every guide with its first step, and the guide bar offers the steps either side", () => {
  const guide = { id: "g", title: "A <guide>", steps: [{ title: "One", look_for: "L1" }, { title: "Two", look_for: "L2" }] };
  assert.equal(String(renderStart([guide])), `<li><button type="button" class="start-button" data-guide-go="g:0">A &lt;guide&gt;</button> <span class="start-steps">2 steps</span></li>`);
  assert.match(String(renderStart([])), /no guided experiments/);
  const first = String(renderGuideBar(guide, 0, false));
  assert.match(first, /Step 1 of 2<\/strong><span class="guide-bar-title"> · A &lt;guide&gt;<\/span>/);
  assert.match(first, /data-guide-go="g:-1" disabled>Previous/);
  assert.match(first, /data-guide-go="g:1">Next step/);
  assert.doesNotMatch(first, /Finish|Apply again|changed by hand/);
  const last = String(renderGuideBar(guide, 1, true));
  assert.match(last, /Look for:<\/span> L2/);
  assert.match(last, /data-guide-go="g:1">Apply again/);
  assert.match(last, /data-guide-finish>Finish/);
  assert.doesNotMatch(last, /Next step/);
  // Waiting for the learner's prediction, the bar does not tell what the tray holds.
  const held = String(renderGuideBar(guide, 1, false, false, true));
  assert.doesNotMatch(held, /L2/);
  assert.match(held, /class="look-for" data-held><span class="look-label">Look for:<\/span> shown once your prediction is checked/);
});

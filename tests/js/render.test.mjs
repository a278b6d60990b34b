// The pure renderer's own-question views: how the question was read, honest coverage,
// and a learner's text always shown as text, never as markup.
import assert from "node:assert/strict";
import { test } from "node:test";

import { renderComparison, renderReading, renderTray } from "../../site/js/views/render.js";
import { compare } from "../../site/js/core/observations.js";

const question = (/** @type {any} */ fields) => ({ id: "", text: "", own: true, terms: [], dropped_terms: [], stop_words: [], ...fields });

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

test("the reading lists the terms found, each term in no record as ignored, and the stop words removed", () => {
  const markup = String(renderReading(question({ text: "Where do we deploy production?", terms: ["production"], dropped_terms: ["deploy"], stop_words: ["where", "do", "we"] })));
  assert.match(markup, /Your question reads as<\/strong> <span class="read-terms">production<\/span>/);
  assert.match(markup, /<li><span class="read-term">deploy<\/span>: in no record, ignored<\/li>/);
  assert.match(markup, /Stop words removed: where, do, we/);
  const fixed = String(renderReading(question({ own: false, id: "q", text: "Which region?", terms: ["region"] })));
  assert.match(fixed, /<strong>“Which region\?” reads as<\/strong>/);
  assert.doesNotMatch(fixed, /ignored|Stop words/);
  assert.match(String(renderReading(question({ stop_words: ["the"] }))), /no term that any record uses/);
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
  const reading = String(renderReading(question({ text: evil, dropped_terms: ["<b>x</b>"], stop_words: ["<i>"] })));
  assert.doesNotMatch(reading, /<b>|<i>/);
  assert.match(reading, /&lt;b&gt;x&lt;\/b&gt;<\/span>: in no record/);
  const snap = (/** @type {string} */ text) => ({
    policy: /** @type {any} */ ({ question_text: text }), selected: [], words_used: 0, budget_words: 40, coverage: { found: 0, total: 0 }, outcomes: {},
  });
  const comparison = String(renderComparison(snap(""), snap(evil), compare(snap(""), snap(evil))));
  assert.doesNotMatch(comparison, /<img|<script/);
  assert.match(comparison, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&lt;script&gt;/);
  assert.match(comparison, /<td>\(empty\)<\/td>/);
  assert.match(comparison, /coverage not measured \(your own question\)/);
});

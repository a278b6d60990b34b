import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { checkPrediction, compare, keptLinks, keptScoreboard, observation, observationText, scoreboardText, snapshot } from "../../site/js/core/observations.js";

// A result as the engine returns it for the timeout question at budget 9 and 8.
const fixture = (selected, m5) => ({
  policy: { question: "timeout-incident", tenant: "team-a", store: "working", previous_sessions: false, max_age_hours: 168,
            latest_per_key: true, recency_weight: 0, budget_words: selected.length ? 9 : 8, max_records: 3 },
  question: { id: "timeout-incident", text: "What caused the checkout timeout incident?", terms: [], dropped_terms: [] },
  records: [
    { id: "M5", outcome: m5, reason: "why M5", words: 9, text: "Ticket INC-42" },
    { id: "M10", outcome: "no_shared_terms", reason: "why M10", words: 10, text: "Release" },
  ],
  selected, ranked: ["M5"], words_used: selected.length ? 9 : 0, budget_words: selected.length ? 9 : 8,
  counts: {}, coverage: { found: 0, total: 1, supporting: ["M3"], found_ids: [] },
});

test("compare lists the settings that differ and the outcomes that changed", () => {
  const diff = compare(snapshot(fixture(["M5"], "selected")), snapshot(fixture([], "over_budget")));
  assert.deepEqual(diff.settings, [{ name: "budget_words", before: 9, after: 8 }]);
  assert.deepEqual(diff.outcomes, [{ id: "M5", before: "selected", after: "over_budget" }]);
});

test("prediction check: held, wrong and missed guesses; an empty guess for an empty tray is exact", () => {
  assert.deepEqual(checkPrediction(["M5", "M10"], fixture(["M5"], "selected")), { held: ["M5"], wrong: ["M10"], missed: [], exact: false });
  assert.deepEqual(checkPrediction([], fixture([], "over_budget")), { held: [], wrong: [], missed: [], exact: true });
  assert.equal(checkPrediction([], fixture(["M5"], "selected")).missed[0], "M5");
});

test("an observation carries settings, link, tray and every exclusion with its reason", () => {
  const o = observation(fixture(["M5"], "selected"), "https://x/?budget_words=9", new Date("2026-11-29T10:20:00Z"));
  const text = observationText(o);
  assert.match(text, /^### Observation 2026-11-29 10:20 UTC/);
  assert.match(text, /Settings: question=timeout-incident tenant=team-a .* budget_words=9 max_records=3/);
  assert.match(text, /Link: https:\/\/x\/\?budget_words=9/);
  assert.match(text, /Tray: M5 \(9 words\); 9 of 9 words; coverage 0 of 1/);
  assert.match(text, /- M10 no_shared_terms: why M10/);
});

// An own question: the fixture's result with a learner's text in force.
const own = (/** @type {string} */ text) => {
  const result = fixture(["M5"], "selected");
  return {
    ...result,
    policy: { ...result.policy, question_text: text },
    question: { id: "", text, own: true, terms: [], dropped_terms: [], stop_words: [] },
    coverage: { found: 0, total: 0, supporting: [], found_ids: [] },
  };
};

test("an observation of an own question says so, quotes its text and does not claim 0 of 0 coverage", () => {
  const text = observationText(observation(own("Is INC-42 <b>fixed</b>?"), "https://x/", new Date("2026-11-29T10:20:00Z")));
  assert.match(text, /^Your own question: Is INC-42 <b>fixed<\/b>\?$/m);
  assert.match(text, /question_text="Is INC-42 <b>fixed<\/b>\?"/);
  assert.match(text, /coverage not measured \(your own question declares no supporting facts\)/);
  assert.doesNotMatch(text, /0 of 0/);
});

test("a baseline of a fixed question beside an own one: question_text differs; an older baseline without it compares the rest", () => {
  const before = snapshot(fixture(["M5"], "selected"));
  const diff = compare({ ...before, policy: { ...before.policy, question_text: "" } }, snapshot(own("pending")));
  assert.deepEqual(diff.settings, [{ name: "question_text", before: "", after: "pending" }]);
  assert.deepEqual(compare(before, snapshot(own("pending"))).settings, []);
});

// An evaluation as the engine returns it, cut down to two scorers and one question left out.
const evaluation = {
  policy: { question: "rollback-steps", question_text: "", scorer: "hybrid", tenant: "team-a", store: "all", recency_weight: 0.5, max_records: 3 },
  k: 3,
  measure_names: { recall: "Recall@k", ndcg: "nDCG@k" },
  evaluation: [],
  means: { tfidf: { recall: 0.75, ndcg: 0.5654648767857288 }, hybrid: { recall: 1, ndcg: 0.6577324383928644 } },
  best: { recall: ["hybrid"], ndcg: ["hybrid"] },
  measured: ["deployment-region", "rollback-steps"],
  unmeasured: [{ question: "on-call-contact", reason: "declares no supporting record for Team B" }],
};

test("a kept scoreboard holds the settings it measured but the question and scorer, the means and the best", () => {
  const kept = keptScoreboard(/** @type {any} */ (evaluation), "https://x/?scoreboard=1", new Date("2026-11-29T10:20:00Z"));
  assert.equal(kept.kind, "scoreboard");
  assert.deepEqual(kept.policy, { tenant: "team-a", store: "all", recency_weight: 0.5, max_records: 3 });
  assert.deepEqual(kept.means, evaluation.means);
  assert.notEqual(kept.means.tfidf, evaluation.means.tfidf, "a copy: the notebook never shares the panel's objects");
  assert.deepEqual(kept.best, evaluation.best);
  assert.equal(JSON.stringify(JSON.parse(JSON.stringify(kept))), JSON.stringify(kept), "kept as JSON, as the notebook saves it");
});

test("a kept scoreboard reads as a Markdown table: scorers by name, three places, the best marked in words", () => {
  const text = scoreboardText(keptScoreboard(/** @type {any} */ (evaluation), "https://x/?scoreboard=1", new Date("2026-11-29T10:20:00Z")));
  assert.equal(
    text,
    [
      "### Scoreboard 2026-11-29 10:20 UTC",
      "Settings: tenant=team-a store=all recency_weight=0.5 max_records=3",
      "Link: https://x/?scoreboard=1",
      "Means over 2 questions with supporting records, k = 3:",
      "",
      "| Scorer | Recall@k | nDCG@k |",
      "|---|---:|---:|",
      "| TF-IDF | 0.750 | 0.565 |",
      "| Hybrid | 1.000 (best) | 0.658 (best) |",
      "",
      "Not measured: on-call-contact declares no supporting record for Team B",
    ].join("\n"),
  );
});

test("a kept scoreboard says why supporting records were out of scope, in the engine's words", () => {
  const why = "No question's supporting record is in scope, so every measure is 0: M2 is left out by Memory store (Working context).";
  const kept = keptScoreboard(/** @type {any} */ ({ ...evaluation, out_of_scope: { left_out: [], why, include: {}, include_text: "" } }), "https://x/", new Date(0));
  assert.equal(kept.out_of_scope, why);
  assert.ok(scoreboardText(kept).endsWith(`\n\nOut of scope: ${why}`));
  assert.doesNotMatch(scoreboardText(keptScoreboard(/** @type {any} */ ({ ...evaluation, out_of_scope: null }), "https://x/", new Date(0))), /Out of scope/);
});

test("the notebook's kept links are its Link lines to this page's site, each titled by the heading above it", () => {
  const kept = scoreboardText(keptScoreboard(/** @type {any} */ (evaluation), "https://x.test/course/?scoreboard=1&store=all", new Date("2026-11-29T10:20:00Z")));
  const text = [
    "My guess: hybrid wins.",
    "Link: https://x.test/course/?recency_weight=0.5",
    "",
    kept,
    "### Observation 2026-11-29 10:25 UTC",
    "Link: javascript:alert(1)",
    "Link: https://elsewhere.test/course/?scoreboard=1",
    "Link: http://x.test/course/?scoreboard=1",
    "Link:   https://x.test/course/?max_records=2   ",
    "Link: not a link",
  ].join("\n");
  assert.deepEqual(keptLinks(text, "https://x.test/course/?question=deployment-region"), [
    { title: "Link 1", href: "https://x.test/course/?recency_weight=0.5" },
    { title: "Scoreboard 2026-11-29 10:20 UTC", href: "https://x.test/course/?scoreboard=1&store=all" },
    { title: "Observation 2026-11-29 10:25 UTC", href: "https://x.test/course/?max_records=2" },
  ]);
  assert.deepEqual(keptLinks("no links here", "https://x.test/"), []);
});

// answer.js: the slim answer merged with the open store is CPython's full result, key
// for key and in the same key order (the page, its tests and exported notes read it).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { SHAPE_KEYS } from "../../site/js/core/shapes.js";
import { fullResult } from "../../site/js/python/answer.js";

const ROOT = new URL("../../", import.meta.url);
// The keys engine/shapes.py declares (the generated shapes.js): a record's in their order,
// a result's as JSON orders them, its own (the records) between the head and the summary.
const RECORD_KEYS = SHAPE_KEYS.RecordResult;
const HEAD_AND_SUMMARY = [...SHAPE_KEYS.Head, ...SHAPE_KEYS.Summary];
const RESULT_KEYS = [...SHAPE_KEYS.Head, ...SHAPE_KEYS.Result.filter((key) => !HEAD_AND_SUMMARY.includes(key)), ...SHAPE_KEYS.Summary];

/**
 * For each policy: the engine's open reply, slim answer, its parts and full result (run_json), all
 * from CPython (the engine is standard library only, so any Python 3.11+ runs it).
 * @param {string} storeFile @param {object[]} policies
 */
function fromCPython(storeFile, policies) {
  const python = existsSync(new URL(".venv/bin/python", ROOT)) ? ".venv/bin/python" : "python3";
  const script = `
import json, sys
import engine
store_text, policies = json.load(sys.stdin)
opening = engine.open_json(store_text)
out = []
for policy in policies:
    policy_text = json.dumps(policy)
    request = '{"store":' + store_text + ',"policy":' + policy_text + '}'
    out.append([*opening.session.answer_json(policy_text), engine.run_json(request)])
print(json.dumps([opening.reply, out]))
`;
  const storeText = readFileSync(new URL(storeFile, ROOT), "utf8");
  const input = JSON.stringify([storeText, policies]);
  const [reply, pairs] = JSON.parse(execFileSync(python, ["-c", script], { cwd: ROOT, input, encoding: "utf8" }));
  return { store: JSON.parse(storeText), reply: JSON.parse(reply), pairs: pairs.map((p) => p.map((t) => JSON.parse(t))) };
}

/** Every object's keys, recursively, in order: deepEqual ignores key order, the page's renderers and the comparator do not. */
function keyOrder(/** @type {any} */ value) {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => [k, keyOrder(v)]);
  return null;
}

const POLICIES = [
  {},
  { question: "timeout-incident", budget_words: 9 },
  { question: "timeout-incident", tenant: "team-b", store: "all", previous_sessions: true, latest_per_key: false,
    recency_weight: 0.35, budget_words: 80, max_records: 6 },
  { store: "semantic", max_age_hours: 12, budget_words: 0 },
  { question_text: "checkout deployment", store: "all", previous_sessions: true, scorer: "bm25", bm25_k1: 0.8, bm25_b: 1,
    recency_weight: 0.2 },
  { question_text: "Where do our servers live?", store: "semantic", previous_sessions: true, scorer: "embedding" },
  { store: "all", previous_sessions: true, scorer: "hybrid", rrf_k: 10, min_similarity: 0.3, recency_weight: 0.1 },
  { store: "all", previous_sessions: true, blend: "generative-agents", ga_relevance_weight: 3, mmr_lambda: 0.4, max_records: 4 },
];

for (const storeFile of ["fixtures/store.json", "fixtures/support-store.json"]) {
  test(`slim answer + ${storeFile} = CPython's full result, keys in the same order`, () => {
    const { store, reply, pairs } = fromCPython(storeFile, storeFile.endsWith("/store.json") ? POLICIES : [{}]);
    assert.equal(reply.records, store.records.length);
    for (const [slim, parts, full] of pairs) {
      assert.ok(!JSON.stringify(slim).includes(store.records[0].text), "the slim answer does not repeat the record texts");
      const merged = fullResult({ records: store.records, words: reply.words, importance: reply.importance, recency: reply.recency }, slim, parts);
      assert.deepEqual(merged, full);
      assert.deepEqual(keyOrder(merged), keyOrder(full));
      assert.deepEqual(Object.keys(merged), RESULT_KEYS);
      for (const record of /** @type {any} */ (merged).records) assert.deepEqual(Object.keys(record), RECORD_KEYS);
    }
  });
}

test("an answer from another store than the page's is reported, not merged", () => {
  const column = (/** @type {any[]} */ values) => values;
  const slim = /** @type {any} */ ({
    ids: ["M1", "M2"], cosine: column([0, 0]), bm25: column([0, 0]), similarity: column([null, null]), rrf: column([null, null]),
    relevance: column([0, 0]), recency: column([1, 1]), score: column([0, 0]), weighed: column([null, null]), outcome: ["selected", "selected"], reason: ["", ""], superseded_by: [null, null], rank: [1, 2], other_rank: [1, 2],
    ranks: { tfidf: [1, 2], bm25: [1, 2] },
  });
  const store = { records: [{ id: "M1" }, { id: "X2" }], words: [3, 4], importance: [5, 5], recency: [1, 1] };
  assert.match(/** @type {any} */ (fullResult(store, slim, [[], []])).error.message, /record 1 is M2 in the answer, X2 in the store/);
  const shorter = fullResult({ records: [{ id: "M1" }], words: [3], importance: [5], recency: [1] }, slim, [[]]);
  assert.match(/** @type {any} */ (shorter).error.message, /2 values answered for a store of 1 records/);
});

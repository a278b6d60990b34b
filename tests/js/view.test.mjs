// view.js sameData: whether Python's answer is the result the page already shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import { sameData } from "../../site/js/views/view.js";

const result = { policy: { budget_words: 80, scorer: "tfidf" }, records: [{ id: "M1", score: 0.5, terms: [] }], tray: null };

test("the same data in another key order is the same", () => {
  const reordered = { tray: null, records: [{ terms: [], score: 0.5, id: "M1" }], policy: { scorer: "tfidf", budget_words: 80 } };
  assert.equal(sameData(result, reordered), true);
  assert.equal(sameData(result, structuredClone(result)), true);
});

test("any difference, however deep, makes it another result", () => {
  const differing = [
    { ...result, policy: { ...result.policy, budget_words: 60 } },
    { ...result, records: [{ id: "M1", score: 0.5000000001, terms: [] }] },
    { ...result, records: [{ id: "M1", score: "0.5", terms: [] }] },
    { ...result, records: [{ id: "M1", score: 0.5, terms: [], extra: 1 }] },
    { ...result, records: [{ id: "M1", score: 0.5 }] },
    { ...result, records: [...result.records, ...result.records] },
    { ...result, tray: {} },
    { ...result, tray: [] },
    { ...result, records: { 0: result.records[0] } },
  ];
  for (const other of differing) {
    assert.equal(sameData(result, other), false, JSON.stringify(other));
    assert.equal(sameData(other, result), false, JSON.stringify(other));
  }
});

test("arrays keep their order", () => {
  assert.equal(sameData([1, 2], [2, 1]), false);
  assert.equal(sameData([1, [2, 3]], [1, [2, 3]]), true);
});

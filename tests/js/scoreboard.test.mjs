// views/scoreboard.js: the means, the best marked, one cell per question and scorer, the sweep.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cellText, meansTable, questionGrid, sweepChart } from "../../site/js/views/scoreboard.js";

const names = { recall: "Recall@k", precision: "Precision@k", mrr: "MRR", ndcg: "nDCG@k", coverage: "Coverage" };
const measures = (/** @type {number} */ v) => ({ recall: v, precision: v / 3, mrr: v, ndcg: v, coverage: v });
const evaluation = {
  policy: {},
  k: 3,
  measure_names: names,
  evaluation: [
    { question: "q1", scorer: "tfidf", ranking: ["A", "S"], tray: ["A"], supporting: ["S"], first_rank: 2, hits: 1, measures: measures(0.5) },
    { question: "q1", scorer: "bm25", ranking: ["S"], tray: ["S"], supporting: ["S"], first_rank: 1, hits: 1, measures: measures(1) },
    { question: "q<2>", scorer: "tfidf", ranking: [], tray: [], supporting: [], first_rank: null, hits: 0, measures: null },
    { question: "q<2>", scorer: "bm25", ranking: ["A"], tray: ["A"], supporting: [], first_rank: null, hits: 0, measures: null },
  ],
  means: { tfidf: measures(0.5), bm25: measures(1) },
  best: { recall: ["bm25"], precision: ["bm25"], mrr: ["bm25"], ndcg: ["bm25"], coverage: ["bm25"] },
  measured: ["q1"],
  unmeasured: [{ question: "q<2>", reason: "declares no supporting record for Team A" }],
};

test("the means table has a row per scorer, a column per measure and marks only the best", () => {
  const out = String(meansTable(/** @type {any} */ (evaluation)));
  assert.match(out, /Mean over 1 question with supporting records, k = 3/);
  assert.deepEqual([...out.matchAll(/<th scope="col">([^<]+)<\/th>/g)].map((m) => m[1]), ["Scorer", ...Object.values(names)]);
  const bm25 = out.split('data-scorer="bm25"')[1].split("</tr>")[0];
  const tfidf = out.split('data-scorer="tfidf"')[1].split("</tr>")[0];
  assert.equal((bm25.match(/data-best="true"/g) ?? []).length, 5);
  assert.equal((tfidf.match(/data-best/g) ?? []).length, 0);
  assert.match(tfidf, /<td>0\.500<\/td><td>0\.167<\/td>/);
  assert.match(out, /q&lt;2&gt; declares no supporting record for Team A\./);
});

test("each cell says where the first supporting record ranks and the hits within k", () => {
  assert.equal(cellText(/** @type {any} */ (evaluation.evaluation[0]), 3), "first at 2; 1 of 1 in top 3");
  assert.equal(cellText(/** @type {any} */ ({ ...evaluation.evaluation[0], first_rank: null, hits: 0 }), 3), "none ranked; 0 of 1 in top 3");
  assert.equal(cellText(/** @type {any} */ (evaluation.evaluation[2]), 3), "not measured");
  const out = String(questionGrid(/** @type {any} */ (evaluation)));
  const buttons = [...out.matchAll(/<button[^>]*data-question="([^"]+)" data-scorer="([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
  assert.deepEqual(buttons, ["q1/tfidf", "q1/bm25", "q&lt;2&gt;/tfidf", "q&lt;2&gt;/bm25"]);
  // A cell names its scorer too, for the phone's folded grid, where the column headings are gone.
  assert.match(out, /data-scorer="bm25" aria-label="q1, BM25: [^"]+"><span class="cell-scorer">BM25<\/span>/);
});

test("the sweep draws a line per scorer through its measured points and tables the same numbers", () => {
  const sweep = {
    policy: {},
    k: 3,
    points: [0, 0.5, 1].map((w) => ({ recency_weight: w, ndcg: { tfidf: 1 - w, bm25: w === 1 ? null : 0.25 } })),
  };
  const out = String(sweepChart(/** @type {any} */ (sweep)));
  const lines = [...out.matchAll(/data-scorer="(\w+)" fill="none" points="([^"]*)"/g)].map((m) => [m[1], m[2].split(" ").length]);
  assert.deepEqual(lines, [["tfidf", 3], ["bm25", 2]]);
  assert.match(out, /<tr><th scope="row">1<\/th><td>0\.000<\/td><td>–<\/td><\/tr>/);
  assert.match(out, /Mean nDCG@3 by recency weight/);
});

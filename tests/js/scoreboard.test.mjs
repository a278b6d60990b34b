// views/scoreboard.js: the means, the best marked, the out-of-scope note, one cell per
// question and scorer, the sweep and its numbers.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cellText, meansTable, questionGrid, scopeNote, sweepChart, sweepTable, tieRuns } from "../../site/js/views/scoreboard.js";

const names = { recall: "Recall@k", precision: "Precision@k", mrr: "MRR", ndcg: "nDCG@k", coverage: "Coverage" };
const measures = (/** @type {number} */ v) => ({ recall: v, precision: v / 3, mrr: v, ndcg: v, coverage: v });
const evaluation = {
  policy: {},
  k: 3,
  measure_names: names,
  evaluation: [
    { question: "q1", scorer: "tfidf", ranking: ["A", "S"], tray: ["A"], supporting: ["S"], outcomes: { S: "record_limit" }, first_rank: 2, hits: 1, measures: measures(0.5) },
    { question: "q1", scorer: "bm25", ranking: ["S"], tray: ["S"], supporting: ["S"], outcomes: { S: "selected" }, first_rank: 1, hits: 1, measures: measures(1) },
    { question: "q<2>", scorer: "tfidf", ranking: [], tray: [], supporting: [], outcomes: {}, first_rank: null, hits: 0, measures: null },
    { question: "q<2>", scorer: "bm25", ranking: ["A"], tray: ["A"], supporting: [], outcomes: {}, first_rank: null, hits: 0, measures: null },
  ],
  means: { tfidf: measures(0.5), bm25: measures(1) },
  best: { recall: ["bm25"], precision: ["bm25"], mrr: ["bm25"], ndcg: ["bm25"], coverage: ["bm25"] },
  measured: ["q1"],
  unmeasured: [{ question: "q<2>", reason: "declares no supporting record for Team A" }],
  out_of_scope: null,
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
  assert.doesNotMatch(out, /ties/);
});

test("where every scorer ties no cell is marked best, and a line says on which measures", () => {
  const zero = { ...evaluation, means: { tfidf: measures(0), bm25: measures(0) }, best: { recall: [], precision: [], mrr: [], ndcg: [], coverage: [] } };
  const out = String(meansTable(/** @type {any} */ (zero)));
  assert.doesNotMatch(out, /best-mark|data-best/);
  assert.match(out, /Every scorer ties on every measure, so none is marked best there\./);
  const some = { ...evaluation, best: { ...evaluation.best, recall: [], mrr: [] } };
  assert.match(String(meansTable(/** @type {any} */ (some))), /Every scorer ties on Recall@k and MRR, so none is marked best there\./);
  const none = { ...evaluation, means: { tfidf: null, bm25: null }, best: { recall: [], precision: [], mrr: [], ndcg: [], coverage: [] } };
  assert.doesNotMatch(String(meansTable(/** @type {any} */ (none))), /ties/);
});

test("the scope note says the engine's sentence and offers its settings on a button", () => {
  assert.equal(scopeNote(/** @type {any} */ (evaluation)), "");
  const note = { left_out: [], why: "M2 is left <out>.", include: { store: "all" }, include_text: "Memory store: All stores" };
  const out = String(scopeNote(/** @type {any} */ ({ ...evaluation, out_of_scope: note })));
  assert.match(out, /<p>M2 is left &lt;out&gt;\.<\/p>/);
  assert.match(out, /<button type="button" class="scoreboard-include">Include them: Memory store: All stores<\/button>/);
  const stuck = String(scopeNote(/** @type {any} */ ({ ...evaluation, out_of_scope: { ...note, include: {}, include_text: "" } })));
  assert.doesNotMatch(stuck, /button/);
});

test("each cell says where the first supporting record ranks and the hits within k", () => {
  assert.equal(cellText(/** @type {any} */ (evaluation.evaluation[0]), 3), "first at 2; 1 of 1 in top 3");
  assert.equal(cellText(/** @type {any} */ (evaluation.evaluation[2]), 3), "not measured");
  const out = String(questionGrid(/** @type {any} */ (evaluation)));
  const buttons = [...out.matchAll(/<button[^>]*data-question="([^"]+)" data-scorer="([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
  assert.deepEqual(buttons, ["q1/tfidf", "q1/bm25", "q&lt;2&gt;/tfidf", "q&lt;2&gt;/bm25"]);
  // A cell names its scorer too, for the phone's folded grid, where the column headings are gone.
  assert.match(out, /data-scorer="bm25" aria-label="q1, BM25: [^"]+"><span class="cell-scorer">BM25<\/span>/);
});

test("a cell whose supporting records are not ranked names them and the outcome that kept each out", () => {
  const row = evaluation.evaluation[0];
  const unranked = { ...row, first_rank: null, hits: 0 };
  assert.equal(cellText(/** @type {any} */ ({ ...unranked, outcomes: { S: "store_filtered" } }), 3), "S not ranked (Other store); 0 of 1 in top 3");
  const two = { ...unranked, supporting: ["S", "T"], outcomes: { S: "previous_session", T: "previous_session" } };
  assert.equal(cellText(/** @type {any} */ (two), 3), "S and T not ranked (Previous session); 0 of 2 in top 3");
  const mixed = { ...two, outcomes: { S: "too_old", T: "no_shared_terms" } };
  assert.equal(cellText(/** @type {any} */ (mixed), 3), "S (Too old) and T (No shared terms) not ranked; 0 of 2 in top 3");
});

const sweep = {
  policy: { recency_weight: 0.5 },
  field: "recency_weight",
  k: 3,
  points: [0, 0.5, 1].map((w) => ({ value: w, ndcg: { tfidf: 1 - w, bm25: w === 1 ? null : 0.25, embedding: 0.5, hybrid: w === 0 ? 0.25 : 0.5 } })),
};

test("the sweep draws a line and a mark of its own shape per scorer through its measured points", () => {
  const out = String(sweepChart(/** @type {any} */ (sweep)));
  const lines = [...out.matchAll(/<polyline[^>]*data-scorer="(\w+)" fill="none" points="([^"]*)"/g)].map((m) => [m[1], m[2].split(" ").length]);
  assert.deepEqual(lines, [["tfidf", 3], ["bm25", 2], ["embedding", 3], ["hybrid", 3]]);
  const shapes = [...out.matchAll(/<path class="sweep-mark[^"]*" data-scorer="(\w+)" data-shape="(\w+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(shapes, ["tfidf circle", "bm25 square", "embedding triangle", "hybrid diamond"]);
});

test("the sweep's axes are titled and the recency weight in force is marked where it lies", () => {
  const out = String(sweepChart(/** @type {any} */ (sweep)));
  assert.match(out, /<text class="axis-title"[^>]*>Recency weight<\/text>/);
  assert.match(out, /<text class="axis-title"[^>]*>Mean nDCG@3<\/text>/);
  const now = out.match(/<g class="sweep-now" data-weight="0.5"><line x1="([\d.]+)"[^>]*\/><path d="M([\d.]+),[^"]*"\/><text[^>]*>Recency weight set now: 0.5<\/text>/);
  assert.ok(now, "the weight in force is marked");
  // The weight axis's labels are centred under their ticks.
  const zero = Number(out.match(/<text class="tick-label" x="([\d.]+)"[^>]*text-anchor="middle">0<\/text>/)?.[1]);
  const one = Number(out.match(/<text class="tick-label" x="([\d.]+)"[^>]*text-anchor="middle">1<\/text>/)?.[1]);
  assert.equal(Number(now[1]), (zero + one) / 2);
  assert.equal(Number(now[2]) + 5, Number(now[1]), "the pointer above the frame points at the line");
});

test("ties are found from the numbers and said under the chart", () => {
  assert.deepEqual(tieRuns(/** @type {any} */ (sweep), ["tfidf", "bm25", "embedding", "hybrid"]), [
    { scorers: ["bm25", "hybrid"], from: 0, to: 0 },
    { scorers: ["tfidf", "embedding", "hybrid"], from: 0.5, to: 0.5 },
    { scorers: ["embedding", "hybrid"], from: 1, to: 1 },
  ]);
  const flat = { ...sweep, points: [0, 0.1, 0.2].map((w) => ({ value: w, ndcg: { tfidf: 0.5, bm25: 0.5, embedding: w } })) };
  assert.deepEqual(tieRuns(/** @type {any} */ (flat), ["tfidf", "bm25", "embedding"]), [{ scorers: ["tfidf", "bm25"], from: 0, to: 0.2 }]);
  assert.match(String(sweepChart(/** @type {any} */ (flat))), /Equal, so drawn on top of each other, by recency weight:<\/p><ul><li>TF-IDF and BM25: 0 to 0\.2<\/li><\/ul>/);
  const out = String(sweepChart(/** @type {any} */ (sweep)));
  assert.match(out, /<li>BM25 and Hybrid: at 0<\/li><li>TF-IDF, Embedding and Hybrid: at 0\.5<\/li><li>Embedding and Hybrid: at 1<\/li>/);
});

test("the sweep's numbers are a table, the row of the weight in force marked", () => {
  const out = String(sweepTable(/** @type {any} */ (sweep)));
  assert.match(out, /<tr><th scope="row">1<\/th><td>0\.000<\/td><td>–<\/td><td>0\.500<\/td><td>0\.500<\/td><\/tr>/);
  assert.match(out, /<tr class="sweep-current"><th scope="row">0\.5 \(set now\)<\/th><td>0\.500<\/td><td>0\.250<\/td>/);
  assert.match(out, /Mean nDCG@3 by recency weight/);
});

test("a sweep of MMR's λ and one of the recency weight each name their field and its value in force", () => {
  // Both fields set, to values the points hold: each sweep must read its own.
  const policy = { recency_weight: 0.5, mmr_lambda: 0 };
  /** @param {string} field @param {number[]} means */
  const swept = (field, means) => ({ policy, field, k: 3, points: [0, 0.5, 1].map((w, i) => ({ value: w, ndcg: { tfidf: means[i], bm25: means[i] } })) });
  const cases = [
    { sweep: swept("mmr_lambda", [0.2, 0.4, 0.6]), label: "Diversity (MMR λ)", inText: "diversity (MMR λ)", other: /recency/i },
    { sweep: swept("recency_weight", [0.6, 0.4, 0.2]), label: "Recency weight", inText: "recency weight", other: /MMR|λ|diversity/i },
  ];
  for (const { sweep: s, label, inText, other } of cases) {
    const now = /** @type {Record<string, number>} */ (s.policy)[s.field];
    const chart = String(sweepChart(/** @type {any} */ (s)));
    const table = String(sweepTable(/** @type {any} */ (s)));
    assert.doesNotMatch(chart + table, other, `${s.field}: no word of the other field`);
    assert.ok(chart.includes(`>${label}</text>`), `${s.field}: the axis is titled by the label`);
    assert.ok(chart.includes(`data-weight="${now}"`) && chart.includes(`>${label} set now: ${now}</text>`), `${s.field}: the mark`);
    assert.ok(chart.includes(`as the ${inText} goes from 0 to 1`) && chart.includes(`marks the ${inText} set now (${now}).`), `${s.field}: the caption`);
    // TF-IDF and BM25 are equal at every point: the list says so, by this field's values.
    const values = s.points.map((p) => p.value);
    assert.ok(chart.includes(`by ${inText}:</p><ul><li>TF-IDF and BM25: ${values[0]} to ${values.at(-1)}</li>`), `${s.field}: the equal lines`);
    assert.ok(table.includes(`<caption>Mean nDCG@3 by ${inText}</caption>`) && table.includes(`<th scope="col">${label}</th>`), `${s.field}: the table`);
    const current = s.points.find((p) => p.value === now);
    assert.ok(current);
    const row = `<tr class="sweep-current"><th scope="row">${now} (set now)</th><td>${current.ndcg.tfidf.toFixed(3)}</td>`;
    assert.ok(table.includes(row), `${s.field}: the row in force is the point at ${now}`);
  }
});

// The breakdown views (views/breakdown*.js) and what records.js and experiment.js show
// beside them: the embedding's similarity taken apart token by token, hybrid's fused sum
// ranking by ranking, BM25's share of the tenant's best, the ranks the scorer table names,
// and the map.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BLENDS, SCORERS } from "../../site/js/core/scorers.js";
import { BLEND_VIEWS, BREAKDOWN_VIEWS, renderBreakdown, whyShown } from "../../site/js/views/breakdown.js";
import { bm25Breakdown } from "../../site/js/views/breakdown-bm25.js";
import { embeddingBreakdown } from "../../site/js/views/breakdown-embedding.js";
import { fusionBreakdown } from "../../site/js/views/breakdown-fusion.js";
import { layoutPoints, mostSimilar, placeLabels, renderMap } from "../../site/js/views/map.js";
import { renderDiagram, stageExplanation } from "../../site/js/views/experiment.js";
import { rankText, renderTableHead, tableRowItems } from "../../site/js/views/records.js";

/** @param {any} res @param {any} r */
const embeddingParts = (res, r) => embeddingBreakdown(res, r).body;
/** @param {any} res @param {any} r */
const fusionParts = (res, r) => fusionBreakdown(res, r).body;

const NORM = 2.5;

/** Two records: R1 ranked first by the embedding, R2 out of scope. @param {Partial<any>} [policy] */
function result(policy = {}) {
  const r1 = {
    id: "R1",
    tenant: "a",
    store: "semantic",
    session: "current",
    age_hours: 24,
    key: null,
    text: "servers in Mumbai",
    words: 3,
    cosine: 0,
    bm25: 0,
    similarity: 0.6,
    rrf: null,
    relevance: 0.6,
    recency: 0.5,
    score: 0.6,
    outcome: "selected",
    stage: 4,
    reason: "Ranked 1st.",
    rank: 1,
    other_rank: null,
    ranks: { tfidf: null, bm25: null, embedding: 1 },
    terms: [
      { token: "servers", count: 2, contribution: 0.5, closest: [{ token: "mumbai", cosine: 0.41 }] },
      { token: "<b>", count: 1, contribution: 0.1, closest: [] },
    ],
  };
  const r2 = {
    ...r1,
    id: "R2",
    similarity: 0.2,
    relevance: 0.2,
    score: 0.2,
    outcome: "below_similarity",
    stage: 3,
    reason: "Similarity 0.200 is under the minimum 0.350.",
    rank: null,
    ranks: { tfidf: null, bm25: null, embedding: null },
    terms: [
      { token: "servers", count: 2, contribution: 0.15, closest: [] },
      { token: "<b>", count: 1, contribution: 0.05, closest: [] },
    ],
  };
  return /** @type {any} */ ({
    engine_version: "0",
    policy: { scorer: "embedding", min_similarity: 0.35, rrf_k: 60, recency_weight: 0, ...policy },
    question: {
      id: "",
      text: "servers servers <b>",
      own: true,
      terms: [],
      dropped_terms: [],
      stop_words: [],
      best_bm25: 0,
      best_bm25_record: null,
      average_length: 3,
      reading: [],
      tokens: [
        { token: "servers", count: 2, neighbours: [{ token: "server", cosine: 0.86 }] },
        { token: "<b>", count: 1, neighbours: [] },
      ],
      unknown_tokens: [],
      norm: NORM,
      map: { question: [0, 0], records: [[1, 0], [0, -2]], explained: [0.5, 0.25] },
    },
    records: [r1, r2],
    ranked: ["R1"],
    selected: ["R1"],
    words_used: 3,
    budget_words: 40,
    counts: { stored: 2, in_scope: 2, ranked: 1, selected: 1 },
    coverage: { found: 0, total: 0, supporting: [], found_ids: [] },
  });
}

test("a token's contribution is written out as count × v·d̂ / ‖Σv‖, with the record's closest tokens and the token's neighbours", () => {
  const res = result();
  const markup = String(embeddingParts(res, res.records[0]));
  // v·d̂ = contribution × ‖Σv‖ / count = 0.5 × 2.5 / 2
  assert.match(markup, /Contribution = 2 × 0\.6250 \/ 2\.5000<\/th><td>0\.5000<\/td>/);
  assert.match(markup, /R1's closest tokens<\/th><td class="near">mumbai 0\.410<\/td>/);
  assert.match(markup, /Nearest in the vocabulary<\/th><td class="near">server 0\.860<\/td>/);
  assert.match(markup, /Similarity = sum of contributions<\/th><td>0\.6000<\/td>/);
  assert.match(markup, /Similarity 0\.6000 ≥ the minimum 0\.35\. For the blend, relevance = max\(0, similarity\) = 0\.6000/);
  assert.match(markup, /&lt;b&gt;/, "a token is text, never markup");
  assert.doesNotMatch(markup, /<b>/);
  assert.match(markup, /‖Σv‖ = 2\.5000: the length of the sum of the question's 3 token vectors/);
  const below = String(embeddingParts(res, res.records[1]));
  assert.match(below, /Similarity 0\.2000 &lt; the minimum 0\.35: excluded at any recency weight/);
  assert.match(below, /not searched: out of scope/);
  const none = String(embeddingParts({ ...res, question: { ...res.question, norm: 0 } }, res.records[0]));
  assert.match(none, /question's vector is zero and every similarity is 0/);
});

test("hybrid's sum is taken apart as 1/(k + rank) per ranking, with its share of 2/(k + 1)", () => {
  const res = result({ scorer: "hybrid", rrf_k: 60 });
  const r = {
    ...res.records[0],
    rrf: 1 / 61 + 1 / 63,
    relevance: (1 / 61 + 1 / 63) / (2 / 61),
    terms: [
      { scorer: "bm25", rank: 3, relevance: 0.5, contribution: 1 / 63 },
      { scorer: "embedding", rank: 1, relevance: 0.6, contribution: 1 / 61 },
    ],
  };
  const markup = String(fusionParts(res, r));
  assert.match(markup, /BM25 \(relevance 0\.5000\)<\/th><td>3<\/td><td>1 \/ \(60 \+ 3\) = 0\.0159<\/td>/);
  assert.match(markup, /Embedding \(relevance 0\.6000\)<\/th><td>1<\/td><td>1 \/ \(60 \+ 1\) = 0\.0164<\/td>/);
  assert.match(markup, /RRF = sum<\/th><td>0\.0323<\/td>/);
  assert.match(markup, /= 0\.0323 \/ \(2 \/ \(60 \+ 1\)\) = 0\.0323 \/ 0\.0328 = 0\.9841/);
  const one = String(fusionParts(res, { ...r, terms: [r.terms[1]], rrf: 1 / 61, relevance: 0.5 }));
  assert.match(one, /BM25<\/th><td>–<\/td><td>0: shares no term with the question/);
});

test("under the embedding scorers a row shows its rank under every scorer, a missing one as –, and stays ranked", () => {
  const res = result();
  const text = String(rankText(res.records[0], "embedding"));
  assert.match(text, /rank <span class="rank-now">1<\/span> <span class="rank-other">\(BM25: –, TF-IDF: –\)<\/span>/);
  assert.doesNotMatch(text, /not ranked/);
  const hybrid = String(rankText({ ...res.records[0], ranks: { tfidf: 2, bm25: 2, embedding: 1, hybrid: 1 }, other_rank: 1 }, "hybrid"));
  assert.match(hybrid, /\(BM25: 2, Embedding: 1\)/, "the two rankings hybrid fuses");
  assert.match(String(rankText(res.records[1], "embedding")), /not ranked/);
  const row = String(tableRowItems(res.records, "R1", "embedding")[0]);
  assert.match(row, /data-similarity="0\.6" data-rrf="" data-ranks="\{&quot;tfidf&quot;:null,&quot;bm25&quot;:null,&quot;embedding&quot;:1\}"/);
  assert.match(row, /<span class="lex in-force" data-name="Similarity">0\.600<\/span>/);
  assert.doesNotMatch(row, /data-name="Cosine"|data-name="BM25"/, "only the embedding's score under the embedding");
  const lexical = String(tableRowItems(res.records, "R1", "tfidf")[0]);
  assert.doesNotMatch(lexical, /data-similarity|Similarity/, "lexical rows show no similarity");
  assert.match(lexical, /<span class="lex in-force" data-name="Cosine">0\.000<\/span> <span class="lex" data-name="BM25">0\.000<\/span>/);
  const fused = String(tableRowItems([{ ...res.records[0], rrf: 0.03, bm25: 1.5 }], "R1", "hybrid")[0]);
  assert.match(fused, /data-label="RRF, BM25, Similarity"><span class="lex in-force" data-name="RRF">0\.0300<\/span> <span class="lex" data-name="BM25">1\.500<\/span> <span class="lex" data-name="Similarity">0\.600<\/span>/);
});

test("the table head, the diagram and stage 3 name the scorer in force", () => {
  assert.match(String(renderTableHead("embedding")), /class="num">Similarity<\/th>.*\(Embedding \+ recency\)/);
  assert.match(String(renderTableHead("hybrid")), /class="num">RRF<br>BM25<br>Similarity<\/th>.*\(Hybrid \+ recency\)/);
  assert.match(String(renderTableHead("tfidf")), /class="num">Cosine<br>BM25<\/th>/);
  assert.match(String(renderDiagram(result())), /1 ranked, 1 under the minimum similarity/);
  assert.match(String(renderDiagram(result({ scorer: "hybrid" }))), /1 ranked, 1 in neither ranking/);
  assert.match(stageExplanation(3, "embedding"), /similarity/);
  assert.match(stageExplanation(3, "hybrid"), /Reciprocal Rank Fusion/);
  assert.equal(stageExplanation(2, "hybrid"), stageExplanation(2, "tfidf"));
});

test("the breakdown under the embedding blends the similarity with recency and ends with the map", () => {
  const markup = String(renderBreakdown(result({ recency_weight: 0.5 }), "R1"));
  assert.match(markup, /<h3 id="breakdown-title">R1: similarity 0\.600, score 0\.600<\/h3>/);
  assert.match(markup, /Score = \(1 − 0\.5\) × 0\.6000 \+ 0\.5 × 0\.5000 = <strong>0\.6000<\/strong>: \(1 − recency weight\) × similarity/);
  assert.match(markup, /<figure class="meaning-map">/);
});

test("map points keep one scale on both axes, y up, inside the box", () => {
  const placed = layoutPoints(
    [
      [0, 0],
      [2, 0],
      [0, 1],
    ],
    200,
    100,
    10,
  );
  const [origin, right, up] = placed;
  assert.equal(right[0] - origin[0], 2 * (origin[1] - up[1]), "one scale");
  assert.ok(up[1] < origin[1], "y points up");
  for (const [x, y] of placed) assert.ok(x >= 10 && x <= 190 && y >= 10 && y <= 90, `${x},${y} inside`);
  assert.deepEqual(layoutPoints([[3, 3]], 100, 100, 10), [[50, 50]], "a single point is centred");
});

test("labels of points on top of each other are moved apart, never overlap each other or a point, and stay inside", () => {
  const points = [
    [60, 60],
    [60, 60],
    [61, 62],
    [200, 60],
    [305, 100],
  ];
  const texts = ["M1", "M2", "M3", "M4", "M10"];
  const labels = placeLabels(points, texts, { width: 320, height: 240 });
  assert.ok(labels.every((l) => l !== null), "room for all");
  assert.deepEqual(labels[3], [208, 63], "a lone point keeps its place, right of it");
  assert.ok(/** @type {number[]} */ (labels[4])[0] < 305, "near the right edge, the label goes left of its point");
  const boxes = labels.map((l, i) => [/** @type {number[]} */ (l)[0], /** @type {number[]} */ (l)[1] - 8.5, texts[i].length * 6.4]);
  for (let i = 0; i < boxes.length; i++) {
    const [x, top, w] = boxes[i];
    assert.ok(x >= 16 && x + w <= 319 && top >= 1 && top + 11 <= 226, `${texts[i]} inside`);
    for (const [px, py] of points) assert.ok(!(px + 6 > x && px - 6 < x + w && py + 6 > top && py - 6 < top + 11), `${texts[i]} clear of ${px},${py}`);
    for (let j = i + 1; j < boxes.length; j++) {
      const [x2, top2, w2] = boxes[j];
      assert.ok(!(x < x2 + w2 && x2 < x + w && top < top2 + 11 && top2 < top + 11), `${texts[i]} and ${texts[j]} apart`);
    }
  }
  const crowded = placeLabels(Array.from({ length: 30 }, () => [160, 120]), Array.from({ length: 30 }, (_, i) => `M${i}`), { width: 320, height: 240 });
  assert.ok(crowded.some((l) => l === null), "with no free place a label is left out rather than drawn over another");
});

test("the map is labelled approximate, marks the chosen record and names the records nearest the question", () => {
  const res = result();
  const markup = String(renderMap(res, "R2"));
  assert.match(markup, /role="img" aria-labelledby="map-title map-desc"/);
  assert.match(markup, /<title id="map-title">Approximate map of meaning<\/title>/);
  assert.match(markup, /axis 1 shows 50% of their spread, axis 2 25%/);
  assert.match(markup, /Most similar to the question by the exact similarity, joined to it by lines: R1 0\.600, R2 0\.200\./);
  assert.match(markup, /class="map-record chosen near" data-record-id="R2"/);
  assert.match(markup, /class="map-record ranked near" data-record-id="R1"/);
  assert.match(markup, /<line class="map-near" data-record-id="R1"/);
  assert.match(markup, /the two axes hold 75% of the spread/);
  assert.equal(renderMap({ ...res, question: { ...res.question, map: null } }, "R1"), "");
});

test("what the map names as most similar is ordered by the exact similarity, not by distance on the map", () => {
  const res = result();
  // R2 sits nearer the question on the map ([0, -2] against [1, 0] is not nearer; swap them).
  const swapped = { ...res, question: { ...res.question, map: { question: [0, 0], records: [[5, 5], [0.1, 0]], explained: [0.5, 0.25] } } };
  assert.deepEqual(mostSimilar(swapped, [0, 1]), [0, 1], "R1 first: similarity 0.6 > 0.2, although R2 is nearer on the map");
  assert.match(String(renderMap(swapped, "R1")), /R1 0\.600, R2 0\.200/);
});

test("BM25's share names the active tenant's best record as its divisor, and says how the idf is shared", () => {
  const res = result({ scorer: "bm25", bm25_k1: 1.2, bm25_b: 0.75, tenant: "a" });
  const q = { ...res.question, best_bm25: 2, best_bm25_record: "R9", average_length: 3 };
  const r = { ...res.records[0], bm25: 1, relevance: 0.5, terms: [{ term: "servers", record_count: 1, query_count: 1, idf: 1, record_length: 3, length_factor: 1, contribution: 1 }] };
  const body = String(bm25Breakdown({ ...res, question: q }, r).body);
  assert.match(body, /Relative BM25 = 1\.0000 \/ 2\.0000, the highest BM25 among the active tenant's records for this question \(R9\), = 0\.5000/);
  assert.match(body, /idf counts every record of the store, whatever its tenant/);
  const other = String(bm25Breakdown({ ...res, question: q }, { ...r, tenant: "b" }).body);
  assert.match(other, /belongs to another tenant/);
});

test("the breakdown says which record it shows and why", () => {
  const res = result();
  assert.equal(whyShown(res, res.records[0], { picked: true, displaced: null }), "R1, the record you chose: ranked 1st under Embedding (BM25: –, TF-IDF: –).");
  assert.match(whyShown(res, res.records[0], { picked: false, displaced: "R2" }), /^R2, the record you chose, is not ranked under this policy \(Similarity 0\.200 is under the minimum 0\.350\), so this shows R1, ranked 1st under Embedding \(BM25: –, TF-IDF: –\)\./);
  assert.match(whyShown(res, res.records[0], { picked: false, displaced: null }), /^This shows R1, ranked 1st under Embedding \(BM25: –, TF-IDF: –\)\./);
  const picked = String(renderBreakdown(res, "R2", { picked: true, displaced: null }));
  // An excluded record picked on purpose: its exclusion heads the breakdown.
  assert.ok(picked.indexOf("breakdown-outcome") < picked.indexOf("breakdown-title"));
  assert.match(picked, /R2, the record you chose, is not ranked under this policy:/);
  const ranked = String(renderBreakdown(res, "R1", { picked: true, displaced: null }));
  assert.ok(ranked.indexOf("breakdown-outcome") > ranked.indexOf("breakdown-title"));
});

test("each scorer's row and each blend's names a view the breakdown has", () => {
  for (const row of Object.values(SCORERS)) assert.equal(typeof (/** @type {any} */ (BREAKDOWN_VIEWS))[row.breakdown], "function", row.id);
  for (const row of Object.values(BLENDS)) assert.equal(typeof (/** @type {any} */ (BLEND_VIEWS))[row.breakdown], "function", row.id);
});

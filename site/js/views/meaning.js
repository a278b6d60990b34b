// Pure rendering of the scorers that read meaning: the static embedding and hybrid fusion.
//
// What render.js shows for a result whose scorer reads the embedding's vectors: each
// record's ranks under every scorer the answer computed, the similarity taken apart
// token by token (contribution = count × v·d̂ / ‖Σv‖, adding up to the similarity), the
// fused sum taken apart ranking by ranking (1 / (k + rank)), and a map placing the
// question among the records in two dimensions. Results in, HTML strings out.

import { readsVectors } from "../core/scorers.js";
import { SCORER_NAMES } from "../core/tables.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/shapes.js").EmbeddingPart} EmbeddingPart */
/** @typedef {import("../core/shapes.js").FusionPart} FusionPart */
/** @typedef {import("../core/shapes.js").NearToken} NearToken */
/** @typedef {import("../core/tables.js").Policy["scorer"]} Scorer */

/** @param {number} x */
const fixed3 = (x) => x.toFixed(3);
/** @param {number} x */
const fixed4 = (x) => x.toFixed(4);
/** @param {number} x */
const percent = (x) => `${Math.round(x * 100)}%`;

/** What a scorer's relevance is called where it is blended with recency. @param {Scorer} scorer */
export function relevanceName(scorer) {
  return { tfidf: "cosine", bm25: "relative BM25", embedding: "similarity", hybrid: "fused share" }[scorer];
}

/**
 * A record's places under the scorers other than the policy's, as "TF-IDF: 2, BM25: –".
 * @param {RecordResult} r @param {Scorer} scorer
 */
export function otherRanks(r, scorer) {
  return Object.entries(r.ranks ?? {})
    .filter(([name]) => name !== scorer)
    .map(([name, place]) => `${SCORER_NAMES[/** @type {Scorer} */ (name)] ?? name}: ${place ?? "–"}`)
    .join(", ");
}

/**
 * The records table's numbers a scorer that reads meaning adds: the similarity, and for
 * hybrid the fused sum, each marked when it is the one in force.
 * @param {RecordResult} r @param {Scorer} scorer
 */
export function meaningCells(r, scorer) {
  if (!readsVectors(scorer)) return "";
  const similarity =
    r.similarity === null || r.similarity === undefined
      ? ""
      : html` <span class="lex${scorer === "embedding" ? " in-force" : ""}" data-name="Similarity">${fixed3(r.similarity)}</span>`;
  const rrf =
    scorer === "hybrid" && r.rrf !== null && r.rrf !== undefined ? html` <span class="lex in-force" data-name="RRF">${fixed4(r.rrf)}</span>` : "";
  return html`${similarity}${rrf}`;
}

/** The records table's head over those numbers. @param {Scorer} scorer */
export function meaningHeads(scorer) {
  if (scorer === "embedding") return html`<br>Similarity`;
  if (scorer === "hybrid") return html`<br>Similarity<br>RRF`;
  return "";
}

/**
 * How the question was read as word pieces, for the scorers that read meaning.
 * @param {Result["question"]} q @param {Scorer} scorer
 */
export function tokensReading(q, scorer) {
  if (!readsVectors(scorer)) return "";
  const pieces = q.tokens.length ? q.tokens.map((t) => (t.count > 1 ? `${t.token} ×${t.count}` : t.token)).join(" · ") : "none in the vocabulary";
  const unknown = q.unknown_tokens.length ? html` Unknown to the vocabulary, so ignored: ${q.unknown_tokens.join(", ")}.` : "";
  return html`<p class="read-pieces"><strong>The embedding reads word pieces:</strong> <span class="read-terms">${pieces}</span>.${unknown}</p>`;
}

/** @param {NearToken[]} near */
function nearList(near) {
  return near.length ? near.map((n) => `${n.token} ${fixed3(n.cosine)}`).join(", ") : "none";
}

/**
 * The similarity taken apart: for each question token its contribution, written out, the
 * record's tokens closest to it and its nearest neighbours in the whole vocabulary; the
 * contributions add up to the similarity.
 * @param {Result} result @param {RecordResult} r
 */
export function embeddingParts(result, r) {
  const q = result.question;
  const parts = /** @type {EmbeddingPart[]} */ (r.terms);
  const similarity = r.similarity ?? 0;
  if (!parts.length || q.norm === null || q.norm === 0) {
    return html`<p>No word piece of the question is in the vocabulary, so the question's vector is zero and every similarity is 0.</p>`;
  }
  const norm = q.norm;
  const neighbours = new Map(q.tokens.map((t) => [t.token, t.neighbours]));
  const min = result.policy.min_similarity;
  return html`<p class="formula">‖Σv‖ = ${fixed4(norm)}: the length of the sum of the question's ${q.tokens.reduce((n, t) => n + t.count, 0)} token vectors. ${r.id}'s vector d̂ is the mean of its own tokens' vectors, scaled to length 1.</p>
<table class="terms embedding-parts">
  <caption>Each question token's part of ${r.id}'s similarity: count × v·d̂ / ‖Σv‖, with v the token's vector. The parts add up to the similarity.</caption>
  <thead><tr><th scope="col">Token</th><th scope="col">Value</th></tr></thead>
  ${parts.map((t) => {
    const dot = (t.contribution * norm) / t.count;
    return html`<tbody>
  <tr class="term-head"><th scope="rowgroup" colspan="2">${t.token}</th></tr>
  <tr class="contribution" data-token="${t.token}" data-contribution="${t.contribution}"><th scope="row">Contribution = ${t.count} × ${fixed4(dot)} / ${fixed4(norm)}</th><td>${fixed4(t.contribution)}</td></tr>
  <tr><th scope="row">${r.id}'s closest tokens</th><td class="near">${t.closest.length ? nearList(t.closest) : "not searched: out of scope"}</td></tr>
  <tr><th scope="row">Nearest in the vocabulary</th><td class="near">${nearList(neighbours.get(t.token) ?? [])}</td></tr>
</tbody>`;
  })}
  <tfoot><tr><th scope="row">Similarity = sum of contributions</th><td>${fixed4(similarity)}</td></tr></tfoot>
</table>
<p class="formula">Similarity ${fixed4(similarity)} ${similarity >= min ? "≥" : "<"} the minimum ${min}${similarity >= min ? "" : ": excluded at any recency weight"}. For the blend, relevance = max(0, similarity) = ${fixed4(r.relevance)}.</p>`;
}

/**
 * The fused sum taken apart: 1 / (k + rank) for each ranking the record is in, their sum,
 * and its share of the most a record can earn, 2 / (k + 1).
 * @param {Result} result @param {RecordResult} r
 */
export function fusionParts(result, r) {
  const k = result.policy.rrf_k;
  const parts = /** @type {FusionPart[]} */ (r.terms);
  const best = 2 / (k + 1);
  const rrf = r.rrf ?? 0;
  const missing = ["bm25", "embedding"].filter((name) => !parts.some((p) => p.scorer === name));
  const why = { bm25: "shares no term with the question", embedding: `similarity under the minimum ${result.policy.min_similarity}` };
  return html`<table class="terms fusion-parts">
  <caption>${r.id}'s place in each ranking of the records in scope, and what it earns there: 1 / (k + rank), k = ${k}. Each ranking orders the records it matches by its own relevance.</caption>
  <thead><tr><th scope="col">Ranking</th><th scope="col">Rank</th><th scope="col">Earns</th></tr></thead>
  <tbody>
  ${parts.map(
    (p) => html`<tr data-scorer="${p.scorer}" data-rank="${p.rank}" data-contribution="${p.contribution}"><th scope="row">${SCORER_NAMES[/** @type {Scorer} */ (p.scorer)] ?? p.scorer} (relevance ${fixed4(p.relevance)})</th><td>${p.rank}</td><td>1 / (${k} + ${p.rank}) = ${fixed4(p.contribution)}</td></tr>`,
  )}
  ${missing.map(
    (name) => html`<tr><th scope="row">${SCORER_NAMES[/** @type {Scorer} */ (name)]}</th><td>–</td><td>0: ${why[/** @type {"bm25" | "embedding"} */ (name)]}</td></tr>`,
  )}
  </tbody>
  <tfoot><tr><th scope="row" colspan="2">RRF = sum</th><td>${fixed4(rrf)}</td></tr></tfoot>
</table>
<p class="formula">Share of the best possible = ${fixed4(rrf)} / (2 / (${k} + 1)) = ${fixed4(rrf)} / ${fixed4(best)} = ${fixed4(r.relevance)}: first in both rankings would give 1.</p>`;
}

/**
 * The head and body of the breakdown under a scorer that reads meaning (the recency
 * blend and the outcome follow, as for the lexical scorers: render.js).
 * @param {Result} result @param {RecordResult} r
 */
export function meaningBreakdown(result, r) {
  const scorer = result.policy.scorer;
  const similarity = r.similarity ?? 0;
  const head =
    scorer === "hybrid"
      ? html`${r.id}: RRF ${fixed4(r.rrf ?? 0)}, share ${fixed3(r.relevance)}, score ${fixed3(r.score)}`
      : html`${r.id}: similarity ${fixed3(similarity)}, score ${fixed3(r.score)}`;
  const parts = scorer === "hybrid" ? fusionParts(result, r) : embeddingParts(result, r);
  const others = html`Under TF-IDF: cosine ${fixed4(r.cosine)}; under BM25: ${fixed4(r.bm25)}${scorer === "hybrid" ? html`; similarity ${fixed4(similarity)}` : ""}. Ranks: ${otherRanks(r, scorer) || "none"}.`;
  return { head, parts, others };
}

/**
 * The map's points, scaled into a width × height box with the same scale on both axes
 * (so that distances keep their proportions), y pointing up.
 * @param {number[][]} points  [x, y] each
 * @param {number} width @param {number} height @param {number} pad
 * @returns {number[][]}
 */
export function layoutPoints(points, width, height, pad) {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  // A span of 0 (points in a line, or one point) is centred.
  const scale = Math.min((width - 2 * pad) / (maxX - minX || 1), (height - 2 * pad) / (maxY - minY || 1));
  const offsetX = (width - scale * (maxX - minX)) / 2;
  const offsetY = (height - scale * (maxY - minY)) / 2;
  return points.map(([x, y]) => [offsetX + (x - minX) * scale, height - (offsetY + (y - minY) * scale)]);
}

// A label's size on the map: 10px monospace, about 6px a character.
const CHAR_WIDTH = 6;
const LABEL_HEIGHT = 10;

/**
 * Where each label goes: right of its point (left, where asked), or moved down or up a
 * line at a time until it overlaps no label placed before it (null when no place within
 * three lines is free).
 * @param {number[][]} points  [x, y] of each point, in drawing order
 * @param {string[]} texts
 * @param {boolean[]} [left]  which labels go left of their point
 * @returns {(number[] | null)[]}  [x, y] of each label's baseline start
 */
export function placeLabels(points, texts, left = []) {
  /** @type {number[][]} */
  const taken = [];
  const overlaps = (/** @type {number[]} */ box) =>
    taken.some(([x, y, w]) => box[0] < x + w && x < box[0] + box[2] && Math.abs(box[1] - y) < LABEL_HEIGHT);
  return points.map(([x, y], i) => {
    const width = texts[i].length * CHAR_WIDTH;
    for (const shift of [0, 1, -1, 2, -2, 3, -3]) {
      const box = [left[i] ? x - 7 - width : x + 7, y + 3.5 + shift * LABEL_HEIGHT, width];
      if (!overlaps(box)) {
        taken.push(box);
        return [box[0], box[1]];
      }
    }
    return null;
  });
}

// Records the map draws at most: the ranked ones first, then the chosen one and the rest.
export const MAP_RECORDS = 40;
// Records whose ids the map writes beside them when it draws more than this many: the top
// of the ranking and the chosen one.
const LABELLED = 12;
const MAP_WIDTH = 320;
const MAP_HEIGHT = 240;
const MAP_PAD = 22;

/**
 * The question and the records on two dimensions: the engine's 2-D PCA of the records'
 * vectors (the question placed on it). Approximate, and labelled so; the text alternative
 * names the records nearest the question on the map.
 * @param {Result} result @param {string} chosenId
 */
export function renderMap(result, chosenId) {
  const map = result.question.map;
  if (!map) return "";
  const index = new Map(result.records.map((r, i) => [r.id, i]));
  const ranked = result.ranked.map((id) => /** @type {number} */ (index.get(id)));
  const rest = result.records.map((_, i) => i).filter((i) => !ranked.includes(i));
  const chosen = index.get(chosenId);
  const order = [...ranked, ...(chosen !== undefined && !ranked.includes(chosen) ? [chosen] : []), ...rest.filter((i) => i !== chosen)];
  const shown = order.slice(0, MAP_RECORDS).filter((i) => map.records[i]);
  const placed = layoutPoints([map.question, ...shown.map((i) => map.records[i])], MAP_WIDTH, MAP_HEIGHT, MAP_PAD);
  const [qx, qy] = placed[0];
  const topRanked = new Set(ranked.slice(0, 5));
  const distance = (/** @type {number} */ i) => Math.hypot(map.records[i][0] - map.question[0], map.records[i][1] - map.question[1]);
  const nearest = [...shown].sort((a, b) => distance(a) - distance(b) || a - b).slice(0, 3);
  // The question's label first, then the chosen record's, then the ranking's order.
  const labelled = shown.map((i) => shown.length <= LABELLED || i === chosen || topRanked.has(i));
  const labelOrder = [-1, ...shown.map((_, j) => j).sort((a, b) => Number(shown[b] === chosen) - Number(shown[a] === chosen))].filter((j) => j < 0 || labelled[j]);
  // The question's label goes on the side away from the chosen record, clear of the line
  // between them; its diamond is wider than a dot.
  const chosenRight = chosen !== undefined && shown.includes(chosen) && placed[shown.indexOf(chosen) + 1][0] > qx;
  const labels = placeLabels(
    labelOrder.map((j) => (j < 0 ? [chosenRight ? qx - 2 : qx + 2, qy] : placed[j + 1])),
    labelOrder.map((j) => (j < 0 ? "question" : result.records[shown[j]].id)),
    labelOrder.map((j) => j < 0 && chosenRight),
  );
  /** @type {Map<number, number[] | null>} */
  const labelAt = new Map(labelOrder.map((j, k) => [j, labels[k]]));
  const dots = shown.map((i, j) => {
    const r = result.records[i];
    const [x, y] = placed[j + 1];
    const isChosen = i === chosen;
    const inRanking = r.rank !== null;
    const at = labelAt.get(j);
    return html`<g class="map-record${inRanking ? " ranked" : ""}${isChosen ? " chosen" : ""}" data-record-id="${r.id}">
  <circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${isChosen ? 6 : 4}"></circle>${at ? html`<text x="${at[0].toFixed(1)}" y="${at[1].toFixed(1)}">${r.id}</text>` : ""}
</g>`;
  });
  const questionLabel = labelAt.get(-1) ?? [qx + 9, qy + 3.5];
  const chosenAt = chosen !== undefined ? shown.indexOf(chosen) : -1;
  const link =
    chosenAt >= 0
      ? html`<line class="map-link" x1="${qx.toFixed(1)}" y1="${qy.toFixed(1)}" x2="${placed[chosenAt + 1][0].toFixed(1)}" y2="${placed[chosenAt + 1][1].toFixed(1)}"></line>`
      : "";
  const [first, second] = map.explained;
  const described = `Approximate map: the question (the diamond) and ${shown.length} record${shown.length === 1 ? "" : "s"}${shown.length < result.records.length ? ` of ${result.records.length}, the ranked ones first` : ""}, placed along the two directions in which the records' vectors differ most (axis 1 shows ${percent(first)} of their spread, axis 2 ${percent(second)}). Filled dots are ranked, hollow ones are not. Points close together have similar vectors, but the map leaves out most dimensions: the similarities in the table are the exact ones. Nearest the question on the map: ${nearest.map((i) => result.records[i].id).join(", ") || "none"}.`;
  const d = `M ${qx.toFixed(1)} ${(qy - 7).toFixed(1)} L ${(qx + 7).toFixed(1)} ${qy.toFixed(1)} L ${qx.toFixed(1)} ${(qy + 7).toFixed(1)} L ${(qx - 7).toFixed(1)} ${qy.toFixed(1)} Z`;
  return html`<figure class="meaning-map">
<svg viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" role="img" aria-labelledby="map-title map-desc" class="map" preserveAspectRatio="xMidYMid meet">
<title id="map-title">Approximate map of meaning</title>
<desc id="map-desc">${described}</desc>
<rect class="map-frame" x="0.5" y="0.5" width="${MAP_WIDTH - 1}" height="${MAP_HEIGHT - 1}"></rect>
<text class="map-axis" x="${MAP_WIDTH / 2}" y="${MAP_HEIGHT - 6}" text-anchor="middle">axis 1 (${percent(first)} of the spread)</text>
<text class="map-axis" x="10" y="${MAP_HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 10 ${MAP_HEIGHT / 2})">axis 2 (${percent(second)})</text>
${link}
${dots}
<g class="map-question"><path d="${d}"></path><text x="${questionLabel[0].toFixed(1)}" y="${questionLabel[1].toFixed(1)}">question</text></g>
</svg>
<figcaption>Approximate: the vectors' many dimensions seen along only two directions (PCA of the records' vectors). The dashed line joins the question to ${chosenAt >= 0 ? result.records[/** @type {number} */ (chosen)].id : "the chosen record"}.</figcaption>
</figure>`;
}

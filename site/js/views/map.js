// The map of meaning: the question and the records on the two directions in which the
// records' vectors differ most (the engine's 2-D PCA). Approximate, and said so: what it
// names as most similar comes from the exact similarities, and lines join those records
// to the question, so a learner sees where the projection distorts them.

import { fixed3, percent } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */

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

// A label's size on the map: 10px monospace is 6.02px a character; a little more keeps
// bold labels and rounding clear of each other.
const CHAR_WIDTH = 6.4;
const LABEL_HEIGHT = 11;
const DOT = 6;

/**
 * Where each label goes: right of its point or left of it, moved down or up a line at a
 * time, until it overlaps no label placed before it, no point and stays inside the box;
 * null when no place within three lines either side is free (the label is left out
 * rather than drawn over another).
 * @param {number[][]} points  [x, y] of each point to label, in drawing order
 * @param {string[]} texts
 * @param {{width: number, height: number, dots?: number[][]}} box  the map's size and every point drawn
 * @returns {(number[] | null)[]}  [x, y] of each label's baseline start
 */
export function placeLabels(points, texts, box) {
  /** @type {number[][]} */
  const taken = [];
  const dots = box.dots ?? points;
  const clear = (/** @type {number[]} */ [x, top, w]) =>
    x >= 16 &&
    x + w <= box.width - 1 &&
    top >= 1 &&
    top + LABEL_HEIGHT <= box.height - 14 &&
    !taken.some(([tx, ttop, tw]) => x < tx + tw && tx < x + w && top < ttop + LABEL_HEIGHT && ttop < top + LABEL_HEIGHT) &&
    !dots.some(([dx, dy]) => dx + DOT > x && dx - DOT < x + w && dy + DOT > top && dy - DOT < top + LABEL_HEIGHT);
  return points.map(([x, y], i) => {
    const width = texts[i].length * CHAR_WIDTH;
    for (const shift of [0, 1, -1, 2, -2, 3, -3]) {
      for (const side of [1, -1]) {
        const left = side > 0 ? x + 8 : x - 8 - width;
        const top = y - LABEL_HEIGHT / 2 + shift * LABEL_HEIGHT;
        const label = [left, top, width];
        if (clear(label)) {
          taken.push(label);
          return [left, top + 8.5];
        }
      }
    }
    return null;
  });
}

// Records the map draws at most: the ranked ones first, then the chosen one and the rest.
export const MAP_RECORDS = 40;
// Records whose ids the map writes beside them when it draws more than this many: the top
// of the ranking, the most similar and the chosen one.
const LABELLED = 12;
// How many of the most similar records the map joins to the question.
export const MOST_SIMILAR = 3;
const MAP_WIDTH = 320;
const MAP_HEIGHT = 240;
const MAP_PAD = 22;

/**
 * The records most similar to the question by the exact similarity, best first (ties by
 * store order), among the records the map draws.
 * @param {Result} result @param {number[]} shown  record positions
 */
export function mostSimilar(result, shown) {
  const similarity = (/** @type {number} */ i) => result.records[i].similarity ?? -Infinity;
  return [...shown].sort((a, b) => similarity(b) - similarity(a) || a - b).slice(0, MOST_SIMILAR);
}

/**
 * The question and the records on two dimensions, the most similar joined to the question.
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
  const near = mostSimilar(result, shown);
  const topRanked = new Set(ranked.slice(0, 5));
  // Labelled first: the chosen record, the most similar, then the rest in drawing order.
  const labelled = shown.map((_, j) => j).filter((j) => shown.length <= LABELLED || shown[j] === chosen || near.includes(shown[j]) || topRanked.has(shown[j]));
  const priority = (/** @type {number} */ j) => (shown[j] === chosen ? 0 : near.includes(shown[j]) ? 1 + near.indexOf(shown[j]) : 10);
  const labelOrder = [-1, ...labelled.sort((a, b) => priority(a) - priority(b) || a - b)];
  const labels = placeLabels(
    labelOrder.map((j) => placed[j + 1]),
    labelOrder.map((j) => (j < 0 ? "question" : result.records[shown[j]].id)),
    { width: MAP_WIDTH, height: MAP_HEIGHT, dots: placed },
  );
  /** @type {Map<number, number[] | null>} */
  const labelAt = new Map(labelOrder.map((j, k) => [j, labels[k]]));
  const dots = shown.map((i, j) => {
    const r = result.records[i];
    const [x, y] = placed[j + 1];
    const isChosen = i === chosen;
    const at = labelAt.get(j);
    return html`<g class="map-record${r.rank !== null ? " ranked" : ""}${isChosen ? " chosen" : ""}${near.includes(i) ? " near" : ""}" data-record-id="${r.id}">
  <circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${isChosen ? 6 : 4}"></circle>${at ? html`<text x="${at[0].toFixed(1)}" y="${at[1].toFixed(1)}">${r.id}</text>` : ""}
</g>`;
  });
  const lines = near.map((i) => {
    const [x, y] = placed[shown.indexOf(i) + 1];
    return html`<line class="map-near" data-record-id="${result.records[i].id}" x1="${qx.toFixed(1)}" y1="${qy.toFixed(1)}" x2="${x.toFixed(1)}" y2="${y.toFixed(1)}"></line>`;
  });
  const questionLabel = labelAt.get(-1);
  const [first, second] = map.explained;
  const nearText = near.map((i) => `${result.records[i].id} ${fixed3(result.records[i].similarity ?? 0)}`).join(", ") || "none";
  const described = `Approximate map: the question (the diamond) and ${shown.length} record${shown.length === 1 ? "" : "s"}${shown.length < result.records.length ? ` of ${result.records.length}, the ranked ones first` : ""}, placed along the two directions in which the records' vectors differ most (axis 1 shows ${percent(first)} of their spread, axis 2 ${percent(second)}). Filled dots are ranked, hollow ones are not. Most similar to the question by the exact similarity, joined to it by lines: ${nearText}.`;
  const d = `M ${qx.toFixed(1)} ${(qy - 7).toFixed(1)} L ${(qx + 7).toFixed(1)} ${qy.toFixed(1)} L ${qx.toFixed(1)} ${(qy + 7).toFixed(1)} L ${(qx - 7).toFixed(1)} ${qy.toFixed(1)} Z`;
  return html`<figure class="meaning-map">
<svg viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" role="img" aria-labelledby="map-title map-desc" class="map" preserveAspectRatio="xMidYMid meet">
<title id="map-title">Approximate map of meaning</title>
<desc id="map-desc">${described}</desc>
<rect class="map-frame" x="0.5" y="0.5" width="${MAP_WIDTH - 1}" height="${MAP_HEIGHT - 1}"></rect>
<text class="map-axis" x="${MAP_WIDTH / 2}" y="${MAP_HEIGHT - 4}" text-anchor="middle">axis 1 (${percent(first)} of the spread)</text>
<text class="map-axis" x="10" y="${MAP_HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 10 ${MAP_HEIGHT / 2})">axis 2 (${percent(second)})</text>
${lines}
${dots}
<g class="map-question"><path d="${d}"></path>${questionLabel ? html`<text x="${questionLabel[0].toFixed(1)}" y="${questionLabel[1].toFixed(1)}">question</text>` : ""}</g>
</svg>
<figcaption>Approximate: the vectors' many dimensions seen along only two directions (PCA of the records' vectors; the two axes hold ${percent(first + second)} of the spread). Most similar to the question by the exact similarity: <span class="map-nearest">${nearText}</span>; the lines join them to the question, so where one of them sits far from it on the map, the projection distorts it.</figcaption>
</figure>`;
}

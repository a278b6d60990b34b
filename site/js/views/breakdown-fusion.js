// Hybrid's breakdown: the fused sum taken apart ranking by ranking (1 / (k + rank)).

import { SCORERS, scorerRow } from "../core/scorers.js";
import { fixed3, fixed4, scoreText } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/shapes.js").FusionPart} FusionPart */
/** @typedef {import("../core/scorers.js").Scorer} Scorer */

/**
 * 1 / (k + rank) for each ranking the record is in, their sum, and its share of the most a
 * record can earn, 2 / (k + 1).
 * @param {Result} result @param {RecordResult} r
 */
export function fusionBreakdown(result, r) {
  const k = result.policy.rrf_k;
  const parts = /** @type {FusionPart[]} */ (r.terms);
  const best = 2 / (k + 1);
  const rrf = r.rrf ?? 0;
  const head = html`${r.id}: RRF ${fixed4(rrf)}, share ${fixed3(r.relevance)}, score ${scoreText(r.score)}`;
  // The rankings hybrid fuses: the scorers whose ranks it shows beside its own.
  const fused = scorerRow(result.policy.scorer).ranks.filter((name) => name !== result.policy.scorer);
  const missing = fused.filter((name) => !parts.some((p) => p.scorer === name));
  const why = { bm25: "shares no term with the question", embedding: `similarity under the minimum ${result.policy.min_similarity}` };
  return {
    head,
    body: html`<table class="terms fusion-parts">
  <caption>${r.id}'s place in each ranking of the records in scope, and what it earns there: 1 / (k + rank), k = ${k}. Each ranking orders the records it matches by its own relevance.</caption>
  <thead><tr><th scope="col">Ranking</th><th scope="col">Rank</th><th scope="col">Earns</th></tr></thead>
  <tbody>
  ${parts.map(
    (p) => html`<tr data-scorer="${p.scorer}" data-rank="${p.rank}" data-contribution="${p.contribution}"><th scope="row">${SCORERS[/** @type {Scorer} */ (p.scorer)]?.name ?? p.scorer} (relevance ${fixed4(p.relevance)})</th><td>${p.rank}</td><td>1 / (${k} + ${p.rank}) = ${fixed4(p.contribution)}</td></tr>`,
  )}
  ${missing.map((name) => html`<tr><th scope="row">${SCORERS[name].name}</th><td>–</td><td>0: ${why[/** @type {"bm25" | "embedding"} */ (name)]}</td></tr>`)}
  </tbody>
  <tfoot><tr><th scope="row" colspan="2">RRF = sum</th><td>${fixed4(rrf)}</td></tr></tfoot>
</table>
<p class="formula">Share of the best possible = ${fixed4(rrf)} / (2 / (${k} + 1)) = ${fixed4(rrf)} / ${fixed4(best)} = ${fixed4(r.relevance)}: first in both rankings would give 1.</p>`,
  };
}

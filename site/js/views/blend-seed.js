// The seed blend's view of a record's score: its recency, and how the score blends it with
// the relevance of the scorer in force (engine/scoring.py's blend).

import { scorerRow } from "../core/scorers.js";
import { fixed4, formatNumber } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */

/** The recency and the score, with this record's numbers. @param {Result} result @param {RecordResult} r */
export function seedBlend(result, r) {
  const w = result.policy.recency_weight;
  const relevance = scorerRow(result.policy.scorer).relevance;
  const asOf = result.policy.as_of_hours;
  // Asked as of an earlier hour, the age counts from then: the hours between writing and the as-of.
  const age = asOf === 0 ? formatNumber(r.age_hours) : `(${formatNumber(r.age_hours)} − ${formatNumber(asOf)})`;
  const from =
    asOf === 0 ? "" : html` <span class="hint">(age counted from the as-of, ${formatNumber(asOf)} h ago: written ${formatNumber(r.age_hours)} h ago)</span>`;
  const score = /** @type {number} */ (r.score);
  return html`<p class="formula">Recency = 2<sup>−age/24</sup> = 2<sup>−${age}/24</sup> = ${fixed4(r.recency)}${from}</p>
<p class="formula">Score = (1 − ${w}) × ${fixed4(r.relevance)} + ${w} × ${fixed4(r.recency)} = <strong>${fixed4(score)}</strong>: (1 − recency weight) × ${relevance} + recency weight × recency.</p>`;
}

// How one record's score is computed under the scorer in force: which record and why it
// is the one shown, its exclusion first when it has one, the scorer's own view of its
// relevance and the blend's of its score (one module each, named in engine/scorers.py), its
// other scores and ranks, and under the scorers that read meaning, the map.

import { blendFor, COLUMNS, scorerRow } from "../core/scorers.js";
import { generativeAgentsBlend } from "./blend-generative-agents.js";
import { seedBlend } from "./blend-seed.js";
import { bm25Breakdown } from "./breakdown-bm25.js";
import { cosineBreakdown } from "./breakdown-cosine.js";
import { embeddingBreakdown } from "./breakdown-embedding.js";
import { fusionBreakdown } from "./breakdown-fusion.js";
import { fixed4, ordinal } from "./format.js";
import { html } from "./html.js";
import { renderMap } from "./map.js";
import { badge, otherRanks } from "./records.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/page-core.js").Choice} Choice */

/** Each breakdown view by the name the scorer table gives it. */
export const BREAKDOWN_VIEWS = { cosine: cosineBreakdown, bm25: bm25Breakdown, embedding: embeddingBreakdown, fusion: fusionBreakdown };

/** Each blend's view of a record's score, by the name the blend table gives it. */
export const BLEND_VIEWS = { seed: seedBlend, "generative-agents": generativeAgentsBlend };

/**
 * Why this record is the one explained: the learner's pick (still ranked, or excluded and
 * picked on purpose), or the top of the ranking after the learner's pick fell out of it.
 * @param {Result} result @param {RecordResult} r @param {Choice} choice
 */
export function whyShown(result, r, choice) {
  const name = scorerRow(result.policy.scorer).name;
  // Its places under the other scorers too, at the top: on a phone the breakdown's last line is screens away.
  const others = otherRanks(r, result.policy.scorer);
  const place = r.rank ? `ranked ${ordinal(r.rank)} under ${name}${others ? ` (${others})` : ""}` : "";
  if (choice.picked) return r.rank ? `${r.id}, the record you chose: ${place}.` : `${r.id}, the record you chose, is not ranked under this policy:`;
  const displaced = choice.displaced ? result.records.find((x) => x.id === choice.displaced) : undefined;
  const before = displaced ? `${displaced.id}, the record you chose, is not ranked under this policy (${displaced.reason.replace(/\.$/, "")}), so this shows ` : "This shows ";
  if (r.rank) return `${before}${r.id}, ${place}. Choose an ID in the table to see another record.`;
  return `No record is ranked under this policy; this shows ${r.id}, which is not ranked:`;
}

/**
 * The breakdown of the chosen record (the first record when the id is not in the result).
 * @param {Result} result @param {string} id @param {Choice} [choice]
 */
export function renderBreakdown(result, id, choice = { picked: false, displaced: null }) {
  const r = result.records.find((x) => x.id === id) ?? result.records[0];
  const row = scorerRow(result.policy.scorer);
  const { head, body } = BREAKDOWN_VIEWS[/** @type {keyof typeof BREAKDOWN_VIEWS} */ (row.breakdown)](result, r);
  const blendRow = blendFor(result.policy);
  const blend = BLEND_VIEWS[/** @type {keyof typeof BLEND_VIEWS} */ (blendRow.breakdown)](result, r);
  const outcome = html`<p class="formula breakdown-outcome">${badge(r.outcome)} ${r.reason}</p>`;
  return html`<p class="breakdown-why" data-shown="${r.id}" data-picked="${choice.picked}">${whyShown(result, r, choice)}</p>
${r.rank ? "" : outcome}<h3 id="breakdown-title">${head}</h3>
${blendRow.leads ? blend : ""}
${body}
${blendRow.leads ? "" : blend}
<p class="formula other-scorer">${otherScores(result, r)}</p>
${r.rank ? outcome : ""}
${row.pieces ? renderMap(result, r.id) : ""}`;
}

/**
 * The record's scores the scorer in force does not blend, and its ranks under the others.
 * @param {Result} result @param {RecordResult} r
 */
function otherScores(result, r) {
  const row = scorerRow(result.policy.scorer);
  const shown = Object.values(COLUMNS)
    .filter((c) => c.id !== row.columns[0] && r[c.id] !== null && r[c.id] !== undefined)
    .map((c) => `${c.header} ${fixed4(/** @type {number} */ (r[c.id]))}`);
  return html`Its other scores: ${shown.join(", ") || "none"}. Ranks under the other scorers: ${otherRanks(r, result.policy.scorer) || "none"}.`;
}

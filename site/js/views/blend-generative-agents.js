// The Generative Agents blend's view of a record's score (engine/generative.py): each term
// raw, min-max normalised over the records that reach ranking, and weighted, with the
// lowest and highest value it was normalised between; and what was verified in the
// published code about its recency.

import { fixed4, formatNumber } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/shapes.js").WeighedTerm} WeighedTerm */

// Read in joonspk-research/generative_agents, reverie/backend_server/persona/cognitive_modules/retrieve.py
// (extract_recency) and memory_structures/scratch.py (recency_decay).
const PUBLISHED = [
  "Verified in the published code (joonspk-research/generative_agents, retrieve.py): its recency is not per hour.",
  "It sorts the memories by when each was last accessed, oldest first, and gives them 0.99¹, 0.99², 0.99³…,",
  "so it counts places in that order, and the memory accessed longest ago gets the highest recency before normalising.",
  "The paper decays 0.995 per game hour since a memory was last retrieved; this page decays per hour of the record's age.",
].join(" ");

/**
 * How one term was normalised: the formula with this record's numbers, or why it is 0.5.
 * @param {WeighedTerm} term @param {number} raw @param {number} normalised @param {number} over
 */
function normalisedText(term, raw, normalised, over) {
  const low = /** @type {number} */ (term.low);
  const high = /** @type {number} */ (term.high);
  if (low === high) return `${fixed4(low)} for ${over === 1 ? "the only ranked record" : `all ${over} ranked records`}, so 0.5`;
  const [from, to] = [fixed4(low), fixed4(high)];
  return `normalised between ${from} and ${to}: (${fixed4(raw)} − ${from}) / (${to} − ${from}) = ${fixed4(normalised)}`;
}

/** A term's raw value, as made. @param {WeighedTerm} term @param {number} raw @param {Result} result @param {RecordResult} r */
function rawText(term, raw, result, r) {
  if (term.term === "recency") return html`${result.policy.ga_decay}<sup>${formatNumber(r.age_hours)}</sup> = ${fixed4(raw)}`;
  if (term.term === "importance") return html`${r.importance} (the record's)`;
  return fixed4(raw);
}

/** The score's terms with this record's numbers. @param {Result} result @param {RecordResult} r */
export function generativeAgentsBlend(result, r) {
  const weighing = result.weighing;
  const note = html`<p class="hint ga-published">${PUBLISHED}</p>`;
  if (!weighing || !r.weighed) {
    const over = weighing ? weighing.over : 0;
    const records = `${over} record${over === 1 ? "" : "s"}`;
    return html`<p class="formula ga-unscored">${r.id} does not reach ranking, so it has no Generative Agents score:
recency, importance and relevance are each min-max normalised over the ${records} that reach ranking,
so a score depends on which records those are.</p>
${note}`;
  }
  const weighed = r.weighed;
  const items = weighing.terms.map((term, i) => {
    const [raw, normalised, weighted] = weighed[i];
    const made = normalisedText(term, raw, normalised, weighing.over);
    const value = rawText(term, raw, result, r);
    return html`<li data-term="${term.term}"><strong>${term.term}</strong> ${value}; ${made}; × ${term.weight} = ${fixed4(weighted)}</li>`;
  });
  const sum = weighing.terms.map((term, i) => `${term.weight} × ${fixed4(weighed[i][1])}`).join(" + ");
  const records = `${weighing.over} record${weighing.over === 1 ? "" : "s"}`;
  return html`<p class="formula">Score = ${sum} = <strong>${fixed4(/** @type {number} */ (r.score))}</strong>: Generative Agents,
each term min-max normalised over the ${records} that reach ranking (lowest to 0, highest to 1), then weighted:</p>
<ul class="formula ga-terms">${items}</ul>
${note}`;
}

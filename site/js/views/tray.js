// The tray as HTML strings (no DOM: the build's prerender runs it under Node): what the
// agent would be given, its words against the budget, its coverage of the supporting facts,
// and why the records left out stayed out.

import { OUTCOME_TABLE as OUTCOMES } from "../core/tables.js";
import { html } from "./html.js";
import { nearMissText } from "./reading.js";

/** @typedef {import("../core/shapes.js").Result} Result */

/**
 * @param {Result} result
 * @param {Record<string, string>} tenantLabels
 */
export function renderTray(result, tenantLabels) {
  const byId = Object.fromEntries(result.records.map((r) => [r.id, r]));
  const cov = result.coverage;
  const tenant = tenantLabels[result.policy.tenant] ?? result.policy.tenant;
  const items = result.selected.map((id) => byId[id]);
  const missing = cov.supporting.filter((id) => !cov.found_ids.includes(id));
  const coverageText = result.question.own
    ? "Your own question has no declared supporting facts, so there is nothing to cover: judge the tray by reading it."
    : cov.total === 0
      ? `No supporting fact is declared for ${tenant} on this question.`
      : `${cov.found} of ${cov.total} supporting fact${cov.total === 1 ? "" : "s"} for ${tenant} selected` +
        (cov.found_ids.length ? ` (${cov.found_ids.join(", ")})` : "") +
        (missing.length ? `; missing ${missing.join(", ")}.` : ".");
  // Coverage comes first after the counts: it is what a learner checks the tray against.
  return html`<p class="tray-summary"><strong data-words-used="${result.words_used}">${result.words_used} of ${result.budget_words} words</strong> used · ${items.length} of ${result.policy.max_records} record${result.policy.max_records === 1 ? "" : "s"}</p>
<p class="coverage" data-found="${cov.found}" data-total="${cov.total}"><strong>Coverage:</strong> ${coverageText}</p>
<meter class="meter" min="0" max="${Math.max(1, result.budget_words)}" value="${result.words_used}" aria-label="Words used of the budget"></meter>
${
  items.length
    ? html`<ol class="tray-items">${items.map(
        (r) => html`<li data-record-id="${r.id}"><span class="card-id">${r.id}</span> <span class="tray-text">${r.text}</span> <span class="tray-words">${r.words} words</span></li>`,
      )}</ol>`
    : html`<p class="tray-empty">The tray is empty: ${whyLeftOut(result).join("; ")}.${nearMissNote(result)} The table below says why each record stayed out.</p>`
}${items.length && leftAfterRanking(result) ? html`<p class="tray-why">Not in the tray: ${whyLeftOut(result).join("; ")}.</p>` : ""}`;
}

// Why a record stayed out of the tray, by outcome code: the scope filters' outcomes are
// counted together, each with its label; the scorer's match and the packing have a phrase.
/** @type {Record<string, (n: number, policy: Result["policy"]) => string>} */
const LEFT_OUT = {
  no_shared_terms: (n) => `${n} in scope share${n === 1 ? "s" : ""} no word with the question`,
  below_similarity: (n, p) => `${n} in scope ${n === 1 ? "is" : "are"} below the minimum similarity of ${p.min_similarity}`,
  over_budget: (n, p) => `${n} ${n === 1 ? "is" : "are"} too long for the words left of the ${p.budget_words}-word budget`,
  record_limit: (n, p) => `${n} ${n === 1 ? "is" : "are"} over the limit of ${p.max_records} record${p.max_records === 1 ? "" : "s"}`,
  too_similar: (n, p) => `${n} ${n === 1 ? "is" : "are"} too like a record already in it (diversity λ ${p.mmr_lambda})`,
};

/**
 * Why records stayed out of the tray, one phrase per reason, in the order of the stages.
 * @param {Result} result @returns {string[]}
 */
export function whyLeftOut(result) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const r of result.records) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const scope = OUTCOME_CODES.filter((code) => OUTCOMES[code].stage === 2 && counts.get(code));
  const outOfScope = scope.reduce((sum, code) => sum + (counts.get(code) ?? 0), 0);
  /** @type {string[]} */
  const phrases = [];
  if (outOfScope === result.records.length) {
    phrases.push(`all ${outOfScope} records are out of scope (${scope.map((code) => `${counts.get(code)} ${OUTCOMES[code].label.toLowerCase()}`).join(", ")}), so none was scored`);
  } else if (outOfScope) {
    phrases.push(`${outOfScope} out of scope (${scope.map((code) => `${counts.get(code)} ${OUTCOMES[code].label.toLowerCase()}`).join(", ")})`);
  }
  for (const code of OUTCOME_CODES) {
    const n = counts.get(code);
    if (n && LEFT_OUT[code]) phrases.push(LEFT_OUT[code](n, result.policy));
  }
  if (result.question.terms.length === 0 && counts.get("no_shared_terms")) phrases.push("no word of the question is in any record");
  return phrases;
}

const OUTCOME_CODES = Object.keys(OUTCOMES);

/** Whether some ranked record stayed out of a tray that holds something, or the tray could hold more. @param {Result} result */
function leftAfterRanking(result) {
  return result.selected.length < result.ranked.length || (result.selected.length < result.policy.max_records && result.selected.length < result.records.length);
}

/** The near misses after an empty tray's reasons, when some in-scope record shares no word. @param {Result} result */
function nearMissNote(result) {
  const text = nearMissText(result.question);
  return text && result.records.some((r) => r.outcome === "no_shared_terms") ? ` ${text}` : "";
}

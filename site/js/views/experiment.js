// The experiment's outline as HTML strings (no DOM: the build's prerender runs it under
// Node): its introduction (which question, of whose memory, scored how), its four stages,
// and the diagram of how many records each stage keeps.

import { SCORERS, scorerRow } from "../core/scorers.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/scorers.js").Scorer} Scorer */

export const STAGES = [
  { n: 1, title: "Stored records", explain: "Stage 1, stored records: every record in the store, before any policy. Nothing is excluded yet." },
  { n: 2, title: "Scope filters", explain: "Stage 2, scope filters: tenant, latest fact per key, memory store, session and age remove records before any similarity is used." },
  { n: 3, title: "Ranking", explain: `Stage 3, ranking: ${SCORERS.tfidf.ranking}` },
  { n: 4, title: "Final context", explain: "Stage 4, final context: ranked records are packed greedily into the word budget and record limit; the tray is what the agent would be given." },
];

/**
 * A stage's explanation, naming the scorer in force where the stage uses it.
 * @param {number} stage  1 to 4 @param {Scorer} scorer
 */
export function stageExplanation(stage, scorer) {
  if (stage !== 3) return STAGES[stage - 1].explain;
  return `Stage 3, ranking: ${scorerRow(scorer).ranking}`;
}

/** @param {Result} result */
export function renderDiagram(result) {
  const c = result.counts;
  const removedByScope = c.stored - c.in_scope;
  const noTerms = c.in_scope - c.ranked;
  const notPacked = c.ranked - c.selected;
  const details = [
    `${c.stored} record${c.stored === 1 ? "" : "s"} in the store`,
    `${c.in_scope} in scope, ${removedByScope} removed by policy`,
    `${c.ranked} ranked, ${noTerms} ${scorerRow(result.policy.scorer).unmatched}`,
    `${c.selected} in the tray, ${notPacked} not packed · ${result.words_used} of ${result.budget_words} words`,
  ];
  const counts = [c.stored, c.in_scope, c.ranked, c.selected];
  return html`${STAGES.map(
    (s, i) => html`<li class="stage-box" data-stage-box="${s.n}">
  <span class="stage-number">Stage ${s.n}</span>
  <span class="stage-title">${s.title}</span>
  <span class="stage-count" data-count="${counts[i]}">${counts[i]}</span>
  <span class="stage-detail">${details[i]}</span>
</li>`,
  )}`;
}

/**
 * The experiment's introduction: the question asked (one of the store's, or the learner's
 * own) of which tenant, and how the scorer in force matches records.
 * @param {Result} result @param {Record<string, string>} tenantLabels
 */
export function renderIntro(result, tenantLabels) {
  const q = result.question;
  const tenant = tenantLabels[result.policy.tenant] ?? result.policy.tenant;
  const scorer = scorerRow(result.policy.scorer).intro;
  const asked = q.own
    ? html`You ask your own question, “${q.text}”, of ${tenant}'s memory. It is read with the store's words and weights and has no declared answer: judge the tray by reading it.`
    : html`You ask one of the store's questions, “${q.text}”, of ${tenant}'s memory.`;
  return html`${asked} Each record in scope is scored by ${scorer}, then blended with recency. Change one setting at a time and read what each stage keeps: an empty tray is a valid result, and the table explains every exclusion.`;
}

// How the question in force is read, in the words of the scorer in force: the engine's
// reading claims (engine/reading.py), each sentence naming the scorer it is about.

import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */

/**
 * The reading box: the question asked, then one sentence per claim.
 * @param {Result["question"]} q
 */
export function renderReading(q) {
  // A fixed question is named: with Your own question chosen and its box empty, it is the one in force.
  const head = q.own ? html`<strong>Your question, as read</strong>` : html`<strong>“${q.text}”, as read</strong>`;
  return html`<p class="read-head">${head}</p><ul class="read-claims">${q.reading.map(
    (c) => html`<li class="read-claim" data-kind="${c.kind}" data-scorer="${c.scorer}">${c.text}</li>`,
  )}</ul>`;
}

/**
 * The near-miss sentence of the lexical scorer in force (“deploy” is not “deployment”),
 * or "" when no lexical scorer is in force or no word missed that way.
 * @param {Result["question"]} q
 */
export function nearMissText(q) {
  return q.reading.find((c) => c.kind === "near_miss")?.text ?? "";
}

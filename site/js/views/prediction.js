// The learner's prediction as HTML strings (no DOM: the build's prerender runs it under
// Node): a checkbox per record of the page, and the verdict once the tray is shown.

import { html } from "./html.js";

/**
 * Prediction checkboxes for a page of records.
 * @param {{id: string, text: string}[]} records
 * @param {Set<string>} checked
 */
export function renderPredictionChoices(records, checked) {
  return html`${records.map(
    (r) => html`<label class="predict"><input type="checkbox" name="predict" value="${r.id}"${checked.has(r.id) ? html` checked` : ""}> <span class="card-id">${r.id}</span> <span class="predict-text">${r.text}</span></label>`,
  )}`;
}

/**
 * The verdict on a learner's prediction at stage 4.
 * @param {{held: string[], wrong: string[], missed: string[], exact: boolean}} check
 * @param {string[]} predicted
 */
export function renderVerdict(check, predicted) {
  const guess = predicted.length ? predicted.join(", ") : "an empty tray";
  const headline = check.exact ? "Your prediction held exactly." : "Your prediction differs from the tray.";
  const list = (/** @type {string} */ label, /** @type {string[]} */ ids) =>
    ids.length ? html`<li>${label}: ${ids.join(", ")}</li>` : "";
  return html`<p class="verdict-head ${check.exact ? "tone-good" : "tone-warn"}"><span aria-hidden="true">${check.exact ? "✓" : "≠"}</span> ${headline}</p>
<p>You predicted ${guess}.</p>
<ul>${list("Held (predicted and selected)", check.held)}${list("Did not hold (predicted, not selected)", check.wrong)}${list("Missed (selected, not predicted)", check.missed)}</ul>`;
}

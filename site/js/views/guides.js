// The guided experiments as HTML strings (no DOM: the build's prerender runs it under
// Node): the start list at the top of the page, each guide's step list, and the bar that
// stays on screen with the step in force, then with the guide's closing.

import { html } from "./html.js";

/**
 * The guided experiments of a store: step lists, each step one click away.
 * @param {{id: string, title: string, intro?: string, steps: {title: string, look_for: string}[]}[]} guides
 */
export function renderGuides(guides) {
  if (!guides.length) return html`<p class="hint">This store has no guided experiments.</p>`;
  return html`${guides.map(
    (g) => html`<article class="guide" data-guide="${g.id}">
  <h3>${g.title}</h3>
  ${g.intro ? html`<p>${g.intro}</p>` : ""}
  <ol>${g.steps.map(
    (step, i) => html`<li data-step="${i + 1}">
    <p><strong>${step.title}</strong></p>
    <button type="button" class="small" data-guide-step="${g.id}:${i}">Apply step ${i + 1}</button>
    <p class="look-for"><span class="look-label">Look for:</span> ${step.look_for}</p>
  </li>`,
  )}</ol>
</article>`,
  )}`;
}

/** @typedef {{id: string, title: string, intro?: string, closing?: string, steps: {title: string, look_for: string, policy?: Partial<import("../core/tables.js").Policy>, shows?: import("../core/page-core.js").Shows}[]}} Guide */

/**
 * The way in, at the top of the page: one button per guided experiment, starting its first step.
 * Its buttons and the guide bar's go to a step by data-guide-go; the guides' own list keeps
 * data-guide-step, so each step's Apply button is found by that name alone.
 * @param {Guide[]} guides
 */
export function renderStart(guides) {
  if (!guides.length) return html`<li>This store has no guided experiments: change the settings below and read what each stage keeps.</li>`;
  return html`${guides.map(
    (g) => html`<li><button type="button" class="start-button" data-guide-go="${g.id}:0">${g.title}</button> <span class="start-steps">${g.steps.length} step${g.steps.length === 1 ? "" : "s"}</span></li>`,
  )}`;
}

/**
 * The guided step in force, in the bar that stays on screen with the result: which step
 * of how many, what it set, what to look for, and the way to the steps either side. On a
 * phone the guide's title and the "Look for" are folded behind the Look for button
 * (``expanded`` unfolds them).
 * @param {Guide} guide @param {number} index @param {boolean} changed  a setting was changed by hand since
 * @param {boolean} [expanded]
 * @param {boolean} [held]  the step waits for the learner's prediction before its tray: its "Look for" is held back
 */
export function renderGuideBar(guide, index, changed, expanded = false, held = false) {
  const step = guide.steps[index];
  const last = index === guide.steps.length - 1;
  // Held back while the step waits for the learner's prediction: it tells what the tray holds.
  const lookFor = held ? "shown once your prediction is checked (Check and show the tray, under Your prediction)." : step.look_for;
  return html`<div class="guide-bar-text" tabindex="0" role="group" aria-labelledby="guide-bar-count">
  <p class="guide-bar-head"><strong id="guide-bar-count" tabindex="-1">Step ${index + 1} of ${guide.steps.length}</strong><span class="guide-bar-title"> · ${guide.title}</span></p>
  <p class="guide-bar-step">${step.title}</p>
  <div class="guide-bar-details" id="guide-bar-details">
  <p class="look-for"${held ? html` data-held` : ""}><span class="look-label">Look for:</span> ${lookFor}</p>
  ${changed ? html`<p class="guide-bar-changed">A setting was changed by hand since this step was applied.</p>` : ""}
  </div>
</div>
<div class="guide-bar-buttons">
  <button type="button" class="small guide-bar-toggle" data-guide-details aria-expanded="${expanded}" aria-controls="guide-bar-details">${expanded ? "Hide" : "Look for"}</button>
  <button type="button" class="small" data-guide-go="${guide.id}:${index - 1}"${index === 0 ? html` disabled` : ""}>Previous</button>
  ${changed ? html`<button type="button" class="small" data-guide-go="${guide.id}:${index}">Apply again</button>` : ""}
  ${last ? html`<button type="button" class="small primary" data-guide-finish>Finish</button>` : html`<button type="button" class="small primary" data-guide-go="${guide.id}:${index + 1}">Next step</button>`}
  ${last ? "" : html`<button type="button" class="small" data-guide-close>Close</button>`}
</div>`;
}

/**
 * The bar once a guide's last step is finished: what the guide showed (its ``closing``, as
 * its author wrote it), and the guide after it in the store to try next, if there is one.
 * @param {Guide} guide @param {Guide | undefined} next
 */
export function renderGuideClosing(guide, next) {
  const onward = next
    ? html`Try next: “${next.title}”, ${next.steps.length} step${next.steps.length === 1 ? "" : "s"}.`
    : html`It is the last guided experiment of this store.`;
  return html`<div class="guide-bar-text" tabindex="0" role="group" aria-labelledby="guide-bar-count">
  <p class="guide-bar-head"><strong id="guide-bar-count" tabindex="-1">Finished</strong><span class="guide-bar-title"> · ${guide.title}</span></p>
  <p class="guide-bar-closing">${guide.closing ? html`${guide.closing} ` : ""}${onward}</p>
</div>
<div class="guide-bar-buttons">
  ${next ? html`<button type="button" class="small primary" data-guide-go="${next.id}:0">Start “${next.title}”</button>` : ""}
  <button type="button" class="small" data-guide-close>Close</button>
</div>`;
}

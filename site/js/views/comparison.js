// The baseline beside the current result, as HTML strings: the settings that differ,
// both trays, and the records whose outcome changed.

import { OUTCOME_TABLE as OUTCOMES } from "../core/tables.js";
import { html } from "./html.js";
import { badge } from "./records.js";

/** @param {unknown} value */
const setting = (value) => (typeof value === "boolean" ? (value ? "on" : "off") : value === "" ? "(empty)" : String(value));

/**
 * Baseline beside the current result: differing settings, trays, outcome changes.
 * @param {import("../core/observations.js").Snapshot} before
 * @param {import("../core/observations.js").Snapshot} after
 * @param {ReturnType<typeof import("../core/observations.js").compare>} diff
 */
export function renderComparison(before, after, diff) {
  const tray = (/** @type {import("../core/observations.js").Snapshot} */ s) => (s.selected.length ? s.selected.join(", ") : "empty");
  const side = (/** @type {string} */ title, /** @type {import("../core/observations.js").Snapshot} */ s) => html`<div class="side">
  <h4>${title}</h4>
  <p><strong>Tray:</strong> ${tray(s)}</p>
  <p>${s.words_used} of ${s.budget_words} words · ${s.policy.question_text ? "coverage not measured (your own question)" : `coverage ${s.coverage.found} of ${s.coverage.total}`}</p>
</div>`;
  const settings = diff.settings.length
    ? html`<table class="diff"><caption>Settings that differ</caption><thead><tr><th scope="col">Setting</th><th scope="col">Baseline</th><th scope="col">Current</th></tr></thead><tbody>${diff.settings.map(
        (d) => html`<tr><th scope="row">${d.name}</th><td>${setting(d.before)}</td><td>${setting(d.after)}</td></tr>`,
      )}</tbody></table>`
    : html`<p>Same settings as the baseline.</p>`;
  const outcomes = diff.outcomes.length
    ? html`<table class="diff"><caption>Records whose outcome changed</caption><thead><tr><th scope="col">Record</th><th scope="col">Baseline</th><th scope="col">Current</th></tr></thead><tbody>${diff.outcomes.map(
        (d) => html`<tr data-record-id="${d.id}"><th scope="row">${d.id}</th><td>${OUTCOMES[d.before] ? badge(d.before) : d.before}</td><td>${badge(d.after)}</td></tr>`,
      )}</tbody></table>`
    : html`<p>No record changed its outcome.</p>`;
  return html`<div class="sides">${side("Baseline", before)}${side("Current", after)}</div>${settings}${outcomes}`;
}

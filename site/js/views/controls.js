// The settings' choices as HTML strings (no DOM: the build's prerender runs it under
// Node): each choice control's <option>s.

import { html } from "./html.js";

/**
 * <option>s for a select; `selected` marks the current value.
 * @param {{value: string, label: string}[]} options
 * @param {string} selected
 */
export function renderOptions(options, selected) {
  return html`${options.map((o) => html`<option value="${o.value}"${o.value === selected ? html` selected` : ""}>${o.label}</option>`)}`;
}

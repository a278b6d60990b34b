// The page's DOM: reading and writing the controls, and placing rendered results.
// Markup comes from the pure views (records.js, tray.js, guides.js…); this module only
// decides where it goes. What it placed last is remembered in one Placed object
// (createPlaced), which the page passes in.

import { whenIdle } from "../browser/idle.js";
import { PAGE_SIZE } from "../core/page-core.js";
import { OWN_OPTION, parseValue } from "../core/state.js";
import { morphChildren, morphElement } from "./morph.js";
import { scorerRow } from "../core/scorers.js";
import { renderBreakdown } from "./breakdown.js";
import { renderOptions } from "./controls.js";
import { renderGuides, renderStart } from "./guides.js";
import { renderPredictionChoices } from "./prediction.js";
import { resultViews } from "./result-views.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/tables.js").Policy} Policy */
/** @typedef {import("../core/state.js").Field} Field */
/** @typedef {import("./result-views.js").ViewContext} ViewContext */

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * While the views still show the build's result: that result, the ids of those views
 * and the views whose markup is still to be remembered as placed.
 * @typedef {{result: Result, context: ViewContext, ids: Set<string>, views: [string, () => unknown][]}} Prerendered
 */

/**
 * What the views last placed, so that an unchanged view is not rebuilt.
 * @typedef {object} Placed
 * @property {Map<string, string>} markup  the markup in each container
 * @property {Map<string, string[]>} items  the items of list containers (cards, rows), one markup per child element
 * @property {Prerendered | null} prerendered  the build's result, while the views still show it (adoptPrerendered)
 */

/** Nothing placed yet: the page makes one, which every view is placed through. @returns {Placed} */
export function createPlaced() {
  return { markup: new Map(), items: new Map(), prerendered: null };
}

/**
 * @param {Placed} placed
 * @param {string} id
 * @param {unknown} markup  markup, or a list of one-element markups (cards, rows)
 */
export function place(placed, id, markup) {
  // A result view is compared with the markup it shows, and then no longer shows the build's result.
  if (placed.prerendered?.ids.has(id)) rememberPrerendered(placed);
  if (Array.isArray(markup)) {
    placeItems(placed, id, markup.map(String));
    return;
  }
  const html = String(markup);
  if (placed.markup.get(id) === html) return;
  placed.markup.set(id, html);
  const element = byId(id);
  if (html === "" && !element.firstChild) return;
  // A live region is replaced whole, as a screen reader expects to read it again; the
  // rest keep what is unchanged (morph.js).
  if (element.hasAttribute("aria-live")) {
    element.innerHTML = html;
    return;
  }
  morphChildren(element, html);
}

/**
 * A list of one-element markups: when only some differ (a budget change moves a
 * few records between the tray and "over budget"), only those elements are
 * rewritten; parsing and laying out every card and row again costs milliseconds.
 * @param {Placed} placed @param {string} id @param {string[]} items
 */
function placeItems(placed, id, items) {
  const before = placed.items.get(id);
  const element = byId(id);
  placed.items.set(id, items);
  if (!before || before.length !== items.length || element.childNodes.length !== items.length) {
    element.innerHTML = items.join("");
    return;
  }
  items.forEach((item, i) => {
    if (item !== before[i]) morphElement(element.children[i], item);
  });
}

// Writing a value a node already has still costs a style and layout pass; these
// write only what changed, so an identical answer leaves the page untouched.

/** @param {HTMLElement} element @param {string} text */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** @param {HTMLElement} element @param {boolean} hidden */
export function setHidden(element, hidden) {
  if (element.hidden !== hidden) element.hidden = hidden;
}

/** @param {HTMLButtonElement | HTMLFieldSetElement} element @param {boolean} disabled */
export function setDisabled(element, disabled) {
  if (element.disabled !== disabled) element.disabled = disabled;
}

const form = () => /** @type {HTMLFormElement} */ (byId("policy-form"));

/** @param {string} name */
function control(name) {
  return /** @type {HTMLInputElement | HTMLSelectElement} */ (form().elements.namedItem(name));
}

/** @param {Policy} policy @param {Field[]} fields */
export function writeControls(policy, fields) {
  for (const field of fields) {
    const element = control(field.name);
    const value = policy[field.name];
    if (field.kind === "bool") {
      const box = /** @type {HTMLInputElement} */ (element);
      if (box.checked !== Boolean(value)) box.checked = Boolean(value);
    } else if (element.value !== String(value)) element.value = String(value);
    setFieldError(field.name, "");
  }
  // A text in force instead of a choice shows as that choice's own option.
  for (const field of fields) {
    if (field.replaces && policy[field.name] !== "") control(field.replaces).value = OWN_OPTION;
  }
  showSliderValues(policy, fields);
  showTextControls(fields);
  showFieldsInForce(policy, fields);
  showRecencyHint(policy);
}

/**
 * The recency weight's hint in the words of the scorer in force: what 0 ranks on.
 * @param {Policy} policy
 */
function showRecencyHint(policy) {
  const hint = document.getElementById("f-recency-weight-hint");
  if (hint) setText(hint, scorerRow(policy.scorer).recencyHint);
}

/**
 * A field that matters only with another field's value (BM25's k1 and b, with the BM25
 * scorer) has its control shown only then; hidden, it keeps its value.
 * @param {Policy} policy @param {Field[]} fields
 */
function showFieldsInForce(policy, fields) {
  for (const field of fields) {
    if (!field.shownWith) continue;
    const [other, value] = field.shownWith;
    const shown = Array.isArray(value) ? value.includes(String(policy[other])) : policy[other] === value;
    const wrapper = control(field.name).closest(".control");
    if (wrapper instanceof HTMLElement) setHidden(wrapper, !shown);
  }
}

/**
 * A text field that replaces a choice (your own question) is shown while its option is
 * chosen, or while it holds text.
 * @param {Field[]} fields
 */
function showTextControls(fields) {
  for (const field of fields) {
    if (!field.replaces) continue;
    const box = control(field.name);
    const active = control(field.replaces).value === OWN_OPTION || box.value !== "";
    box.closest(".control")?.toggleAttribute("data-inactive", !active);
  }
}

/** A slider's value, written beside it. @param {Policy} policy @param {Field[]} fields */
function showSliderValues(policy, fields) {
  for (const field of fields) {
    if (field.control === "range") setText(byId(`${control(field.name).id}-value`), String(policy[field.name]));
  }
}

/**
 * Read every control. Values a learner typed that break a rule are reported per
 * field and left in the box, so nothing typed is lost.
 * @param {Field[]} fields
 * @param {Policy} fallback the policy to keep for fields in error
 * @returns {{policy: Policy, errors: number}}
 */
export function readControls(fields, fallback) {
  const policy = /** @type {Policy} */ ({ ...fallback });
  let errors = 0;
  const replaced = new Set(fields.map((f) => f.replaces).filter(Boolean));
  for (const field of fields) {
    const element = control(field.name);
    if (field.kind === "bool") {
      /** @type {Record<string, unknown>} */ (policy)[field.name] = /** @type {HTMLInputElement} */ (element).checked;
      continue;
    }
    // The own option keeps the choice made last, in force again once the text is cleared.
    if (replaced.has(field.name) && element.value === OWN_OPTION) continue;
    // Choosing one of the fixed choices again sets the text aside.
    if (field.replaces && control(field.replaces).value !== OWN_OPTION && element.value !== "") element.value = "";
    const parsed = parseValue(field, element.value);
    if (parsed.ok) {
      /** @type {Record<string, unknown>} */ (policy)[field.name] = parsed.value;
      setFieldError(field.name, "");
    } else {
      errors += 1;
      const label = element.labels?.[0]?.textContent ?? field.name;
      setFieldError(field.name, `${label} ${parsed.rule}.`);
    }
  }
  showSliderValues(policy, fields);
  showTextControls(fields);
  showFieldsInForce(policy, fields);
  return { policy, errors };
}

/** @param {string} name @param {string} message */
function setFieldError(name, message) {
  const element = control(name);
  const errorBox = document.getElementById(`${element.id}-error`);
  if (message) element.setAttribute("aria-invalid", "true");
  else element.removeAttribute("aria-invalid");
  if (!errorBox) return;
  setText(errorBox, message);
  setHidden(errorBox, !message);
}

/**
 * The page arrives with the build's result already in its views, made by this same
 * renderer (tools/prerender.mjs). Python's first answer is usually that same result:
 * then nothing is rendered, rebuilt or laid out again. The markup is remembered later,
 * one view per idle moment, so that the next change rebuilds only what differs.
 * @param {Placed} placed
 * @param {Result} result  the prerendered result
 * @param {ViewContext} context  as at build time
 */
export function adoptPrerendered(placed, result, context) {
  const views = resultViews(result, context);
  placed.prerendered = { result, context, ids: new Set(views.map(([id]) => id)), views };
}

/** Remember one prerendered view's markup as placed. @param {Placed} placed @param {[string, () => unknown]} view */
function rememberView(placed, [id, markup]) {
  const made = markup();
  if (Array.isArray(made)) placed.items.set(id, made.map(String));
  else placed.markup.set(id, String(made));
}

/** Remember what is left of the prerendered markup, now: a result view is about to change. @param {Placed} placed */
function rememberPrerendered(placed) {
  if (!placed.prerendered) return;
  for (const view of placed.prerendered.views) rememberView(placed, view);
  placed.prerendered = null;
}

/** Remember the prerendered markup in idle moments, one view each, unless placing one comes first. @param {Placed} placed */
function rememberPrerenderedWhenIdle(placed) {
  const next = () => {
    const view = placed.prerendered?.views.shift();
    if (!view) {
      placed.prerendered = null;
      return;
    }
    rememberView(placed, view);
    idle(next);
  };
  idle(next);
}

const idle = (/** @type {() => void} */ callback) => whenIdle(callback, 2000);

/**
 * Whether two results (JSON data: plain objects, arrays, strings, numbers, booleans,
 * null) are the same, whatever the order of their keys.
 * @param {unknown} a @param {unknown} b @returns {boolean}
 */
export function sameData(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameData(/** @type {any} */ (a)[key], /** @type {any} */ (b)[key]));
}

/**
 * Whether result, shown as context says, is what the prerendered views already show.
 * @param {Prerendered | null} prerendered @param {Result} result @param {ViewContext} context
 */
function showsPrerendered(prerendered, result, context) {
  return prerendered !== null && sameData(context, prerendered.context) && sameData(result, prerendered.result);
}

/**
 * Place a result in every view, keeping keyboard focus on the same record. Cards,
 * rows and chart show one page of records, so a store of thousands stays responsive.
 * @param {Placed} placed
 * @param {Result} result
 * @param {ViewContext} context
 */
export function showResult(placed, result, context) {
  const focusedRecord = /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.choose;
  if (showsPrerendered(placed.prerendered, result, context)) rememberPrerenderedWhenIdle(placed);
  else for (const [id, markup] of resultViews(result, context)) place(placed, id, markup());
  showPager(result.records.length, context.page);
  setText(byId("question-text"), result.question.text);
  setText(byId("question-own"), result.question.own ? " (your own)" : "");
  if (focusedRecord) {
    /** @type {HTMLElement | null} */ (document.querySelector(`[data-choose="${CSS.escape(focusedRecord)}"]`))?.focus();
  }
}

/** @param {number} total @param {number} page */
function showPager(total, page) {
  setHidden(byId("pager"), total <= PAGE_SIZE);
  const first = page * PAGE_SIZE + 1;
  const last = Math.min(total, (page + 1) * PAGE_SIZE);
  setText(byId("pager-status"), `Records ${first}–${last} of ${total}`);
  setDisabled(/** @type {HTMLButtonElement} */ (byId("page-previous")), page === 0);
  setDisabled(/** @type {HTMLButtonElement} */ (byId("page-next")), last >= total);
  setText(byId("cards-count"), String(total));
}

/**
 * Rebuild everything that depends on the store itself: the choices of every choice
 * control (questions and tenants come from the store), guided experiments, the title.
 * @param {any} store
 * @param {Policy} policy
 * @param {Field[]} fields  policyFields(store)
 */
export function showStore(store, policy, fields) {
  const own = new Set(fields.filter((f) => f.replaces && policy[f.name] !== "").map((f) => f.replaces));
  for (const field of fields) {
    if (!field.options) continue;
    const selected = own.has(field.name) ? OWN_OPTION : String(policy[field.name]);
    control(field.name).innerHTML = String(renderOptions(field.options, selected));
  }
  showTextControls(fields);
  byId("guide-list").innerHTML = String(renderGuides(store.guides ?? []));
  byId("start-list").innerHTML = String(renderStart(store.guides ?? []));
  byId("store-title").textContent = store.title;
}

/**
 * Prediction boxes for the records on the current page, keeping what was marked.
 * @param {{id: string, text: string}[]} records
 * @param {number} page
 * @param {Set<string>} checked
 */
export function showPredictionChoices(records, page, checked) {
  byId("prediction-grid").innerHTML = String(renderPredictionChoices(records.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), checked));
}

/**
 * Choose the record whose score is explained, without re-rendering the rest.
 * @param {Placed} placed @param {Result} result @param {string} chosenId @param {import("../core/page-core.js").Choice} [choice]
 */
export function showChosen(placed, result, chosenId, choice) {
  for (const row of document.querySelectorAll("#records-body tr")) {
    const chosen = /** @type {HTMLElement} */ (row).dataset.recordId === chosenId;
    row.classList.toggle("chosen", chosen);
    row.querySelector("button")?.setAttribute("aria-pressed", String(chosen));
  }
  place(placed, "score-breakdown", renderBreakdown(result, chosenId, choice));
}

/** @param {string | null} note  while the views show an older result than the controls: the sentence that says so */
export function setPending(note) {
  const pending = note !== null;
  byId("experiment").toggleAttribute("data-pending", pending);
  byId("records").toggleAttribute("data-pending", pending);
  for (const id of ["pending-note", "records-pending-note"]) {
    const line = byId(id);
    setText(line, note ?? "");
    setHidden(line, !pending);
  }
}

/** @param {import("../python/engine-client.js").Status} status */
export function showStatus(status) {
  setText(byId("engine-status-text"), status.text);
  const bar = /** @type {HTMLProgressElement} */ (byId("engine-progress"));
  if (status.step !== undefined && bar.value !== status.step) bar.value = status.step;
  setHidden(byId("engine-retry"), status.state !== "failed");
}

/**
 * Show notices (bad link values, engine errors) as text; an empty list hides the box.
 * @param {string[]} messages
 */
export function showNotices(messages) {
  const box = byId("notices");
  box.replaceChildren();
  box.hidden = messages.length === 0;
  if (!messages.length) return;
  const list = document.createElement("ul");
  for (const message of messages) {
    const item = document.createElement("li");
    item.textContent = message;
    list.append(item);
  }
  const dismiss = document.createElement("button");
  dismiss.type = "button";
  dismiss.className = "small dismiss";
  dismiss.textContent = "Dismiss";
  dismiss.addEventListener("click", () => showNotices([]));
  box.append(list, dismiss);
}

// The store editor's form, drawn from a draft: every object and field the store format
// holds, with the labels, kinds, limits and help of the engine's format table
// (STORE_FORMAT) and, for a guided step's settings, of its field table (FIELD_TABLE).
//
// Pure HTML through html.js: a store's text is always escaped, never markup. Each field
// carries its path (data-path) as the engine's parser names it, so the panel can put a
// problem at its field; ids are numbered per drawing, so no store text becomes an id.

import { GUIDE_PARTS } from "../core/tables.js";
import { policyFields } from "../core/state.js";
import { html } from "../views/html.js";
import { FORMAT, pathText, textOf } from "./editor-state.js";

/** @typedef {import("./editor-state.js").FormatRow} FormatRow */
/** @typedef {import("./editor-state.js").Path} Path */
/** @typedef {ReturnType<typeof html>} Markup */

// Fields written as prose get a box of several lines.
const LONG_TEXT = new Set(["text", "look_for", "intro", "closing", "description"]);
// Store fields the editor keeps but does not offer: "$schema" only points editors at the
// schema, and the format version has one allowed value.
const KEPT_AS_IS = new Set(["$schema", "schema"]);

/** Numbers the ids of one drawing. */
function counter() {
  let n = 0;
  return () => `ed-${++n}`;
}

/** @param {any[] | undefined} list */
const listOf = (list) => (Array.isArray(list) ? list : []);

/**
 * One field: its label, control, help and a place for its problem.
 * @param {() => string} id @param {Path} path
 * @param {{kind: string, label: string, help: string, required: boolean, min?: number, max?: number}} row
 * @param {any} value @param {{value: string, label: string}[] | null} options  a select's options, null for a text control
 * @param {string} [kindName]  how the panel reads the control's text back (editor-state.js valueOf)
 */
function field(id, path, row, value, options, kindName = row.kind) {
  const own = id();
  const where = pathText(path);
  const described = `${own}-help ${own}-error`;
  const data = html`data-path="${where}" data-keys="${JSON.stringify(path)}" data-kind="${kindName}" data-required="${row.required ? "1" : ""}"`;
  const attrs = html`id="${own}" ${data} aria-describedby="${described}"`;
  let control;
  if (options) {
    const text = textOf(value);
    const known = options.some((o) => o.value === text);
    // A value the lists do not hold (a tenant since renamed) stays shown until changed.
    const all = known ? options : [...options, { value: text, label: text }];
    const option = (/** @type {{value: string, label: string}} */ o) =>
      html`<option value="${o.value}"${o.value === text ? html` selected` : ""}>${o.label}</option>`;
    control = html`<select ${attrs}>${all.map(option)}</select>`;
  } else if (row.kind === "note" || LONG_TEXT.has(String(path[path.length - 1]))) {
    control = html`<textarea ${attrs} rows="${row.kind === "note" ? 2 : 3}">${textOf(value)}</textarea>`;
  } else if (row.kind === "int" || row.kind === "hours" || row.kind === "number") {
    const limits = html`${row.min !== undefined ? html` min="${row.min}"` : ""}${row.max !== undefined ? html` max="${row.max}"` : ""}`;
    control = html`<input type="text" inputmode="decimal" autocomplete="off" ${attrs}${limits} value="${textOf(value)}">`;
  } else {
    control = html`<input type="text" autocomplete="off" ${attrs} value="${textOf(value)}">`;
  }
  const range = row.max !== undefined ? ` (${row.min} to ${row.max})` : ` (at least ${row.min})`;
  const limits = row.min !== undefined ? range : "";
  return html`<div class="ed-field">
<label for="${own}">${row.label}${row.required ? "" : html` <span class="ed-optional">(optional)</span>`}</label>
${control}
<span class="hint" id="${own}-help">${row.help}${limits}</span>
<span class="field-error" id="${own}-error" hidden></span>
</div>`;
}

/**
 * The fields of one object, in the format's order; lists, maps and objects are drawn by
 * their owners. @param {() => string} id @param {any} draft
 * @param {import("./editor-state.js").FormatName} kind @param {Path} path @param {any} item
 */
function plainFields(id, draft, kind, path, item) {
  return FORMAT[kind]
    .filter((row) => !["list", "map", "object"].includes(row.kind) && !(kind === "store" && KEPT_AS_IS.has(row.name)))
    .map((row) => field(id, [...path, row.name], row, item?.[row.name], optionsFor(row, draft)));
}

/** A choice field's options: fixed, or the store's tenants or records. @param {FormatRow} row @param {any} draft */
function optionsFor(row, draft) {
  if (row.kind !== "choice") return null;
  /** @type {{value: string, label: string}[]} */
  let options;
  if (row.choicesFrom === "tenants") {
    options = listOf(draft.tenants).map((t) => ({ value: textOf(t?.id), label: `${textOf(t?.label)} (${textOf(t?.id)})` }));
  } else if (row.choicesFrom === "records") {
    options = listOf(draft.records).map((r) => ({ value: textOf(r?.id), label: textOf(r?.id) }));
  } else {
    // A part is offered with what it is (GUIDE_PARTS), other choices as they are written.
    const parts = /** @type {Record<string, string>} */ (GUIDE_PARTS);
    options = (row.choices ?? []).map((c) => ({ value: c, label: row.name === "part" ? `${c}: ${parts[c] ?? ""}` : c }));
  }
  return row.required ? options : [{ value: "", label: "(none)" }, ...options];
}

/**
 * Move up, move down and remove buttons for item index of the list at path; each button's
 * name begins with its visible words and goes on with the item's, as a screen reader lists it.
 * @param {Path} list @param {number} index @param {number} count @param {string} name
 */
function itemButtons(list, index, count, name) {
  const at = JSON.stringify(list);
  return html`<div class="ed-item-actions">
<button type="button" class="small" data-action="move" data-list="${at}" data-index="${index}" data-step="-1"
 aria-label="Move up ${name}"${index === 0 ? html` disabled` : ""}>Move up</button>
<button type="button" class="small" data-action="move" data-list="${at}" data-index="${index}" data-step="1"
 aria-label="Move down ${name}"${index === count - 1 ? html` disabled` : ""}>Move down</button>
<button type="button" class="small" data-action="remove" data-list="${at}" data-index="${index}" aria-label="Remove ${name}">Remove</button>
</div>`;
}

/**
 * A list of objects: each in a fieldset of its own with its buttons, then "Add".
 * @param {string} title @param {Path} path @param {any[]} items @param {string} kind
 * @param {(item: any, index: number) => string} legend @param {(item: any, index: number) => Markup} body
 * @param {string} addLabel @param {Markup | string} [extra]
 */
function list(title, path, items, kind, legend, body, addLabel, extra = "") {
  const at = pathText(path);
  return html`<fieldset class="ed-list" data-list-path="${at}">
<legend>${title} (${items.length})</legend>
${items.map(
  (item, index) => html`<fieldset class="ed-item" data-item-path="${pathText([...path, index])}">
<legend>${legend(item, index)}</legend>
${body(item, index)}
${itemButtons(path, index, items.length, legend(item, index))}
</fieldset>`,
)}
<button type="button" data-action="add" data-list="${JSON.stringify(path)}" data-kind="${kind}">${addLabel}</button>
${extra}
</fieldset>`;
}

/**
 * A question's supporting records, one field per tenant of the draft.
 * @param {() => string} id @param {any} draft @param {number} index @param {any} question
 */
function supporting(id, draft, index, question) {
  const row = FORMAT.question.find((r) => r.name === "supporting");
  const map = question?.supporting && typeof question.supporting === "object" ? question.supporting : {};
  const tenants = listOf(draft.tenants).map((t) => textOf(t?.id));
  // A tenant the map names that the draft no longer has stays shown, for its problem.
  const named = [...tenants, ...Object.keys(map).filter((k) => !tenants.includes(k))];
  return html`<fieldset class="ed-map"><legend>${row?.label ?? "Supporting records"}</legend>
<p class="hint">${row?.help ?? ""}: their IDs, separated by commas.</p>
${named.map((tenant) => {
  // Every tenant's list is as optional as the others: none is marked so.
  const row = { kind: "text", label: `For ${tenant}`, help: `records of ${tenant} that answer it`, required: true };
  return field(id, ["questions", index, "supporting", tenant], row, map[tenant], null, "ids");
})}
</fieldset>`;
}

/**
 * A step's settings: one control per policy field of the engine's field table, empty
 * when the step leaves that field at its default. @param {() => string} id @param {any} draft @param {Path} path @param {any} policy
 */
function stepPolicy(id, draft, path, policy) {
  const fields = policyFields({
    questions: listOf(draft.questions).map((q) => ({ id: textOf(q?.id), text: textOf(q?.text) })),
    tenants: listOf(draft.tenants).map((t) => ({ id: textOf(t?.id), label: textOf(t?.label) })),
  });
  const set = policy && typeof policy === "object" ? policy : {};
  const row = FORMAT.step.find((r) => r.name === "policy");
  const count = Object.keys(set).length;
  return html`<details class="ed-policy" data-details-path="${pathText(path)}"><summary>${row?.label ?? "Settings"}: ${count} set</summary>
<p class="hint">${row?.help ?? ""}.</p>
${fields.map((f) => {
  const yesNo = [{ value: "true", label: "yes" }, { value: "false", label: "no" }];
  const options = f.kind === "bool" ? yesNo : f.kind === "choice" ? (f.options ?? []).filter((o) => o.value !== "") : null;
  // Every setting is as optional as the others (empty: its default): none is marked so.
  const labelled = { kind: f.kind, label: f.label, help: `default: ${textOf(f.default) || "(empty)"}`, required: true, min: f.min, max: f.max };
  return field(id, [...path, f.name], labelled, set[f.name], options ? [{ value: "", label: "(default)" }, ...options] : null, `policy:${f.name}`);
})}
</details>`;
}

/** @param {() => string} id @param {any} draft @param {number} g @param {number} s @param {any} step */
function stepBody(id, draft, g, s, step) {
  const path = ["guides", g, "steps", s];
  const showsRow = FORMAT.step.find((r) => r.name === "shows");
  return html`${plainFields(id, draft, "step", path, step)}
${stepPolicy(id, draft, [...path, "policy"], step?.policy)}
<fieldset class="ed-shows"><legend>${showsRow?.label ?? "Shows"} <span class="ed-optional">(optional)</span></legend>
<p class="hint">${showsRow?.help ?? ""}.</p>
${plainFields(id, draft, "shows", [...path, "shows"], step?.shows)}
</fieldset>`;
}

/** @param {() => string} id @param {any} draft @param {number} g @param {any} guide */
function guideBody(id, draft, g, guide) {
  const steps = listOf(guide?.steps);
  const capture = html`<button type="button" class="ed-capture" data-action="capture" data-guide="${g}">
Add this configuration as a step</button>
<p class="hint">Takes the workbench's settings now in force as the step's settings, and the record and part in view
as what it shows; then write its title and Look for.</p>`;
  return html`${plainFields(id, draft, "guide", ["guides", g], guide)}
${list("Steps", ["guides", g, "steps"], steps, "step", (_, s) => `Step ${s + 1}`,
  (step, s) => stepBody(id, draft, g, s, step), "Add an empty step", capture)}`;
}

/**
 * The whole form for a draft.
 * @param {any} draft
 * @returns {Markup}
 */
export function editorForm(draft) {
  const id = counter();
  const tenants = listOf(draft.tenants);
  const records = listOf(draft.records);
  const questions = listOf(draft.questions);
  const guides = listOf(draft.guides);
  const named = (/** @type {any} */ item, /** @type {number} */ i, /** @type {string} */ kind, /** @type {string} */ label) =>
    `${kind} ${i + 1}: ${textOf(item?.[label]) || textOf(item?.id)}`;
  const tenantList = list("Tenants", ["tenants"], tenants, "tenant", (t, i) => named(t, i, "Tenant", "label"),
    (t, i) => html`${plainFields(id, draft, "tenant", ["tenants", i], t)}`, "Add a tenant");
  const recordList = list("Records", ["records"], records, "record", (r, i) => `Record ${textOf(r?.id) || i + 1}`,
    (r, i) => html`${plainFields(id, draft, "record", ["records", i], r)}`, "Add a record");
  const questionList = list("Questions", ["questions"], questions, "question", (_, i) => `Question ${i + 1}`,
    (q, i) => html`${plainFields(id, draft, "question", ["questions", i], q)}${supporting(id, draft, i, q)}`, "Add a question");
  const guideList = list("Guides", ["guides"], guides, "guide", (gd, i) => named(gd, i, "Guide", "title"),
    (gd, i) => guideBody(id, draft, i, gd), "Add a guide");
  return html`<fieldset class="ed-store" data-item-path="store"><legend>About this store</legend>
${plainFields(id, draft, "store", [], draft)}
</fieldset>
${tenantList}${recordList}${questionList}${guideList}`;
}

// The policy and its URL form, read and written through the field table.
//
// The policy state and its URL form, through the engine's field table (tables.js,
// generated from engine/fields.py): the rules mirror engine/parse.py's parse_policy,
// and a bad value in a link falls back to the default with a notice naming it.

import { FIELD_TABLE } from "./tables.js";

/** @typedef {import("./tables.js").Policy} Policy */

/**
 * @typedef {object} FieldRow  one row of engine/fields.py's table, as field_rows() writes it
 * @property {string} name
 * @property {"choice" | "bool" | "number" | "int" | "text"} kind
 * @property {string} label  the control's accessible name
 * @property {string} help
 * @property {string} unit
 * @property {"select" | "checkbox" | "number" | "range" | "text"} control
 * @property {string | number | boolean | null} default  null: the store's first entry
 * @property {number} [min]
 * @property {number} [max]
 * @property {string} [step]
 * @property {string[][]} [choices]  fixed [value, label] pairs
 * @property {"questions" | "tenants"} [choicesFrom]  the store list that supplies the choices
 * @property {number} [maxLength]  a text field's limit, in characters (code points)
 * @property {string} [replaces]  the choice field a non-empty text is in force instead of
 * @property {string} [option]  the label of the option that choice control gets for the text
 * @property {[string, string | string[]]} [shownWith]  [field, value or values]: the field matters only while that field has that value (one of them)
 * @property {{label: string, note: string, values: Record<string, number>}[]} [presets]  buttons that set several fields at once
 */

/**
 * @typedef {object} Field  a row made concrete for one store
 * @property {keyof Policy} name
 * @property {FieldRow["kind"]} kind
 * @property {string} label
 * @property {FieldRow["control"]} control
 * @property {string[]} [choices]  allowed values, in table order
 * @property {{value: string, label: string}[]} [options]  as the control lists them
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [maxLength]
 * @property {keyof Policy} [replaces]
 * @property {[keyof Policy, string | string[]]} [shownWith]  its control is shown only while that field has that value (one of them)
 * @property {string | number | boolean} default
 */

/** The value of the option a choice control offers for a text field that replaces it. */
export const OWN_OPTION = "";

/**
 * The policy fields for a given store: questions and tenants come from the store.
 * @param {{questions: {id: string, text: string}[], tenants: {id: string, label: string}[]}} store
 * @param {readonly FieldRow[]} [table]  the boot JSON's copy, or tables.js's
 * @returns {Field[]}
 */
export function policyFields(store, table = FIELD_TABLE) {
  const lists = {
    questions: store.questions.map((q) => ({ value: q.id, label: q.text })),
    tenants: store.tenants.map((t) => ({ value: t.id, label: t.label })),
  };
  const texts = table.filter((row) => row.replaces);
  return table.map((row) => {
    /** @type {Field} */
    const field = {
      name: /** @type {keyof Policy} */ (row.name),
      kind: row.kind,
      label: row.label,
      control: row.control,
      default: /** @type {string | number | boolean} */ (row.default),
    };
    if (row.kind === "choice") {
      const listed = row.choicesFrom ? lists[row.choicesFrom] : (row.choices ?? []).map(([value, label]) => ({ value, label }));
      field.choices = listed.map((o) => o.value);
      // As in the engine, a store's first question and tenant are its defaults; a
      // control lists its default first.
      if (row.default === null) field.default = field.choices[0];
      field.options = [...listed.filter((o) => o.value === field.default), ...listed.filter((o) => o.value !== field.default)];
      // After the store's own choices: the text field in force instead of this one.
      for (const text of texts.filter((t) => t.replaces === row.name)) field.options.push({ value: OWN_OPTION, label: text.option ?? text.label });
    }
    if (row.min !== undefined) Object.assign(field, { min: row.min, max: row.max });
    if (row.kind === "text") Object.assign(field, { maxLength: row.maxLength, replaces: row.replaces });
    if (row.shownWith) field.shownWith = /** @type {[keyof Policy, string | string[]]} */ (row.shownWith);
    return field;
  });
}

/** @param {Field[]} fields @returns {Policy} */
export function defaultPolicy(fields) {
  return /** @type {Policy} */ (Object.fromEntries(fields.map((f) => [f.name, f.default])));
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;
// Unicode category Cc (C0 controls, DEL, C1 controls), cleaned as engine/parse.py cleans
// it: those that separate text (tab, line and page breaks, the information separators,
// next line) read as a space, the rest are removed.
const CONTROL_SPACES = /[\t\n\v\f\r\u001c-\u001f\u0085]/g;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// Unicode's space, line and paragraph separators, spelled out as engine/parse.py does.
const BLANK = /^[ \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
// Half of a UTF-16 pair on its own, which the engine refuses as not being text.
const LONE_SURROGATE = /[\ud800-\udfff]/u;
// The engine's rule for a text that cleaning leaves without a word (engine/parse.py's NO_WORDS).
export const NO_WORDS = "has no words, only spaces or control characters (leave it empty to ask the chosen question)";

/** A text field's value as the engine uses it: tabs and line breaks read as spaces, other control characters removed. @param {string} text */
export function cleanText(text) {
  return text.replace(CONTROL_SPACES, " ").replace(CONTROL_CHARACTERS, "");
}

/**
 * Parse one text value for a field; returns the value or a rule the text broke.
 * @param {Field} field
 * @param {string} text
 * @returns {{ok: true, value: string | number | boolean} | {ok: false, rule: string}}
 */
export function parseValue(field, text) {
  switch (field.kind) {
    case "choice":
      return field.choices?.includes(text)
        ? { ok: true, value: text }
        : { ok: false, rule: `must be one of ${field.choices?.join(", ")}` };
    case "bool":
      if (text === "true") return { ok: true, value: true };
      if (text === "false") return { ok: true, value: false };
      return { ok: false, rule: "must be true or false" };
    case "text": {
      if (LONE_SURROGATE.test(text)) return { ok: false, rule: "must be valid Unicode text" };
      const value = cleanText(text);
      // Characters as Python counts them (code points), not UTF-16 units.
      if ([...value].length > /** @type {number} */ (field.maxLength)) return { ok: false, rule: `must be at most ${field.maxLength} characters` };
      if (text !== "" && BLANK.test(value)) return { ok: false, rule: NO_WORDS };
      return { ok: true, value };
    }
    default: {
      const whole = field.kind === "int";
      const rule = `must be ${whole ? "a whole number" : "a number"} from ${field.min} to ${field.max}`;
      if (!NUMBER.test(text.trim())) return { ok: false, rule };
      const value = Number(text);
      if ((whole && !Number.isInteger(value)) || value < /** @type {number} */ (field.min) || value > /** @type {number} */ (field.max)) {
        return { ok: false, rule };
      }
      return { ok: true, value };
    }
  }
}

/** A value as a notice quotes it: control characters written as escapes, so none is invisible. @param {string} text */
function shorten(text) {
  const shown = text.length > 40 ? `${text.slice(0, 37)}…` : text;
  return shown.replace(CONTROL_CHARACTERS, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** @type {Record<string, string>} */
const ESCAPES = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** What a notice says a field falls back to. @param {Field} field */
function fallback(field) {
  return field.default === "" ? "the default (empty)" : `the default, ${field.default}`;
}

/**
 * A parameter's values as written in the query string, still percent-encoded.
 * URLSearchParams turns a malformed escape into U+FFFD silently; a text field needs to
 * tell that apart from what was meant.
 * @param {string} search @param {string} name
 */
function rawValues(search, name) {
  const values = [];
  for (const pair of search.replace(/^\?/, "").split("&")) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at);
    try {
      if (decodeURIComponent(key.replace(/\+/g, " ")) === name) values.push(at < 0 ? "" : pair.slice(at + 1));
    } catch {
      // A malformed key is no known parameter; readQuery names it as unknown.
    }
  }
  return values;
}

/** @param {string} raw */
function wellEncoded(raw) {
  try {
    decodeURIComponent(raw.replace(/\+/g, " "));
    return true;
  } catch {
    return false;
  }
}

/**
 * Read a policy from a query string. Unknown, repeated, malformed or out-of-range
 * values fall back to the default, each with a notice that names the parameter.
 * @param {string} search  location.search
 * @param {Field[]} fields
 * @param {string[]} otherParams  parameters owned by other features (embed, …)
 * @returns {{policy: Policy, notices: string[]}}
 */
export function readQuery(search, fields, otherParams = []) {
  const params = new URLSearchParams(search);
  const policy = defaultPolicy(fields);
  /** @type {string[]} */
  const notices = [];
  for (const field of fields) {
    const values = params.getAll(field.name);
    if (values.length === 0) continue;
    if (values.length > 1) {
      notices.push(`The link gives ${field.name} ${values.length} times; using ${fallback(field)}.`);
      continue;
    }
    if (field.kind === "text" && !rawValues(search, field.name).every(wellEncoded)) {
      notices.push(`The link's ${field.name} is not validly encoded text (a broken %-escape); using ${fallback(field)}.`);
      continue;
    }
    const parsed = parseValue(field, values[0]);
    if (parsed.ok) {
      /** @type {Record<string, unknown>} */ (policy)[field.name] = parsed.value;
    } else {
      notices.push(`The link's ${field.name}=“${shorten(values[0])}” ${parsed.rule}; using ${fallback(field)}.`);
    }
  }
  const known = new Set([...fields.map((f) => f.name), ...otherParams]);
  const unknown = [...new Set(params.keys())].filter((k) => !known.has(k));
  for (const name of unknown) notices.push(`The link's parameter “${shorten(name)}” is not one this page knows; it was ignored.`);
  return { policy, notices };
}

/**
 * The query string for a policy, fields in table order, plus other parameters. An empty
 * text field is left out: it is the default, and links made before it existed stay the same.
 * @param {Policy} policy
 * @param {Field[]} fields
 * @param {Record<string, string>} [extra]
 */
export function writeQuery(policy, fields, extra = {}) {
  const params = new URLSearchParams();
  for (const field of fields) {
    if (field.kind !== "text" || policy[field.name] !== "") params.set(field.name, String(policy[field.name]));
  }
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return `?${params.toString()}`;
}

/** @param {Policy} a @param {Policy} b @param {Field[]} fields */
export function samePolicy(a, b, fields) {
  return fields.every((f) => a[f.name] === b[f.name]);
}

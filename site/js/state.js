// The policy state and its URL form, through the engine's field table (tables.js,
// generated from engine/fields.py): the rules mirror engine/model.py's parse_policy,
// and a bad value in a link falls back to the default with a notice naming it.

import { FIELD_TABLE } from "./tables.js";

/** @typedef {import("./tables.js").Policy} Policy */

/**
 * @typedef {object} FieldRow  one row of engine/fields.py's table, as field_rows() writes it
 * @property {string} name
 * @property {"choice" | "bool" | "number" | "int"} kind
 * @property {string} label  the control's accessible name
 * @property {string} help
 * @property {string} unit
 * @property {"select" | "checkbox" | "number" | "range"} control
 * @property {string | number | boolean | null} default  null: the store's first entry
 * @property {number} [min]
 * @property {number} [max]
 * @property {string} [step]
 * @property {string[][]} [choices]  fixed [value, label] pairs
 * @property {"questions" | "tenants"} [choicesFrom]  the store list that supplies the choices
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
 * @property {string | number | boolean} default
 */

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
    }
    if (row.min !== undefined) Object.assign(field, { min: row.min, max: row.max });
    return field;
  });
}

/** @param {Field[]} fields @returns {Policy} */
export function defaultPolicy(fields) {
  return /** @type {Policy} */ (Object.fromEntries(fields.map((f) => [f.name, f.default])));
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;

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

/** @param {string} text */
function shorten(text) {
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
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
      notices.push(`The link gives ${field.name} ${values.length} times; using the default, ${field.default}.`);
      continue;
    }
    const parsed = parseValue(field, values[0]);
    if (parsed.ok) {
      /** @type {Record<string, unknown>} */ (policy)[field.name] = parsed.value;
    } else {
      notices.push(`The link's ${field.name}=“${shorten(values[0])}” ${parsed.rule}; using the default, ${field.default}.`);
    }
  }
  const known = new Set([...fields.map((f) => f.name), ...otherParams]);
  const unknown = [...new Set(params.keys())].filter((k) => !known.has(k));
  for (const name of unknown) notices.push(`The link's parameter “${shorten(name)}” is not one this page knows; it was ignored.`);
  return { policy, notices };
}

/**
 * The query string for a policy, fields in table order, plus other parameters.
 * @param {Policy} policy
 * @param {Field[]} fields
 * @param {Record<string, string>} [extra]
 */
export function writeQuery(policy, fields, extra = {}) {
  const params = new URLSearchParams();
  for (const field of fields) params.set(field.name, String(policy[field.name]));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return `?${params.toString()}`;
}

/** @param {Policy} a @param {Policy} b @param {Field[]} fields */
export function samePolicy(a, b, fields) {
  return fields.every((f) => a[f.name] === b[f.name]);
}

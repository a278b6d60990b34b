// The policy state and its URL form, through one table of fields. The rules mirror
// engine/model.py's parse_policy (the limits come from the build, so they cannot
// drift); a bad value in a link falls back to the default with a notice naming it.

/** @typedef {import("./types.js").Policy} Policy */

/**
 * @typedef {object} Field
 * @property {keyof Policy} name
 * @property {"choice" | "bool" | "number" | "int"} kind
 * @property {string[]} [choices]
 * @property {number} [min]
 * @property {number} [max]
 * @property {string | number | boolean} default
 */

/**
 * @typedef {object} Limits  written by build.py from engine/model.py
 * @property {string[]} stores
 * @property {number} max_age_hours
 * @property {number} budget_words
 * @property {[number, number]} max_records
 * @property {Policy} defaults
 */

/**
 * The nine fields for a given store: questions and tenants come from the store.
 * @param {{questions: {id: string}[], tenants: {id: string}[]}} store
 * @param {Limits} limits
 * @returns {Field[]}
 */
export function policyFields(store, limits) {
  const questions = store.questions.map((q) => q.id);
  const tenants = store.tenants.map((t) => t.id);
  const d = limits.defaults;
  return [
    // As in the engine: a store's first question and tenant are its defaults.
    { name: "question", kind: "choice", choices: questions, default: questions[0] },
    { name: "tenant", kind: "choice", choices: tenants, default: tenants[0] },
    { name: "store", kind: "choice", choices: limits.stores, default: d.store },
    { name: "previous_sessions", kind: "bool", default: d.previous_sessions },
    { name: "max_age_hours", kind: "number", min: 0, max: limits.max_age_hours, default: d.max_age_hours },
    { name: "latest_per_key", kind: "bool", default: d.latest_per_key },
    { name: "recency_weight", kind: "number", min: 0, max: 1, default: d.recency_weight },
    { name: "budget_words", kind: "int", min: 0, max: limits.budget_words, default: d.budget_words },
    { name: "max_records", kind: "int", min: limits.max_records[0], max: limits.max_records[1], default: d.max_records },
  ];
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

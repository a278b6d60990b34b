// A draft as a store file: the text Export writes, and the download itself.
//
// The text is the fixtures' own layout (two-space JSON, each object's keys in the order
// of the store format's table, a final newline), so a fixture store comes out byte for
// byte as it went in; a store opened from a file and left unchanged comes out as that
// file's own text. Importing goes through the page's one store opening (the engine's
// parser, its messages), never through a parser of its own here.

import { saveFile } from "../browser/save-file.js";
import { STORE_FORMAT } from "../core/tables.js";

/** @typedef {keyof typeof STORE_FORMAT} FormatKind */

// Which object of the format each list or object field holds: its keys follow that
// object's rows. A step's policy and a question's supporting map keep the author's
// order, as the fixtures do (their policies list fields in differing orders).
/** @type {Partial<Record<FormatKind, Record<string, FormatKind>>>} */
const CHILDREN = {
  store: { tenants: "tenant", questions: "question", records: "record", guides: "guide" },
  guide: { steps: "step" },
  step: { shows: "shows" },
};

/**
 * A copy of value with the keys of each format object in the format's order; keys the
 * format does not name keep their place after those (the parser reports them).
 * @param {any} value @param {FormatKind} kind @returns {any}
 */
function ordered(value, kind) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const names = STORE_FORMAT[kind].map((row) => row.name);
  const keys = [...names.filter((name) => Object.hasOwn(value, name)), ...Object.keys(value).filter((key) => !names.includes(key))];
  const children = CHILDREN[kind] ?? {};
  /** @type {Record<string, any>} */
  const out = {};
  for (const key of keys) {
    const child = Object.hasOwn(children, key) ? children[key] : undefined;
    if (child && Array.isArray(value[key])) out[key] = value[key].map((/** @type {any} */ item) => ordered(item, child));
    else if (child) out[key] = ordered(value[key], child);
    else out[key] = value[key];
  }
  return out;
}

/**
 * The store as a store file's text: the layout fixtures/*.json are written in.
 * @param {any} store @returns {string}
 */
export function storeText(store) {
  return `${JSON.stringify(ordered(store, "store"), null, 2)}\n`;
}

/**
 * Whether two JSON values are equal (object keys in any order).
 * @param {any} a @param {any} b @returns {boolean}
 */
export function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((item, i) => sameJSON(item, b[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJSON(a[key], b[key]));
}

/**
 * The text Export writes: the file the store was opened from while nothing has
 * changed (its own layout, whatever it was), the store format's layout otherwise.
 * @param {any} store
 * @param {string | null} [original]  the text the store was opened from, if any
 * @returns {string}
 */
export function exportText(store, original = null) {
  if (original !== null) {
    try {
      if (sameJSON(JSON.parse(original), store)) return original;
    } catch {
      // not JSON: the store is written afresh
    }
  }
  return storeText(store);
}

/**
 * A file name for the store: its title in lower case, words joined by hyphens.
 * @param {any} store @returns {string}
 */
export function exportName(store) {
  const title = typeof store?.title === "string" ? store.title : "";
  const words = title.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").match(/[a-z0-9]+/g) ?? [];
  return `${words.slice(0, 8).join("-") || "store"}.json`;
}

/**
 * Download text as a file: works without storage, network or Python, so Export works
 * whenever the draft is in the page.
 * @param {string} text @param {string} name
 */
export function download(text, name) {
  saveFile(name, text, "application/json");
}

/**
 * Export the store as a file named from its title.
 * @param {any} store @param {string | null} [original] @returns {{name: string, text: string}}
 */
export function exportStore(store, original = null) {
  const text = exportText(store, original);
  const name = exportName(store);
  download(text, name);
  return { name, text };
}


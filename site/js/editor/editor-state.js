// The store editor's own state: the draft and its undo and redo history, changed only by
// the pure functions here, so every edit is one step that undo takes back.
//
// A draft is a store as its JSON holds it. A field is named by its path as the engine's
// parser names a problem (`records[3].age_hours`), so a problem finds its field.

import { FIELD_TABLE, STORE_FORMAT } from "../core/tables.js";

/**
 * @typedef {object} FormatRow  one row of engine/store_format.py's table, as format_rows() writes it
 * @property {string} name
 * @property {"text" | "choice" | "hours" | "key" | "int" | "list" | "map" | "object" | "note"} kind
 * @property {string} label
 * @property {string} help
 * @property {boolean} required
 * @property {unknown} [default]
 * @property {string[]} [choices]
 * @property {"tenants" | "records"} [choicesFrom]
 * @property {number} [min]
 * @property {number} [max]
 */

/** @typedef {"store" | "tenant" | "record" | "question" | "guide" | "step" | "shows"} FormatName */
/** @typedef {(string | number)[]} Path */

/** The format's rows by object, typed. @type {Readonly<Record<FormatName, readonly FormatRow[]>>} */
export const FORMAT = /** @type {any} */ (STORE_FORMAT);

/**
 * @typedef {object} History
 * @property {any[]} past     drafts before, the latest last
 * @property {any} present    the draft
 * @property {any[]} future   drafts undone, the next redo last
 * @property {string | null} typing  the field whose keystrokes are one edit until another field or a commit
 */

/** @param {any} draft @returns {History} */
export function startHistory(draft) {
  return { past: [], present: draft, future: [], typing: null };
}

/** A path as the engine's parser writes it: records[3].age_hours. @param {Path} path */
export function pathText(path) {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");
}

/** The value at a path, undefined when there is none. @param {any} value @param {Path} path @returns {any} */
export function valueAt(value, path) {
  return path.reduce((at, key) => (at === null || at === undefined ? undefined : at[key]), value);
}

/**
 * A copy of value with the value at path replaced (removed when undefined); what it shares
 * with the original is never changed, so every draft in the history stays as it was.
 * @param {any} value @param {Path} path @param {any} next @returns {any}
 */
export function setIn(value, path, next) {
  if (path.length === 0) return next;
  const [key, ...rest] = path;
  const inner = setIn(value?.[key], rest, next);
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[/** @type {number} */ (key)] = inner;
    return copy;
  }
  const copy = { ...(value ?? {}) };
  if (inner === undefined) delete copy[key];
  else copy[key] = inner;
  return copy;
}

/** @param {History} history @param {any} draft @param {string | null} typing @returns {History} */
function commitDraft(history, draft, typing) {
  return { past: [...history.past, history.present], present: draft, future: [], typing };
}

/**
 * One field's new value. Keystrokes in one field are one edit until another field is
 * edited or the field is committed (left), so undo takes back a word, not a letter.
 * @param {History} history @param {Path} path @param {any} value @returns {History}
 */
export function edit(history, path, value) {
  const draft = setIn(history.present, path, value);
  const key = pathText(path);
  if (history.typing === key) return { ...history, present: draft, future: [] };
  return commitDraft(history, draft, key);
}

/** The field was left: the next keystroke starts a new edit. @param {History} history @returns {History} */
export function commitTyping(history) {
  return history.typing === null ? history : { ...history, typing: null };
}

/** Append an item to the list at path. @param {History} history @param {Path} path @param {any} item @returns {History} */
export function addItem(history, path, item) {
  return commitDraft(history, setIn(history.present, path, [...(valueAt(history.present, path) ?? []), item]), null);
}

/** Remove the item at index of the list at path. @param {History} history @param {Path} path @param {number} index @returns {History} */
export function removeItem(history, path, index) {
  const list = /** @type {any[]} */ (valueAt(history.present, path) ?? []);
  return commitDraft(history, setIn(history.present, path, list.filter((_, i) => i !== index)), null);
}

/**
 * Move the item at index of the list at path by step (-1 up, 1 down).
 * @param {History} history @param {Path} path @param {number} index @param {number} step @returns {History}
 */
export function moveItem(history, path, index, step) {
  const list = [...(valueAt(history.present, path) ?? [])];
  const to = index + step;
  if (to < 0 || to >= list.length) return history;
  [list[index], list[to]] = [list[to], list[index]];
  return commitDraft(history, setIn(history.present, path, list), null);
}

/** Replace the whole draft (a store opened, a new store) as one undoable edit. @param {History} history @param {any} draft @returns {History} */
export function replaceDraft(history, draft) {
  return commitDraft(history, draft, null);
}

/** @param {History} history @returns {History} */
export function undo(history) {
  if (!history.past.length) return history;
  return { past: history.past.slice(0, -1), present: history.past[history.past.length - 1], future: [...history.future, history.present], typing: null };
}

/** @param {History} history @returns {History} */
export function redo(history) {
  if (!history.future.length) return history;
  return { past: [...history.past, history.present], present: history.future[history.future.length - 1], future: history.future.slice(0, -1), typing: null };
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * What a form field's text puts in the draft. The engine, not this, decides what is valid:
 * a number field's text that is not a number goes in as text, and the engine's own problem
 * says so at the field. An optional field left empty is left out, a fact key left empty is
 * null (no key), and a record list is written as IDs separated by commas.
 * @param {FormatRow["kind"] | "ids"} kind @param {string} text @param {boolean} required
 * @returns {any}
 */
export function valueOf(kind, text, required) {
  const trimmed = text.trim();
  if (kind === "ids") return trimmed ? trimmed.split(",").map((id) => id.trim()).filter(Boolean) : undefined;
  if (kind === "key") return trimmed === "" ? null : text;
  if (!required && trimmed === "") return undefined;
  if (kind === "int" || kind === "hours") return NUMBER.test(trimmed) ? Number(trimmed) : text;
  return text;
}

/**
 * A step policy field's value from its control's text: left out when empty (the field then
 * takes its default), otherwise as the engine's field table types it.
 * @param {string} name @param {string} text @returns {any}
 */
export function policyValueOf(name, text) {
  const row = FIELD_TABLE.find((r) => r.name === name);
  if (!row || text === "") return undefined;
  if (row.kind === "bool") return text === "true";
  if (row.kind === "number" || row.kind === "int") return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
  return text;
}

/** A form field's text for a value in the draft. @param {any} value */
export function textOf(value) {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

/** The first of prefix1, prefix2… that no item of list has as its id. @param {any[]} list @param {string} prefix */
function freshId(list, prefix) {
  const ids = new Set((list ?? []).map((item) => item?.id));
  let n = (list ?? []).length + 1;
  while (ids.has(`${prefix}${n}`)) n += 1;
  return `${prefix}${n}`;
}

/**
 * A new item of the list at a kind of object, its required fields set to the format's
 * starting values (the first choice, the least number, empty text for the instructor to
 * write) and a fresh id. @param {"tenant" | "record" | "question" | "guide" | "step"} kind @param {any} draft
 */
export function newItem(kind, draft) {
  /** @type {Record<string, any>} */
  const item = {};
  for (const row of FORMAT[kind]) {
    if (!row.required) continue;
    if (row.kind === "choice") {
      const choices = row.choicesFrom ? (draft[row.choicesFrom] ?? []).map((/** @type {any} */ c) => c.id) : (row.choices ?? []);
      item[row.name] = choices[0] ?? "";
    } else if (row.kind === "hours" || row.kind === "int") item[row.name] = row.min ?? 0;
    else if (row.kind === "key") item[row.name] = null;
    else if (row.kind === "list") item[row.name] = [];
    else if (row.kind === "map" || row.kind === "object") item[row.name] = {};
    else item[row.name] = "";
  }
  const prefixes = {
    tenant: ["tenants", "tenant-"],
    record: ["records", "M"],
    question: ["questions", "question-"],
    guide: ["guides", "guide-"],
  };
  if (kind in prefixes) {
    const [list, prefix] = prefixes[/** @type {keyof typeof prefixes} */ (kind)];
    item.id = freshId(draft[list], prefix);
  }
  if (kind === "tenant") item.label = `Tenant ${item.id.slice("tenant-".length)}`;
  return item;
}

/**
 * A minimal valid store: one tenant, one record, one question it answers. The instructor
 * renames and rewrites from there.
 */
export function newStore() {
  return {
    schema: 1,
    title: "My course",
    description: "",
    tenants: [{ id: "tenant-1", label: "Tenant 1" }],
    questions: [{ id: "question-1", text: "Where is our production deployment?", supporting: { "tenant-1": ["M1"] } }],
    records: [
      {
        id: "M1",
        tenant: "tenant-1",
        store: "working",
        session: "current",
        age_hours: 1,
        key: null,
        text: "Our production deployment runs in the eu-west region.",
      },
    ],
  };
}

/**
 * A guided step from the workbench's settings: the question and tenant always (they name
 * the store's own), and every other policy field whose value is not its default; its
 * `shows` from what the learner has in view. Title and Look for are the instructor's to write.
 * @param {Record<string, unknown>} policy @param {Record<string, unknown>} defaults
 * @param {{stage: number, record: string, part: string}} shows
 */
export function capturedStep(policy, defaults, shows) {
  /** @type {Record<string, unknown>} */
  const set = {};
  for (const row of FIELD_TABLE) {
    const value = policy[row.name];
    if (row.name === "question" || row.name === "tenant" || value !== defaults[row.name]) set[row.name] = value;
  }
  return { title: "", policy: set, look_for: "", shows };
}

/**
 * The field a problem concerns: its own path when the form has a field there, else the
 * nearest enclosing path that has one (`questions[0].supporting.team-a[1]` is shown at
 * `questions[0].supporting.team-a`), else null.
 * @param {string} path @param {(path: string) => boolean} has
 */
export function fieldOfProblem(path, has) {
  let at = path;
  while (at) {
    if (has(at)) return at;
    const cut = Math.max(at.lastIndexOf("."), at.lastIndexOf("["));
    if (cut <= 0) return null;
    at = at.slice(0, cut);
  }
  return null;
}

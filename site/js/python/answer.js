// A slim answer made whole again: the full Result from the answer and the store the page holds.
//
// The full result the page renders (shapes.js Result), made from the engine's slim
// answer and what the page holds already: the store it opened, the open reply's word
// counts and recency, the outcome table's stages and the per-term parts (the answer's,
// or kept from an earlier one). Where each key of a record comes from, and their order,
// are engine/shapes.py's (the generated RECORD_SOURCES and recordAt), so the records come
// back key for key as CPython's engine.run_json writes them.

import { RECORD_SOURCES, SHAPE_KEYS, recordAt } from "../core/shapes.js";
import { OUTCOME_TABLE } from "../core/tables.js";

/**
 * @typedef {import("../core/shapes.js").Answer} Answer
 * @typedef {import("../core/shapes.js").Result} Result
 * @typedef {import("../core/shapes.js").RecordResult} RecordResult
 * @typedef {import("../core/shapes.js").ErrorResult} ErrorResult
 * @typedef {RecordResult["terms"][]} Parts  every record's per-term parts, in store order
 */

/**
 * @param {{records: any[], words: number[], importance: number[], recency: number[]}} store  the store's
 *   records as the page parsed them, and the engine's open reply for it
 * @param {Answer} answer
 * @param {Parts} terms  the answer's own, or those kept for its terms_key
 * @returns {Result | ErrorResult}
 */
export function fullResult(store, answer, terms) {
  const { records } = store;
  const n = records.length;
  for (const column of columnsOf(store, answer, terms)) {
    if (column.length !== n) return mismatch(`${column.length} values answered for a store of ${n} records`);
  }
  /** @type {RecordResult[]} */
  const rows = new Array(n);
  for (let i = 0; i < n; i++) {
    const record = records[i];
    if (answer.ids[i] !== record.id) return mismatch(`record ${i} is ${answer.ids[i]} in the answer, ${record.id} in the store`);
    rows[i] = recordAt(record, i, answer, store, OUTCOME_TABLE, terms);
  }
  /** @type {any} */
  const result = {};
  for (const key of SHAPE_KEYS.Head) result[key] = /** @type {any} */ (answer)[key];
  result.records = rows;
  for (const key of SHAPE_KEYS.Summary) result[key] = /** @type {any} */ (answer)[key];
  return result;
}

/**
 * Every column the records are read from, each of which must hold one value per record:
 * the answer's (one per scorer for a per-scorer key), the open reply's and the parts.
 * @param {{words: number[], recency: number[]}} store @param {Answer} answer @param {Parts} terms
 * @returns {unknown[][]}
 */
function columnsOf(store, answer, terms) {
  /** @type {unknown[][]} */
  const columns = [answer.ids, terms];
  for (const [key, source] of Object.entries(RECORD_SOURCES)) {
    const held = source === "answer" ? /** @type {any} */ (answer)[key] : source === "opened" ? /** @type {any} */ (store)[key] : null;
    if (Array.isArray(held)) columns.push(held);
    else if (held) columns.push(...Object.values(held));
  }
  return columns;
}

/** An answer computed from another store than the page's: a bug, reported as one. @param {string} detail */
function mismatch(detail) {
  return {
    error: { name: "InternalError", message: `the engine's answer does not match the open store (${detail})`, problems: [] },
  };
}

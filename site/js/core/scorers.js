// Which scorers read the static embedding's vectors, as engine/fields.py's EMBEDDING_SCORERS.
//
// A run under one of them waits for the vectors (python/engine-life.js), which the page
// loads when one is first asked for; the views show their similarity, fused sum and
// every scorer's rank for them (views/meaning.js). tests/test_fields.py holds this list
// to the engine's.

/** @typedef {import("./tables.js").Policy["scorer"]} Scorer */

/** @type {readonly Scorer[]} */
export const VECTOR_SCORERS = Object.freeze(["embedding", "hybrid"]);

/** Whether a scorer reads the vectors. @param {string} scorer */
export function readsVectors(scorer) {
  return /** @type {readonly string[]} */ (VECTOR_SCORERS).includes(scorer);
}

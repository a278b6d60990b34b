// A slim answer made whole again: the full Result from the answer and the store the page holds.
//
// The full result the page renders (shapes.js Result), made from the engine's slim
// answer and what the page holds already: the store it opened, the open reply's word
// counts and recency, the outcome table's stages and per-term parts kept from an
// earlier answer. The records come back in the key order of CPython's engine.run_json,
// so the two compare key for key.

import { OUTCOME_TABLE } from "../core/tables.js";

/**
 * @typedef {import("../core/shapes.js").Answer} Answer
 * @typedef {import("../core/shapes.js").Result} Result
 * @typedef {import("../core/shapes.js").RecordResult} RecordResult
 * @typedef {import("../core/shapes.js").ErrorResult} ErrorResult
 * @typedef {import("../core/shapes.js").TermPart} TermPart
 * @typedef {import("../core/shapes.js").BM25Part} BM25Part
 */

/**
 * @param {{records: any[], words: number[], recency: number[]}} store  the store's
 *   records as the page parsed them, and the engine's open reply for it
 * @param {Answer} answer
 * @param {NonNullable<Answer["terms"]>} terms  the answer's own, or those kept for its terms_key
 * @returns {Result | ErrorResult}
 */
export function fullResult(store, answer, terms) {
  const { records, words, recency } = store;
  const n = records.length;
  const ranks = Object.entries(answer.ranks);
  const columns = [answer.ids, answer.cosine, answer.bm25, answer.similarity, answer.rrf, answer.relevance, answer.score, answer.outcome, answer.reason, answer.rank, answer.other_rank, ...ranks.map(([, places]) => places), terms, words, recency];
  for (const column of columns) {
    if (column.length !== n) return mismatch(`${column.length} values answered for a store of ${n} records`);
  }
  /** @type {RecordResult[]} */
  const rows = new Array(n);
  for (let i = 0; i < n; i++) {
    const record = records[i];
    if (answer.ids[i] !== record.id) return mismatch(`record ${i} is ${answer.ids[i]} in the answer, ${record.id} in the store`);
    const outcome = answer.outcome[i];
    rows[i] = {
      id: record.id,
      tenant: record.tenant,
      store: record.store,
      session: record.session,
      age_hours: record.age_hours,
      key: record.key,
      text: record.text,
      words: words[i],
      cosine: answer.cosine[i],
      bm25: answer.bm25[i],
      similarity: answer.similarity[i],
      rrf: answer.rrf[i],
      relevance: answer.relevance[i],
      recency: recency[i],
      score: answer.score[i],
      outcome,
      stage: OUTCOME_TABLE[outcome].stage,
      reason: answer.reason[i],
      rank: answer.rank[i],
      other_rank: answer.other_rank[i],
      ranks: Object.fromEntries(ranks.map(([scorer, places]) => [scorer, places[i]])),
      terms: terms[i],
    };
  }
  return {
    engine_version: answer.engine_version,
    policy: answer.policy,
    question: answer.question,
    records: rows,
    ranked: answer.ranked,
    selected: answer.selected,
    words_used: answer.words_used,
    budget_words: answer.budget_words,
    counts: answer.counts,
    coverage: answer.coverage,
  };
}

/** An answer computed from another store than the page's: a bug, reported as one. @param {string} detail */
function mismatch(detail) {
  return {
    error: { name: "InternalError", message: `the engine's answer does not match the open store (${detail})`, problems: [] },
  };
}

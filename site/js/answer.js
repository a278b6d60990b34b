// The full result the page renders (types.js Result), made from the engine's slim
// answer and the store the page opened. The worker sends only what a policy decides,
// since the page already holds every record's own fields; this puts them back, in the
// key order of CPython's engine.run_json, so the two compare key for key.

/**
 * @typedef {import("./types.js").SlimAnswer} SlimAnswer
 * @typedef {import("./types.js").Result} Result
 * @typedef {import("./types.js").RecordResult} RecordResult
 * @typedef {import("./types.js").ErrorResult} ErrorResult
 */

/**
 * @param {{records: any[], words: number[]}} store  the store's records as the page
 *   parsed them, and each one's word count from the engine's open reply
 * @param {SlimAnswer | ErrorResult} answer
 * @returns {Result | ErrorResult}
 */
export function fullResult(store, answer) {
  if ("error" in answer) return answer;
  const { records, words } = store;
  if (answer.records.length !== records.length || words.length !== records.length) {
    return mismatch(`${answer.records.length} records answered for a store of ${records.length}`);
  }
  /** @type {RecordResult[]} */
  const rows = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const decided = answer.records[i];
    if (decided.id !== record.id) return mismatch(`record ${i} is ${decided.id} in the answer, ${record.id} in the store`);
    rows.push({
      id: record.id,
      tenant: record.tenant,
      store: record.store,
      session: record.session,
      age_hours: record.age_hours,
      key: record.key,
      text: record.text,
      words: words[i],
      cosine: decided.cosine,
      recency: decided.recency,
      score: decided.score,
      outcome: decided.outcome,
      stage: decided.stage,
      reason: decided.reason,
      rank: decided.rank,
      terms: decided.terms,
    });
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

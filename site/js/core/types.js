// JSON shapes that cross the worker boundary. Same as the TypedDicts in
// engine/model.py (TermPart, BM25Part, RecordResult, QuestionResult, Coverage, Counts,
// Result, ErrorResult): change both together.

/**
 * @typedef {object} TermPart
 * @property {string} term
 * @property {number} record_count
 * @property {number} query_count
 * @property {number} record_tf
 * @property {number} query_tf
 * @property {number} idf
 * @property {number} record_weight
 * @property {number} query_weight
 * @property {number} contribution
 */

/**
 * One shared term's share of a record's BM25.
 * @typedef {object} BM25Part
 * @property {string} term
 * @property {number} record_count
 * @property {number} query_count
 * @property {number} idf
 * @property {number} record_length  the record's terms after stop words (BM25's len)
 * @property {number} length_factor  1 − b + b · len / avg_len
 * @property {number} contribution
 */

/**
 * @typedef {object} RecordResult
 * @property {string} id
 * @property {string} tenant
 * @property {string} store
 * @property {string} session
 * @property {number} age_hours
 * @property {string | null} key
 * @property {string} text
 * @property {number} words
 * @property {number} cosine
 * @property {number} bm25
 * @property {number} relevance  the policy scorer's share of the score: the cosine, or BM25 / the best BM25
 * @property {number} recency
 * @property {number} score
 * @property {string} outcome
 * @property {number} stage  the stage (2, 3 or 4) that decides the outcome
 * @property {string} reason
 * @property {number | null} rank
 * @property {number | null} other_rank  its rank under the other scorer
 * @property {TermPart[] | BM25Part[]} terms  the policy scorer's parts
 */

/** @typedef {import("./tables.js").Policy} Policy  generated from engine/fields.py */

/**
 * @typedef {object} Result
 * @property {string} engine_version
 * @property {Policy} policy
 * @property {{id: string, text: string, own: boolean, terms: string[], dropped_terms: string[], stop_words: string[],
 *   best_bm25: number, average_length: number}} question
 *   the question in force: own is a learner's own text (its id is then ""); best_bm25 the
 *   highest BM25 of any record, average_length the store's mean record length in terms
 * @property {RecordResult[]} records
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {{stored: number, in_scope: number, ranked: number, selected: number}} counts
 * @property {{found: number, total: number, supporting: string[], found_ids: string[]}} coverage
 */

/**
 * @typedef {object} ErrorResult
 * @property {{name: string, message: string, problems: {path: string, message: string}[]}} error
 */

/**
 * The reply to opening a store (rw:open). Same as Opened in engine/model.py.
 * @typedef {object} OpenReply
 * @property {number} records  how many records the store holds
 * @property {number[]} words  each record's word count, in store order
 * @property {number[]} recency  each record's recency, in store order
 */

/**
 * The answer to a policy (rw:run), by columns in store order; answer.js merges it with
 * the open store into a Result. terms is null when the request said it holds the parts
 * of terms_key already. Same as Answer in engine/model.py.
 * @typedef {Omit<Result, "records"> & {
 *   ids: string[], cosine: number[], bm25: number[], relevance: number[], score: number[],
 *   outcome: string[], reason: string[], rank: (number | null)[], other_rank: (number | null)[],
 *   terms_key: string, terms: TermPart[][] | BM25Part[][] | null}} SlimAnswer
 */

export {};

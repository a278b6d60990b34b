// The JSON shapes that cross the worker boundary, as JSDoc types: engine/shapes.py's.
// Generated from it by `python build.py --write-tables`; do not edit.
// tests/test_shapes_js.py checks this copy.

/** @typedef {import("./tables.js").Policy} Policy  generated from engine/fields.py */

/**
 * One shared term's share of a cosine; the parts of a record add up to it.
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
 * One shared term's share of a record's BM25; the parts of a record add up to it.
 * @typedef {object} BM25Part
 * @property {string} term
 * @property {number} record_count
 * @property {number} query_count
 * @property {number} idf
 * @property {number} record_length
 * @property {number} length_factor
 * @property {number} contribution
 */

/**
 * The question in force and how it was read. `own` is a learner's own text (its id
 * is then empty); `terms` are its terms found in some record, `dropped_terms` those
 * found in none (they count for nothing), `stop_words` the stop words it contained.
 * `best_bm25` is the highest BM25 of any record for it: BM25 is blended as a share of it;
 * `average_length` is the store's mean record length in terms, BM25's `avg_len`.
 * @typedef {object} QuestionResult
 * @property {string} id
 * @property {string} text
 * @property {boolean} own
 * @property {string[]} terms
 * @property {string[]} dropped_terms
 * @property {string[]} stop_words
 * @property {number} best_bm25
 * @property {number} average_length
 */

/**
 * How many of the question's supporting records (for the active tenant) were selected.
 * @typedef {object} Coverage
 * @property {number} found
 * @property {number} total
 * @property {string[]} supporting
 * @property {string[]} found_ids
 */

/**
 * Records in the store, in scope (past the scope checks), ranked, and selected.
 * @typedef {object} Counts
 * @property {number} stored
 * @property {number} in_scope
 * @property {number} ranked
 * @property {number} selected
 */

/**
 * What opens both a result and an answer: the engine, the policy and the question.
 * @typedef {object} Head
 * @property {string} engine_version
 * @property {Policy} policy
 * @property {QuestionResult} question
 */

/**
 * What a result and an answer share after the records: the ranking, the tray and its
 * counts. `ranked` and `selected` are record ids, best first.
 * @typedef {object} Summary
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {Counts} counts
 * @property {Coverage} coverage
 */

/**
 * One record in a full result: its own fields, its scores, its outcome and why.
 *
 * `relevance` is the policy scorer's share of the score (the cosine, or BM25 over the
 * best BM25), `stage` the stage (2, 3 or 4) that decides the outcome, `rank` its
 * place under the policy's scorer and `other_rank` under the other one (None when out
 * of scope), `terms` the policy scorer's per-term parts.
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
 * @property {number} relevance
 * @property {number} recency
 * @property {number} score
 * @property {string} outcome
 * @property {number} stage
 * @property {string} reason
 * @property {number | null} rank
 * @property {number | null} other_rank
 * @property {TermPart[] | BM25Part[]} terms
 */

/**
 * The full result (the command line, `api.run`): the head, every record in store
 * order, then the summary; in JSON `records` comes between the two.
 * @typedef {object} Result
 * @property {string} engine_version
 * @property {Policy} policy
 * @property {QuestionResult} question
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {Counts} counts
 * @property {Coverage} coverage
 * @property {RecordResult[]} records
 */

/**
 * The slim answer but for its per-term parts: each column is in store order.
 *
 * In JSON the columns (`ids` to `other_rank`) come between the head and the
 * summary, and `terms_key` after it.
 * @typedef {object} Columns
 * @property {string} engine_version
 * @property {Policy} policy
 * @property {QuestionResult} question
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {Counts} counts
 * @property {Coverage} coverage
 * @property {string[]} ids
 * @property {number[]} cosine
 * @property {number[]} bm25
 * @property {number[]} relevance
 * @property {number[]} score
 * @property {string[]} outcome
 * @property {string[]} reason
 * @property {(number | null)[]} rank
 * @property {(number | null)[]} other_rank
 * @property {string} terms_key
 */

/**
 * The slim answer a session sends the page, by columns in store order: what the
 * policy decides for each record, and the question's cosines. It leaves out what the
 * page already holds: the records' own fields (the store it opened), their word
 * counts and recency (the open reply), each outcome's stage (the outcome table), and
 * the per-term parts (`terms`, then None) when the page says it has those of
 * `terms_key` already.
 * @typedef {object} Answer
 * @property {string} engine_version
 * @property {Policy} policy
 * @property {QuestionResult} question
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {Counts} counts
 * @property {Coverage} coverage
 * @property {string[]} ids
 * @property {number[]} cosine
 * @property {number[]} bm25
 * @property {number[]} relevance
 * @property {number[]} score
 * @property {string[]} outcome
 * @property {string[]} reason
 * @property {(number | null)[]} rank
 * @property {(number | null)[]} other_rank
 * @property {string} terms_key
 * @property {TermPart[][] | BM25Part[][] | null} terms
 */

/**
 * The reply to opening a store: its size, and each record's word count and recency.
 * @typedef {object} Opened
 * @property {number} records
 * @property {number[]} words
 * @property {number[]} recency
 */

/**
 * One problem with the input: the path of the bad value (empty for the whole) and the rule.
 * @typedef {object} Problem
 * @property {string} path
 * @property {string} message
 */

/**
 * @typedef {object} ErrorBody
 * @property {string} name
 * @property {string} message
 * @property {Problem[]} problems
 */

/**
 * What every entry point returns instead of a result when the input is bad (`name`
 * says which input: InvalidStore, InvalidPolicy, InvalidRequest, InvalidJSON) or the
 * engine failed (InternalError, with no problems).
 * @typedef {object} ErrorResult
 * @property {ErrorBody} error
 */

/** Each shape's keys in declared order (a shape's bases first), for tests. */
export const SHAPE_KEYS = Object.freeze({
  "TermPart": [
    "term",
    "record_count",
    "query_count",
    "record_tf",
    "query_tf",
    "idf",
    "record_weight",
    "query_weight",
    "contribution"
  ],
  "BM25Part": [
    "term",
    "record_count",
    "query_count",
    "idf",
    "record_length",
    "length_factor",
    "contribution"
  ],
  "QuestionResult": [
    "id",
    "text",
    "own",
    "terms",
    "dropped_terms",
    "stop_words",
    "best_bm25",
    "average_length"
  ],
  "Coverage": [
    "found",
    "total",
    "supporting",
    "found_ids"
  ],
  "Counts": [
    "stored",
    "in_scope",
    "ranked",
    "selected"
  ],
  "Head": [
    "engine_version",
    "policy",
    "question"
  ],
  "Summary": [
    "ranked",
    "selected",
    "words_used",
    "budget_words",
    "counts",
    "coverage"
  ],
  "RecordResult": [
    "id",
    "tenant",
    "store",
    "session",
    "age_hours",
    "key",
    "text",
    "words",
    "cosine",
    "bm25",
    "relevance",
    "recency",
    "score",
    "outcome",
    "stage",
    "reason",
    "rank",
    "other_rank",
    "terms"
  ],
  "Result": [
    "engine_version",
    "policy",
    "question",
    "ranked",
    "selected",
    "words_used",
    "budget_words",
    "counts",
    "coverage",
    "records"
  ],
  "Columns": [
    "engine_version",
    "policy",
    "question",
    "ranked",
    "selected",
    "words_used",
    "budget_words",
    "counts",
    "coverage",
    "ids",
    "cosine",
    "bm25",
    "relevance",
    "score",
    "outcome",
    "reason",
    "rank",
    "other_rank",
    "terms_key"
  ],
  "Answer": [
    "engine_version",
    "policy",
    "question",
    "ranked",
    "selected",
    "words_used",
    "budget_words",
    "counts",
    "coverage",
    "ids",
    "cosine",
    "bm25",
    "relevance",
    "score",
    "outcome",
    "reason",
    "rank",
    "other_rank",
    "terms_key",
    "terms"
  ],
  "Opened": [
    "records",
    "words",
    "recency"
  ],
  "Problem": [
    "path",
    "message"
  ],
  "ErrorBody": [
    "name",
    "message",
    "problems"
  ],
  "ErrorResult": [
    "error"
  ]
});

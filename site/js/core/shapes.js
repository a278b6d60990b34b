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
 * A vocabulary token and its cosine with another token (both vectors as stored).
 * @typedef {object} NearToken
 * @property {string} token
 * @property {number} cosine
 */

/**
 * One distinct question token's share of a record's similarity; a record's parts add up
 * to it. `contribution` is `count * v·d / ‖Σv‖` (v the token's vector, d the record's
 * unit vector, Σv the sum of the question's token vectors); `closest` are the record's
 * tokens most similar to this one, most similar first (up to 3), given for the records
 * past the scope filters (empty for one a filter removed).
 * @typedef {object} EmbeddingPart
 * @property {string} token
 * @property {number} count
 * @property {number} contribution
 * @property {NearToken[]} closest
 */

/**
 * One ranking's share of a record's Reciprocal Rank Fusion sum: `1 / (rrf_k + rank)`,
 * with the record's rank in that ranking (records tied on relevance share the best rank)
 * and its relevance there. A record's parts add up to its `rrf`.
 * @typedef {object} FusionPart
 * @property {string} scorer
 * @property {number} rank
 * @property {number} relevance
 * @property {number} contribution
 */

/**
 * A distinct question token as the embedding reads it, how often the question holds
 * it, and its nearest vocabulary tokens (up to five, nearest first).
 * @typedef {object} AskedToken
 * @property {string} token
 * @property {number} count
 * @property {NearToken[]} neighbours
 */

/**
 * The question and every record (in store order) on a 2-D map: their vectors projected
 * on the two directions along which the records' vectors spread most (PCA of the record
 * vectors; the question is placed on the records' map, it does not move it). Approximate:
 * `explained` is the share of the records' spread each axis shows.
 * @typedef {object} QuestionMap
 * @property {number[]} question
 * @property {number[][]} records
 * @property {number[]} explained
 */

/**
 * A question term in no record, and record terms that begin with it or share its stem
 * (engine/near_miss.py): the scorers match exact terms only, so these count for nothing.
 * @typedef {object} NearMiss
 * @property {string} term
 * @property {string[]} record_words
 */

/**
 * One sentence of how the question is read (engine/reading.py): its `kind`, the
 * `scorer` it is about, the terms, words or pieces it names (`items`), and for a
 * piece's parts of a record's similarity the `record` and the `values` (else None
 * and empty).
 * @typedef {object} ReadingClaim
 * @property {string} kind
 * @property {string} scorer
 * @property {string[]} items
 * @property {string} text
 * @property {string | null} record
 * @property {number[]} values
 */

/**
 * The question in force and how it was read. `own` is a learner's own text (its id
 * is then empty); `terms` are its terms found in some record, `dropped_terms` those
 * found in none (they count for nothing), with `near_misses` for those of them that a
 * record holds in a longer or inflected form; `stop_words` the stop words it contained.
 * `best_bm25` is the highest BM25 among the active tenant's records, `best_bm25_record`
 * the record holding it (None when no record of the tenant shares a term): BM25 is blended
 * as a share of it;
 * `average_length` is the store's mean record length in terms, BM25's `avg_len`;
 * `reading` says how the scorer in force reads the question (engine/reading.py).
 * When the scorer reads the embedding (else empty, or None): `tokens` are its distinct
 * word pieces in question order, `unknown_tokens` its words the vocabulary lacks (they
 * count for nothing), `norm` the length of the sum of its token vectors, `‖Σv‖`, and
 * `map` the question and the records in two dimensions.
 * @typedef {object} QuestionResult
 * @property {string} id
 * @property {string} text
 * @property {boolean} own
 * @property {string[]} terms
 * @property {string[]} dropped_terms
 * @property {NearMiss[]} near_misses
 * @property {string[]} stop_words
 * @property {number} best_bm25
 * @property {string | null} best_bm25_record
 * @property {number} average_length
 * @property {ReadingClaim[]} reading
 * @property {AskedToken[]} tokens
 * @property {string[]} unknown_tokens
 * @property {number | null} norm
 * @property {QuestionMap | null} map
 */

/**
 * One term of a blend that normalises (engine/generative.py): its name, how its raw value
 * is made, its weight, and the lowest and highest raw value among the records normalised
 * over (None when no record is).
 * @typedef {object} WeighedTerm
 * @property {string} term
 * @property {string} raw
 * @property {number} weight
 * @property {number | null} low
 * @property {number | null} high
 */

/**
 * How a blend that normalises made this answer's scores: the blend, how many records it
 * normalised over (those that reach ranking under the scorer in force), and its terms in
 * the order each record's `weighed` lists them.
 * @typedef {object} Weighing
 * @property {string} blend
 * @property {number} over
 * @property {WeighedTerm[]} terms
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
 * counts. `ranked` is record ids, best first; `selected` the tray, in the order the
 * packing rule in force filled it (best first under greedy packing). `weighing` says how a
 * blend that normalises made the scores (None under the seed blend).
 * @typedef {object} Summary
 * @property {string[]} ranked
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {Counts} counts
 * @property {Coverage} coverage
 * @property {Weighing | null} weighing
 */

/**
 * One record in a full result: its own fields, its scores, its outcome and why.
 *
 * `cosine` to `rrf` are the scorers' own scores, one per scorer (engine/scorers.py:
 * each row's first column), None when the answer did not read the question under that
 * scorer. `relevance` is the policy scorer's share of the score (the cosine, BM25 over the
 * best BM25, the similarity clipped at 0, or the RRF sum over its best, `2 / (rrf_k +
 * 1)`), `stage` the stage (2, 3 or 4) that decides the outcome, `rank` its place
 * under the policy's scorer and `other_rank` under the other one (None when out of
 * scope); `ranks` gives the record's place among the candidates under each scorer the
 * answer computed (None where that scorer does not match it). `superseded_by` names the
 * record that supersedes a superseded one (None for any other). `terms` are the policy
 * scorer's parts. `score` is None for a record that does not reach ranking under a blend
 * that normalises over those that do; `weighed` gives, under such a blend, each of its
 * terms (`Summary.weighing`) as [raw, normalised, weighted] for a record that reaches
 * ranking (else None). Each key not marked is one of the slim answer's columns.
 * @typedef {object} RecordResult
 * @property {string} id
 * @property {string} tenant
 * @property {string} store
 * @property {string} session
 * @property {number} age_hours
 * @property {string | null} key
 * @property {string} text
 * @property {number} words
 * @property {number} importance
 * @property {number} cosine
 * @property {number} bm25
 * @property {number | null} similarity
 * @property {number | null} rrf
 * @property {number} relevance
 * @property {number} recency
 * @property {number | null} score
 * @property {number[][] | null} weighed
 * @property {string} outcome
 * @property {number} stage
 * @property {string} reason
 * @property {string | null} superseded_by
 * @property {number | null} rank
 * @property {number | null} other_rank
 * @property {Record<string, number | null>} ranks
 * @property {TermPart[] | BM25Part[] | EmbeddingPart[] | FusionPart[]} terms
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
 * @property {Weighing | null} weighing
 * @property {RecordResult[]} records
 */

/**
 * The slim answer a session sends the page (`Session.answer_json`): what the policy
 * decides for each record, by columns in store order. In JSON, after the head: `ids`,
 * then one column per key of `RecordResult` not marked (`ANSWER_COLUMNS`: `cosine`
 * to `ranks`, `ranks` as one column per scorer computed), then the summary and
 * `terms_key`, what the per-term parts depend on. It leaves out what the page holds
 * already: the records' own fields (the store it opened), their word counts (the open
 * reply; each record's recency is a column, since it counts from the policy's as-of), each outcome's stage (the outcome table); the per-term parts travel
 * apart, and not at all when the page says it holds those of `terms_key`.
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
 * @property {Weighing | null} weighing
 * @property {string[]} ids
 * @property {number[]} cosine
 * @property {number[]} bm25
 * @property {(number | null)[]} similarity
 * @property {(number | null)[]} rrf
 * @property {number[]} relevance
 * @property {number[]} recency
 * @property {(number | null)[]} score
 * @property {(number[][] | null)[]} weighed
 * @property {string[]} outcome
 * @property {string[]} reason
 * @property {(string | null)[]} superseded_by
 * @property {(number | null)[]} rank
 * @property {(number | null)[]} other_rank
 * @property {Record<string, (number | null)[]>} ranks
 * @property {string} terms_key
 */

/**
 * How well one ranking and tray retrieve a question's supporting records, k being the
 * policy's `max_records` (engine/evaluate.py states each formula): `recall` and
 * `precision` at k, `mrr` (the reciprocal rank of the first supporting record), `ndcg`
 * at k (binary gains, log2 discount) and `coverage` (the share of them in the tray).
 * @typedef {object} Measures
 * @property {number} recall
 * @property {number} precision
 * @property {number} mrr
 * @property {number} ndcg
 * @property {number} coverage
 */

/**
 * One question under one scorer in an evaluation: the ranking after scope (record ids,
 * best first), the tray, the question's supporting records for the tenant, the place of the
 * first of them in the ranking (None when none is ranked), how many of them are among the
 * first k, and the measures (None when the question has no supporting record for the
 * tenant: nothing to measure). `outcomes` gives each supporting record's outcome code
 * under this scorer, in the order of `supporting`.
 * @typedef {object} Evaluated
 * @property {string} question
 * @property {string} scorer
 * @property {string[]} ranking
 * @property {string[]} tray
 * @property {string[]} supporting
 * @property {Record<string, string>} outcomes
 * @property {number | null} first_rank
 * @property {number} hits
 * @property {Measures | null} measures
 */

/**
 * A question left out of an evaluation's means, and why.
 * @typedef {object} Unmeasured
 * @property {string} question
 * @property {string} reason
 */

/**
 * A supporting record the policy's scope leaves out under every scorer: the questions
 * it supports, and the outcome code of every scope check that leaves it out on its own, in
 * the order the checks run (the first is its outcome). `included` says whether the
 * evaluation's `include` settings let it in.
 * @typedef {object} LeftOut
 * @property {string} record
 * @property {string[]} questions
 * @property {string[]} outcomes
 * @property {boolean} included
 */

/**
 * Why supporting records are out of scope, and the settings that let them in: `why`
 * the sentence (the page and the command line say it as it is), `include` the policy
 * fields to change and their values (empty when no wider setting lets any in), checked by
 * the engine's scope checks, and `include_text` those changes in the controls' words.
 * @typedef {object} OutOfScope
 * @property {LeftOut[]} left_out
 * @property {string} why
 * @property {Record<string, unknown>} include
 * @property {string} include_text
 */

/**
 * Every question of the store under every scorer, with the policy in force but its
 * question (`api.evaluate`, `python -m engine --evaluate --json`). `k` is the policy's
 * `max_records`; `evaluation` holds one entry per question and scorer, question by
 * question in store order, scorers in the scorer table's order; `means` each scorer's mean
 * measures over the `measured` questions (None when there are none), `best` per measure
 * the scorers whose mean is highest (all of those tied at the top, none when every scorer
 * ties or nothing is measured), `unmeasured` the questions left out of the means with the
 * reason, `out_of_scope` the measured questions' supporting records the scope leaves out
 * (None when it leaves none out); `measure_names` each measure's column heading, in the
 * order tables show them.
 * @typedef {object} Evaluation
 * @property {Policy} policy
 * @property {number} k
 * @property {Record<string, string>} measure_names
 * @property {Evaluated[]} evaluation
 * @property {Record<string, Measures | null>} means
 * @property {Record<string, string[]>} best
 * @property {string[]} measured
 * @property {Unmeasured[]} unmeasured
 * @property {OutOfScope | null} out_of_scope
 */

/**
 * Each scorer's mean nDCG at k at one value of the field swept (None when nothing is measured).
 * @typedef {object} SweepPoint
 * @property {number} value
 * @property {Record<string, number | null>} ndcg
 */

/**
 * An evaluation's mean nDCG per scorer as the policy `field` swept (the recency weight,
 * or MMR's λ: `fields.SWEPT`) goes from 0 to 1 in steps of 0.1, the rest of the policy
 * as given (`evaluate.sweep_over`).
 * @typedef {object} Sweep
 * @property {Policy} policy
 * @property {string} field
 * @property {number} k
 * @property {SweepPoint[]} points
 */

/**
 * The reply to loading a vector file (`api.load_embedding`): its vocabulary size and dimensions.
 * @typedef {object} VectorsLoaded
 * @property {number} tokens
 * @property {number} dims
 */

/**
 * The reply to opening a store: its size, and each record's word count, importance and recency now.
 * @typedef {object} Opened
 * @property {number} records
 * @property {number[]} words
 * @property {number[]} importance
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
 * says which input: InvalidStore, InvalidPolicy, InvalidRequest, InvalidJSON,
 * MissingVectors or InvalidVectors, the static embedding's file) or the engine failed
 * (InternalError, with no problems).
 * @typedef {object} ErrorResult
 * @property {ErrorBody} error
 */

/**
 * A guided step's "Look for" naming what its answer does not hold (engine/claims.py):
 * the guide's id, the step (from 1), the path of the sentence in the store, what it names
 * (a number, a record id, "30 of 40", "M5's cosine 0.360"…), what the answer shows instead,
 * and the two as one line (the command line's and the build's).
 * @typedef {object} FalseClaim
 * @property {string} guide
 * @property {number} step
 * @property {string} path
 * @property {string} named
 * @property {string} shows
 * @property {string} text
 */

/**
 * A guided step whose answer could not be made, so its "Look for" went unchecked, and why
 * (the embedding's vectors not loaded, in the page, before a learner picks that scorer).
 * @typedef {object} UncheckedStep
 * @property {string} guide
 * @property {number} step
 * @property {string} path
 * @property {string} why
 */

/**
 * Every guided step of a store checked against its answer (`claims.check_guides`):
 * the false claims, the steps left unchecked, how many steps and claims were checked.
 * @typedef {object} GuideCheck
 * @property {FalseClaim[]} claims
 * @property {UncheckedStep[]} unchecked
 * @property {number} steps
 * @property {number} checked
 */

/**
 * A store given as text, checked (`api.check_store_json`): the parser's problems (the
 * words and paths `python -m engine --fixtures` reports), then, only when there are none,
 * its guided claims checked.
 * @typedef {object} StoreCheck
 * @property {FalseClaim[]} claims
 * @property {UncheckedStep[]} unchecked
 * @property {number} steps
 * @property {number} checked
 * @property {Problem[]} problems
 */

/** Each shape's keys in JSON order (a shape's bases first). */
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
  "NearToken": [
    "token",
    "cosine"
  ],
  "EmbeddingPart": [
    "token",
    "count",
    "contribution",
    "closest"
  ],
  "FusionPart": [
    "scorer",
    "rank",
    "relevance",
    "contribution"
  ],
  "AskedToken": [
    "token",
    "count",
    "neighbours"
  ],
  "QuestionMap": [
    "question",
    "records",
    "explained"
  ],
  "NearMiss": [
    "term",
    "record_words"
  ],
  "ReadingClaim": [
    "kind",
    "scorer",
    "items",
    "text",
    "record",
    "values"
  ],
  "QuestionResult": [
    "id",
    "text",
    "own",
    "terms",
    "dropped_terms",
    "near_misses",
    "stop_words",
    "best_bm25",
    "best_bm25_record",
    "average_length",
    "reading",
    "tokens",
    "unknown_tokens",
    "norm",
    "map"
  ],
  "WeighedTerm": [
    "term",
    "raw",
    "weight",
    "low",
    "high"
  ],
  "Weighing": [
    "blend",
    "over",
    "terms"
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
    "coverage",
    "weighing"
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
    "importance",
    "cosine",
    "bm25",
    "similarity",
    "rrf",
    "relevance",
    "recency",
    "score",
    "weighed",
    "outcome",
    "stage",
    "reason",
    "superseded_by",
    "rank",
    "other_rank",
    "ranks",
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
    "weighing",
    "records"
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
    "weighing",
    "ids",
    "cosine",
    "bm25",
    "similarity",
    "rrf",
    "relevance",
    "recency",
    "score",
    "weighed",
    "outcome",
    "reason",
    "superseded_by",
    "rank",
    "other_rank",
    "ranks",
    "terms_key"
  ],
  "Measures": [
    "recall",
    "precision",
    "mrr",
    "ndcg",
    "coverage"
  ],
  "Evaluated": [
    "question",
    "scorer",
    "ranking",
    "tray",
    "supporting",
    "outcomes",
    "first_rank",
    "hits",
    "measures"
  ],
  "Unmeasured": [
    "question",
    "reason"
  ],
  "LeftOut": [
    "record",
    "questions",
    "outcomes",
    "included"
  ],
  "OutOfScope": [
    "left_out",
    "why",
    "include",
    "include_text"
  ],
  "Evaluation": [
    "policy",
    "k",
    "measure_names",
    "evaluation",
    "means",
    "best",
    "measured",
    "unmeasured",
    "out_of_scope"
  ],
  "SweepPoint": [
    "value",
    "ndcg"
  ],
  "Sweep": [
    "policy",
    "field",
    "k",
    "points"
  ],
  "VectorsLoaded": [
    "tokens",
    "dims"
  ],
  "Opened": [
    "records",
    "words",
    "importance",
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
  ],
  "FalseClaim": [
    "guide",
    "step",
    "path",
    "named",
    "shows",
    "text"
  ],
  "UncheckedStep": [
    "guide",
    "step",
    "path",
    "why"
  ],
  "GuideCheck": [
    "claims",
    "unchecked",
    "steps",
    "checked"
  ],
  "StoreCheck": [
    "claims",
    "unchecked",
    "steps",
    "checked",
    "problems"
  ]
});

/**
 * Where the page gets each key of a record, in order: a column of the answer, the store it
 * opened, the open reply, the outcome table (the row of the record's outcome), or the parts.
 * @type {Readonly<Record<keyof RecordResult, "answer" | "store" | "opened" | "outcome" | "parts">>}
 */
export const RECORD_SOURCES = Object.freeze({
  "id": "store",
  "tenant": "store",
  "store": "store",
  "session": "store",
  "age_hours": "store",
  "key": "store",
  "text": "store",
  "words": "opened",
  "importance": "opened",
  "cosine": "answer",
  "bm25": "answer",
  "similarity": "answer",
  "rrf": "answer",
  "relevance": "answer",
  "recency": "answer",
  "score": "answer",
  "weighed": "answer",
  "outcome": "answer",
  "stage": "outcome",
  "reason": "answer",
  "superseded_by": "answer",
  "rank": "answer",
  "other_rank": "answer",
  "ranks": "answer",
  "terms": "parts"
});

/**
 * The record at position i of a full result, each key read from where the page gets it
 * (RECORD_SOURCES): the store's record, the open reply, the outcome table, the answer's
 * columns or the per-term parts.
 * @param {any} record @param {number} i @param {Answer} answer
 * @param {{words: number[], importance: number[], recency: number[]}} opened
 * @param {typeof import("./tables.js").OUTCOME_TABLE} outcomes  the outcome table, by code
 * @param {RecordResult["terms"][]} parts
 * @returns {RecordResult}
 */
export function recordAt(record, i, answer, opened, outcomes, parts) {
  return {
    id: record.id,
    tenant: record.tenant,
    store: record.store,
    session: record.session,
    age_hours: record.age_hours,
    key: record.key,
    text: record.text,
    words: opened.words[i],
    importance: opened.importance[i],
    cosine: answer.cosine[i],
    bm25: answer.bm25[i],
    similarity: answer.similarity[i],
    rrf: answer.rrf[i],
    relevance: answer.relevance[i],
    recency: answer.recency[i],
    score: answer.score[i],
    weighed: answer.weighed[i],
    outcome: answer.outcome[i],
    stage: outcomes[answer.outcome[i]].stage,
    reason: answer.reason[i],
    superseded_by: answer.superseded_by[i],
    rank: answer.rank[i],
    other_rank: answer.other_rank[i],
    ranks: perScorer(answer.ranks, i),
    terms: parts[i],
  };
}

/**
 * A record's value under each scorer, from one column per scorer.
 * @template T @param {Record<string, T[]>} columns @param {number} i @returns {Record<string, T>}
 */
function perScorer(columns, i) {
  /** @type {Record<string, T>} */
  const values = {};
  for (const scorer in columns) values[scorer] = columns[scorer][i];
  return values;
}

// Generated from engine/scorers.py by `python build.py --write-tables`; do not edit.
// tests/test_fields.py checks this copy.

/** @typedef {import('./tables.js').Policy['scorer']} Scorer */
/** @typedef {'cosine' | 'bm25' | 'similarity' | 'rrf'} ColumnId */
/**
 * @typedef {object} ScorerRow
 * @property {Scorer} id
 * @property {string} label
 * @property {string} name
 * @property {'words' | 'pieces' | 'both'} reads
 * @property {Scorer | null} words  the lexical scorer whose exact words are in force
 * @property {boolean} pieces  whether the embedding's word pieces are read
 * @property {ColumnId[]} columns
 * @property {Scorer[]} ranks
 * @property {Scorer} compared
 * @property {string} relevance
 * @property {string} formula
 * @property {string} normaliser
 * @property {string} breakdown
 * @property {string} unmatched
 * @property {string} intro
 * @property {string} ranking
 * @property {boolean} vectors
 * @property {string} recencyHint
 */

/** @type {Readonly<Record<Scorer, ScorerRow>>} */
export const SCORERS = Object.freeze({
  "tfidf": {
    "id": "tfidf",
    "label": "TF-IDF cosine",
    "name": "TF-IDF",
    "reads": "words",
    "words": "tfidf",
    "pieces": false,
    "columns": [
      "cosine",
      "bm25"
    ],
    "ranks": [
      "tfidf",
      "bm25"
    ],
    "compared": "bm25",
    "relevance": "cosine",
    "formula": "cosine = Σ over shared terms of (tf·idf in the record) × (tf·idf in the question), each vector of length 1; tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1",
    "normaliser": "the cosine itself: two vectors of length 1 give a cosine in [0, 1]",
    "breakdown": "cosine",
    "unmatched": "with no shared terms",
    "intro": "TF-IDF cosine: the words it shares with the question, each weighted by how few records hold it",
    "ranking": "records still in scope get their TF-IDF cosine and blended score; a record sharing no term with the question drops out here.",
    "vectors": false,
    "recencyHint": "0 ranks on cosine alone, 1 on recency alone"
  },
  "bm25": {
    "id": "bm25",
    "label": "BM25 (as Lucene scores it)",
    "name": "BM25",
    "reads": "words",
    "words": "bm25",
    "pieces": false,
    "columns": [
      "bm25",
      "cosine"
    ],
    "ranks": [
      "bm25",
      "tfidf"
    ],
    "compared": "tfidf",
    "relevance": "relative BM25",
    "formula": "BM25 = Σ over shared terms of q · idf · tf / (tf + k1 · (1 − b + b · len / avg_len)), idf = ln(1 + (N − n + 0.5) / (n + 0.5))",
    "normaliser": "BM25 / the highest BM25 among the active tenant's records for the question",
    "breakdown": "bm25",
    "unmatched": "with no shared terms",
    "intro": "BM25: the words it shares with the question, repeats counting ever less and long records discounted",
    "ranking": "records still in scope get their BM25, its share of the tenant's best, and their blended score; a record sharing no term with the question drops out here.",
    "vectors": false,
    "recencyHint": "0 ranks on relative BM25 alone, 1 on recency alone"
  },
  "embedding": {
    "id": "embedding",
    "label": "Static embedding (meaning)",
    "name": "Embedding",
    "reads": "pieces",
    "words": null,
    "pieces": true,
    "columns": [
      "similarity"
    ],
    "ranks": [
      "embedding",
      "bm25",
      "tfidf"
    ],
    "compared": "bm25",
    "relevance": "similarity",
    "formula": "similarity = cosine of the mean word-piece vectors = Σ over question pieces of count × v·d̂ / ‖Σv‖",
    "normaliser": "max(0, similarity)",
    "breakdown": "embedding",
    "unmatched": "under the minimum similarity",
    "intro": "a static embedding: how close its meaning is to the question's, from fixed word-piece vectors, whatever the spelling",
    "ranking": "records still in scope get their static-embedding similarity with the question and their blended score; a record under the minimum similarity drops out here.",
    "vectors": true,
    "recencyHint": "0 ranks on similarity alone, 1 on recency alone"
  },
  "hybrid": {
    "id": "hybrid",
    "label": "Hybrid: BM25 + embedding (RRF)",
    "name": "Hybrid",
    "reads": "both",
    "words": "bm25",
    "pieces": true,
    "columns": [
      "rrf",
      "bm25",
      "similarity"
    ],
    "ranks": [
      "hybrid",
      "bm25",
      "embedding"
    ],
    "compared": "embedding",
    "relevance": "fused share",
    "formula": "RRF = Σ over the BM25 and embedding rankings that hold the record of 1 / (rrf_k + rank)",
    "normaliser": "RRF / (2 / (rrf_k + 1)), the most a record can earn: first in both rankings",
    "breakdown": "fusion",
    "unmatched": "in neither ranking",
    "intro": "hybrid ranking: its BM25 rank and its embedding rank, fused by Reciprocal Rank Fusion",
    "ranking": "records still in scope are ranked by BM25 and by embedding similarity, and the two rankings fused by Reciprocal Rank Fusion into one score; a record in neither ranking drops out here.",
    "vectors": true,
    "recencyHint": "0 ranks on fused share alone, 1 on recency alone"
  }
});

/** @type {Readonly<Record<ColumnId, {id: ColumnId, header: string, places: number}>>} */
export const COLUMNS = Object.freeze({
  "cosine": {
    "id": "cosine",
    "header": "cosine",
    "places": 3
  },
  "bm25": {
    "id": "bm25",
    "header": "BM25",
    "places": 3
  },
  "similarity": {
    "id": "similarity",
    "header": "similarity",
    "places": 3
  },
  "rrf": {
    "id": "rrf",
    "header": "RRF",
    "places": 4
  }
});

/** The blends: each row's id, label, breakdown view, whether a record's score is its own alone, and what the score is made of. */
export const BLENDS = Object.freeze({
  "seed": {
    "id": "seed",
    "label": "Relevance blended with recency",
    "breakdown": "seed",
    "alone": true,
    "named": "{scorer} + recency",
    "leads": false
  },
  "generative-agents": {
    "id": "generative-agents",
    "label": "Generative Agents: recency + importance + relevance",
    "breakdown": "generative-agents",
    "alone": false,
    "named": "Generative Agents: recency, importance, {scorer}",
    "leads": true
  }
});

/** The blend in force: the row the policy's blend names. @param {{blend: string}} policy @returns {{id: string, label: string, breakdown: string, alone: boolean, named: string, leads: boolean}} */
export function blendFor(policy) {
  return /** @type {Record<string, {id: string, label: string, breakdown: string, alone: boolean, named: string, leads: boolean}>} */ (BLENDS)[policy.blend] ?? Object.values(BLENDS)[0];
}

/** Said wherever a lexical formula is shown: the idf is the store's, whatever the tenant. */
export const SHARED_INDEX = "idf counts every record of the store, whatever its tenant, as one index shared by the tenants does: that is how a shared index leaks term statistics from one tenant to another";

/** The scorers that read the static embedding's vectors. @type {readonly Scorer[]} */
export const VECTOR_SCORERS = Object.freeze(["embedding", "hybrid"]);

/** The scorer's row. @param {string} scorer @returns {ScorerRow} */
export function scorerRow(scorer) {
  return SCORERS[/** @type {Scorer} */ (scorer)] ?? SCORERS.tfidf;
}

/** Whether a scorer reads the vectors. @param {string} scorer */
export function readsVectors(scorer) {
  return scorerRow(scorer).vectors;
}

"""The tables of what makes an answer: its scorers, its blend and its packing rule.

Every other place that names a scorer derives it from here: the policy field's choices
(``fields.py``), what ``Session`` computes for an answer, the answer's score columns, the
command line's table, the page's columns, reading, hints and breakdown view (through the
generated ``site/js/core/scorers.js``), the share panel and the README's scorer list.
Adding a scorer is one row here (with its score column in COLUMNS), its engine module
(``read(asking, ranks, needed)`` giving a ``scoring.Scoring``), its breakdown view in
``site/js/views/`` (listed in breakdown.js's BREAKDOWN_VIEWS), and in ``shapes.py`` its
column and, when its parts have a shape of their own, that shape (named in
``scoring.Part`` too). A blend and a packing rule are one row each too, with the engine
module the row names (``weigh`` and ``pack``) and, for a blend, its view in
``site/js/views/blend-<name>.js``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

ColumnId = Literal["cosine", "bm25", "similarity", "rrf"]


@dataclass(frozen=True)
class Column:
    """A per-record score a scorer shows: its record key, header and places."""

    id: ColumnId
    header: str
    places: int


COLUMNS: dict[str, Column] = {
    c.id: c
    for c in (
        Column("cosine", "cosine", 3),
        Column("bm25", "BM25", 3),
        Column("similarity", "similarity", 3),
        Column("rrf", "RRF", 4),
    )
}


@dataclass(frozen=True)
class Scorer:
    """One scorer.

    ``words`` names the lexical scorer whose exact-word reading is in force (its own id,
    hybrid's BM25, or None when no word is matched exactly); ``pieces`` says the
    embedding's word-piece reading is in force. ``columns`` are the scores the CLI and
    the records table show, the one blended (or fused) first; ``ranks`` the scorers
    whose rank each record shows, this one first; ``compared`` the one its rank mark
    (▲▼) compares with. ``relevance`` names what is blended with recency, ``formula``
    and ``normaliser`` say how it is made, ``breakdown`` names the page's view of it
    (``site/js/views/breakdown-<name>.js``), ``unmatched`` what drops a record at
    ranking, ``intro`` how it matches a record, ``ranking`` what the ranking stage does
    under it, ``vectors`` whether it reads the static embedding's vectors, and ``parts_depend_on`` the policy
    fields its per-record parts (the ones its breakdown view shows) depend on besides the
    question: an answer names them in its terms key, so the page never reuses stale parts.

    What an answer computes: ``module`` names the engine module whose ``read(asking,
    ranks, needed)`` reads a question under it (``ranks``: the policy ranks by it, so its
    parts are wanted; ``needed``: the readings of ``needs``, the scorers it is made from,
    read first, as they come before it in the table). ``every_answer`` says every answer
    reads it, whichever scorer ranks, so its column is never empty. ``divisor``, for a
    relevance that is a share of a best score, says what an answer's question divides by.
    ``likeness`` names the engine module whose ``likeness(asking)`` gives the cosine of two
    records as this scorer sees them (TF-IDF vectors for the words, embedding vectors for
    meaning): what a diversity packing compares records by.
    """

    id: str
    label: str
    name: str
    words: str | None
    pieces: bool
    columns: tuple[ColumnId, ...]
    ranks: tuple[str, ...]
    compared: str
    relevance: str
    formula: str
    normaliser: str
    breakdown: str
    unmatched: str
    intro: str
    ranking: str
    vectors: bool
    parts_depend_on: tuple[str, ...]
    module: str
    likeness: str
    needs: tuple[str, ...] = ()
    every_answer: bool = False
    divisor: Callable[[Any, str], str] | None = None

    @property
    def column(self) -> ColumnId:
        """The score it blends (or fuses), the answer's column it fills."""
        return self.columns[0]

    @property
    def reads(self) -> Literal["words", "pieces", "both"]:
        """What the scorer reads of a question: words after stop words, word pieces, or both."""
        if self.words and self.pieces:
            return "both"
        return "pieces" if self.pieces else "words"

    @property
    def recency_hint(self) -> str:
        """The recency weight's two ends, in this scorer's words."""
        return f"0 ranks on {self.relevance} alone, 1 on recency alone"


def bm25_divisor(question: Any, tenant: str) -> str:
    """What BM25's share divides by, for an answer's question (its best_bm25 and record)."""
    best = question["best_bm25_record"]
    if best is None:
        return f"relative BM25 = 0 for every record: no record of {tenant} shares a term with the question"
    return f"relative BM25 = BM25 / {question['best_bm25']:.4f}, the best BM25 among {tenant}'s records ({best})"


# The scope's settings: the embedding finds a record's closest tokens only for records in
# scope, and hybrid fuses rankings of the records in scope.
SCOPE_FIELDS = ("tenant", "store", "previous_sessions", "max_age_hours", "latest_per_key")

SCORERS: tuple[Scorer, ...] = (
    Scorer(
        id="tfidf",
        label="TF-IDF cosine",
        name="TF-IDF",
        words="tfidf",
        pieces=False,
        columns=("cosine", "bm25"),
        ranks=("tfidf", "bm25"),
        compared="bm25",
        relevance="cosine",
        formula="cosine = Σ over shared terms of (tf·idf in the record) × (tf·idf in the question), "
        "each vector of length 1; tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1",
        normaliser="the cosine itself: two vectors of length 1 give a cosine in [0, 1]",
        breakdown="cosine",
        unmatched="with no shared terms",
        intro="TF-IDF cosine: the words it shares with the question, each weighted by how few records hold it",
        ranking="records still in scope get their TF-IDF cosine and blended score; a record sharing no term with the question drops out here.",
        vectors=False,
        parts_depend_on=(),
        module="tfidf",
        likeness="tfidf",
        every_answer=True,
    ),
    Scorer(
        id="bm25",
        label="BM25 (as Lucene scores it)",
        name="BM25",
        words="bm25",
        pieces=False,
        columns=("bm25", "cosine"),
        ranks=("bm25", "tfidf"),
        compared="tfidf",
        relevance="relative BM25",
        formula="BM25 = Σ over shared terms of q · idf · tf / (tf + k1 · (1 − b + b · len / avg_len)), "
        "idf = ln(1 + (N − n + 0.5) / (n + 0.5))",
        normaliser="BM25 / the highest BM25 among the active tenant's records for the question",
        breakdown="bm25",
        unmatched="with no shared terms",
        intro="BM25: the words it shares with the question, repeats counting ever less and long records discounted",
        ranking="records still in scope get their BM25, its share of the tenant's best, and their blended score; a record sharing no term with the question drops out here.",
        vectors=False,
        parts_depend_on=("bm25_k1", "bm25_b"),
        module="bm25",
        likeness="tfidf",
        every_answer=True,
        divisor=bm25_divisor,
    ),
    Scorer(
        id="embedding",
        label="Static embedding (meaning)",
        name="Embedding",
        words=None,
        pieces=True,
        columns=("similarity",),
        ranks=("embedding", "bm25", "tfidf"),
        compared="bm25",
        relevance="similarity",
        formula="similarity = cosine of the mean word-piece vectors = Σ over question pieces of count × v·d̂ / ‖Σv‖",
        normaliser="max(0, similarity)",
        breakdown="embedding",
        unmatched="under the minimum similarity",
        intro="a static embedding: how close its meaning is to the question's, "
        "from fixed word-piece vectors, whatever the spelling",
        ranking="records still in scope get their static-embedding similarity with the question and their blended score; a record under the minimum similarity drops out here.",
        vectors=True,
        parts_depend_on=SCOPE_FIELDS,
        module="semantic",
        likeness="semantic",
    ),
    Scorer(
        id="hybrid",
        label="Hybrid: BM25 + embedding (RRF)",
        name="Hybrid",
        words="bm25",
        pieces=True,
        columns=("rrf", "bm25", "similarity"),
        ranks=("hybrid", "bm25", "embedding"),
        compared="embedding",
        relevance="fused share",
        formula="RRF = Σ over the BM25 and embedding rankings that hold the record of 1 / (rrf_k + rank)",
        normaliser="RRF / (2 / (rrf_k + 1)), the most a record can earn: first in both rankings",
        breakdown="fusion",
        unmatched="in neither ranking",
        intro="hybrid ranking: its BM25 rank and its embedding rank, fused by Reciprocal Rank Fusion",
        ranking="records still in scope are ranked by BM25 and by embedding similarity, and the two rankings fused by Reciprocal Rank Fusion into one score; a record in neither ranking drops out here.",
        vectors=True,
        parts_depend_on=(*SCOPE_FIELDS, "bm25_k1", "bm25_b", "min_similarity", "rrf_k"),
        module="fusion",
        likeness="semantic",
        needs=("bm25", "embedding"),
    ),
)

# Said wherever a lexical formula is shown: the idf is the store's, whatever the tenant.
SHARED_INDEX = (
    "idf counts every record of the store, whatever its tenant, as one index shared by the tenants "
    "does: that is how a shared index leaks term statistics from one tenant to another"
)

SCORERS_BY_ID: dict[str, Scorer] = {s.id: s for s in SCORERS}
SCORER_IDS: tuple[str, ...] = tuple(s.id for s in SCORERS)
# Each scorer's short name, as headers and rank notes say it.
SCORER_NAMES: dict[str, str] = {s.id: s.name for s in SCORERS}
# The scorer each one's rank mark compares with.
OTHER_SCORER: dict[str, str] = {s.id: s.compared for s in SCORERS}
# The scorers that read the static embedding's vectors (the lexical ones never load them).
EMBEDDING_SCORERS: tuple[str, ...] = tuple(s.id for s in SCORERS if s.vectors)


def _read_for(scorer: str) -> tuple[Scorer, ...]:
    """The scorers an answer ranked by ``scorer`` reads the question under, in table order
    (each after those it needs): those every answer reads, the scorer, and all they need."""
    wanted: set[str] = set()
    asked = [scorer, *(s.id for s in SCORERS if s.every_answer)]
    while asked:
        name = asked.pop()
        if name not in wanted:
            wanted.add(name)
            asked.extend(SCORERS_BY_ID[name].needs)
    return tuple(s for s in SCORERS if s.id in wanted)


@dataclass(frozen=True)
class Preset:
    """Values a button sets at once: ``values`` maps policy fields to them, ``note`` says whose they are."""

    label: str
    note: str
    values: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Blend:
    """One way to make a record's score from its relevance under the scorer in force.

    ``module`` names the engine module whose ``weigh(asking)`` makes the scores, and whose
    ``weighed(asking, relevance, positions)`` gives what the breakdown shows of them (the
    blend's terms, raw, normalised and weighted, and what they were normalised between),
    ``formula`` says how in the command line's words (``{relevance}`` stands for the
    scorer's relevance) and ``breakdown`` names the page's view of it
    (``site/js/views/blend-<name>.js``). ``alone`` says a record's score depends on that
    record alone, so a record that does not reach ranking has one too; a blend that
    normalises over the ranked records gives those others none. ``presets`` are the
    published settings a learner can apply at once; ``named`` what the score is made of, as
    the records table's head says it (``{scorer}`` stands for the scorer's name); ``leads``
    that the breakdown shows its view before the scorer's (the scorer's relevance is one
    term of several)."""

    id: str
    label: str
    formula: str
    module: str
    breakdown: str
    alone: bool
    named: str
    leads: bool = False
    presets: tuple[Preset, ...] = ()


GENERATIVE_AGENTS = "generative-agents"

BLENDS: tuple[Blend, ...] = (
    Blend(
        id="seed",
        label="Relevance blended with recency",
        formula="score = (1 - recency weight) x {relevance} + recency weight x 2^(-age/24)",
        module="scoring",
        breakdown="seed",
        alone=True,
        named="{scorer} + recency",
    ),
    Blend(
        id=GENERATIVE_AGENTS,
        label="Generative Agents: recency + importance + relevance",
        formula="score = wr x recency' + wi x importance' + wv x {relevance}', each ' min-max normalised to "
        "[0, 1] over the ranked records (0.5 when all are equal); recency = decay^age_hours",
        module="generative",
        breakdown="generative-agents",
        alone=False,
        named="Generative Agents: recency, importance, {scorer}",
        leads=True,
        presets=(
            Preset(
                "Use the published code's weights",
                "0.5, 2 and 3: recency, importance and relevance as joonspk-research/generative_agents "
                "weighs them in retrieve.py",
                (("ga_recency_weight", 0.5), ("ga_importance_weight", 2.0), ("ga_relevance_weight", 3.0)),
            ),
        ),
    ),
)
BLENDS_BY_ID: dict[str, Blend] = {b.id: b for b in BLENDS}


@dataclass(frozen=True)
class Packing:
    """One way to fill the context tray from the ranking: ``module`` names the engine module
    whose ``pack(ranked, asking)`` decides each candidate's outcome and says why, in the
    order it visited them. ``chosen`` says whether a policy chooses it."""

    id: str
    label: str
    module: str
    chosen: Callable[[Any], bool]


PACKINGS: tuple[Packing, ...] = (
    # Maximal marginal relevance is in force while λ < 1; at 1 it would pick as greedy does.
    Packing(
        id="mmr",
        label="Maximal marginal relevance: score traded against likeness to the tray",
        module="mmr",
        chosen=lambda policy: policy.mmr_lambda < 1,
    ),
    Packing(
        id="greedy", label="Greedy: best first, skipping what does not fit", module="pack", chosen=lambda policy: True
    ),
)


def blend_for(policy: Any) -> Blend:
    """The blend in force: the row the policy's ``blend`` names."""
    return BLENDS_BY_ID[policy.blend]


def packing_for(policy: Any) -> Packing:
    """The packing rule in force: the first row the policy chooses."""
    return next(row for row in PACKINGS if row.chosen(policy))


# What an answer ranked by each scorer reads the question under.
READ_FOR: dict[str, tuple[Scorer, ...]] = {s.id: _read_for(s.id) for s in SCORERS}


def scorer_rows() -> list[dict[str, Any]]:
    """The table as JSON rows, for scorers.js and the boot JSON."""
    return [
        {
            "id": s.id,
            "label": s.label,
            "name": s.name,
            "reads": s.reads,
            "words": s.words,
            "pieces": s.pieces,
            "columns": list(s.columns),
            "ranks": list(s.ranks),
            "compared": s.compared,
            "relevance": s.relevance,
            "formula": s.formula,
            "normaliser": s.normaliser,
            "breakdown": s.breakdown,
            "unmatched": s.unmatched,
            "intro": s.intro,
            "ranking": s.ranking,
            "vectors": s.vectors,
            "recencyHint": s.recency_hint,
        }
        for s in SCORERS
    ]


def scorers_js() -> str:
    """site/js/core/scorers.js: the scorer table for the page and Node."""
    dump = json.dumps
    rows = {row["id"]: row for row in scorer_rows()}
    columns = {c.id: {"id": c.id, "header": c.header, "places": c.places} for c in COLUMNS.values()}
    blends = {
        b.id: {
            "id": b.id,
            "label": b.label,
            "breakdown": b.breakdown,
            "alone": b.alone,
            "named": b.named,
            "leads": b.leads,
        }
        for b in BLENDS
    }
    return (
        "// Generated from engine/scorers.py by `python build.py --write-tables`; do not edit.\n"
        "// tests/test_fields.py checks this copy.\n\n"
        "/** @typedef {import('./tables.js').Policy['scorer']} Scorer */\n"
        "/** @typedef {'cosine' | 'bm25' | 'similarity' | 'rrf'} ColumnId */\n"
        "/**\n * @typedef {object} ScorerRow\n"
        " * @property {Scorer} id\n * @property {string} label\n * @property {string} name\n"
        " * @property {'words' | 'pieces' | 'both'} reads\n"
        " * @property {Scorer | null} words  the lexical scorer whose exact words are in force\n"
        " * @property {boolean} pieces  whether the embedding's word pieces are read\n"
        " * @property {ColumnId[]} columns\n * @property {Scorer[]} ranks\n * @property {Scorer} compared\n"
        " * @property {string} relevance\n * @property {string} formula\n * @property {string} normaliser\n"
        " * @property {string} breakdown\n * @property {string} unmatched\n * @property {string} intro\n * @property {string} ranking\n"
        " * @property {boolean} vectors\n * @property {string} recencyHint\n */\n\n"
        "/** @type {Readonly<Record<Scorer, ScorerRow>>} */\n"
        f"export const SCORERS = Object.freeze({dump(rows, ensure_ascii=False, indent=2)});\n\n"
        "/** @type {Readonly<Record<ColumnId, {id: ColumnId, header: string, places: number}>>} */\n"
        f"export const COLUMNS = Object.freeze({dump(columns, ensure_ascii=False, indent=2)});\n\n"
        "/** The blends: each row's id, label, breakdown view, whether a record's score is its own alone, and what the score is made of. */\n"
        f"export const BLENDS = Object.freeze({dump(blends, ensure_ascii=False, indent=2)});\n\n"
        "/** The blend in force: the row the policy's blend names. "
        "@param {{blend: string}} policy @returns {{id: string, label: string, breakdown: string, alone: boolean, named: string, leads: boolean}} */\n"
        "export function blendFor(policy) {\n"
        "  return /** @type {Record<string, {id: string, label: string, breakdown: string, alone: boolean, named: string, leads: boolean}>} */ (BLENDS)[policy.blend] ?? Object.values(BLENDS)[0];\n"
        "}\n\n"
        "/** Said wherever a lexical formula is shown: the idf is the store's, whatever the tenant. */\n"
        f"export const SHARED_INDEX = {dump(SHARED_INDEX, ensure_ascii=False)};\n\n"
        "/** The scorers that read the static embedding's vectors. @type {readonly Scorer[]} */\n"
        f"export const VECTOR_SCORERS = Object.freeze({dump(list(EMBEDDING_SCORERS))});\n\n"
        "/** The scorer's row. @param {string} scorer @returns {ScorerRow} */\n"
        "export function scorerRow(scorer) {\n"
        "  return SCORERS[/** @type {Scorer} */ (scorer)] ?? SCORERS.tfidf;\n"
        "}\n\n"
        "/** Whether a scorer reads the vectors. @param {string} scorer */\n"
        "export function readsVectors(scorer) {\n"
        "  return scorerRow(scorer).vectors;\n"
        "}\n"
    )

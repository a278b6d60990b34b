"""The JSON shapes the engine hands out, declared once: results, answers, replies and errors.

This module is the one description of those shapes. ``session.py`` builds them as these
TypedDicts, and the page's JSDoc types (``site/js/core/shapes.js``) are generated from
them. The order of keys in JSON is the declared order; where a shape made of ``Head`` and
``Summary`` puts its own keys between the two, its docstring says so. A record's keys
are marked with where the page gets them (``RECORD_SOURCES``): the slim answer carries,
as columns, exactly the keys marked ``ANSWER``, so its columns are declared once, here.
A result's ``policy`` is described by the field table (``fields.FIELDS``, one key per row,
in table order), not here.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, TypedDict

# Where the page gets a record's key: a column of the slim answer (the keys not marked),
# the store the page opened, the open reply (``Opened``), the outcome table (the row of
# the record's outcome), or the per-term parts (sent apart, and kept by their terms key).
Source = Literal["answer", "store", "opened", "outcome", "parts"]
ANSWER: Source = "answer"
STORE: Source = "store"
OPENED: Source = "opened"
OUTCOME: Source = "outcome"
PARTS: Source = "parts"


class TermPart(TypedDict):
    """One shared term's share of a cosine; the parts of a record add up to it."""

    term: str
    record_count: int
    query_count: int
    record_tf: float
    query_tf: float
    idf: float
    record_weight: float
    query_weight: float
    contribution: float


class BM25Part(TypedDict):
    """One shared term's share of a record's BM25; the parts of a record add up to it."""

    term: str
    record_count: int
    query_count: int
    idf: float
    record_length: int
    length_factor: float
    contribution: float


class NearToken(TypedDict):
    """A vocabulary token and its cosine with another token (both vectors as stored)."""

    token: str
    cosine: float


class EmbeddingPart(TypedDict):
    """One distinct question token's share of a record's similarity; a record's parts add up
    to it. ``contribution`` is ``count * v·d / ‖Σv‖`` (v the token's vector, d the record's
    unit vector, Σv the sum of the question's token vectors); ``closest`` are the record's
    tokens most similar to this one, most similar first (up to 3), given for the records
    past the scope filters (empty for one a filter removed)."""

    token: str
    count: int
    contribution: float
    closest: list[NearToken]


class FusionPart(TypedDict):
    """One ranking's share of a record's Reciprocal Rank Fusion sum: ``1 / (rrf_k + rank)``,
    with the record's rank in that ranking (records tied on relevance share the best rank)
    and its relevance there. A record's parts add up to its ``rrf``."""

    scorer: str
    rank: int
    relevance: float
    contribution: float


class AskedToken(TypedDict):
    """A distinct question token as the embedding reads it, how often the question holds
    it, and its nearest vocabulary tokens (up to five, nearest first)."""

    token: str
    count: int
    neighbours: list[NearToken]


class QuestionMap(TypedDict):
    """The question and every record (in store order) on a 2-D map: their vectors projected
    on the two directions along which the records' vectors spread most (PCA of the record
    vectors; the question is placed on the records' map, it does not move it). Approximate:
    ``explained`` is the share of the records' spread each axis shows."""

    question: list[float]
    records: list[list[float]]
    explained: list[float]


class NearMiss(TypedDict):
    """A question term in no record, and record terms that begin with it or share its stem
    (engine/near_miss.py): the scorers match exact terms only, so these count for nothing."""

    term: str
    record_words: list[str]


class ReadingClaim(TypedDict):
    """One sentence of how the question is read (engine/reading.py): its ``kind``, the
    ``scorer`` it is about, the terms, words or pieces it names (``items``), and for a
    piece's parts of a record's similarity the ``record`` and the ``values`` (else None
    and empty)."""

    kind: str
    scorer: str
    items: list[str]
    text: str
    record: str | None
    values: list[float]


class QuestionResult(TypedDict):
    """The question in force and how it was read. ``own`` is a learner's own text (its id
    is then empty); ``terms`` are its terms found in some record, ``dropped_terms`` those
    found in none (they count for nothing), with ``near_misses`` for those of them that a
    record holds in a longer or inflected form; ``stop_words`` the stop words it contained.
    ``best_bm25`` is the highest BM25 among the active tenant's records, ``best_bm25_record``
    the record holding it (None when no record of the tenant shares a term): BM25 is blended
    as a share of it;
    ``average_length`` is the store's mean record length in terms, BM25's ``avg_len``;
    ``reading`` says how the scorer in force reads the question (engine/reading.py).
    When the scorer reads the embedding (else empty, or None): ``tokens`` are its distinct
    word pieces in question order, ``unknown_tokens`` its words the vocabulary lacks (they
    count for nothing), ``norm`` the length of the sum of its token vectors, ``‖Σv‖``, and
    ``map`` the question and the records in two dimensions."""

    id: str
    text: str
    own: bool
    terms: list[str]
    dropped_terms: list[str]
    near_misses: list[NearMiss]
    stop_words: list[str]
    best_bm25: float
    best_bm25_record: str | None
    average_length: float
    reading: list[ReadingClaim]
    tokens: list[AskedToken]
    unknown_tokens: list[str]
    norm: float | None
    map: QuestionMap | None


class WeighedTerm(TypedDict):
    """One term of a blend that normalises (engine/generative.py): its name, how its raw value
    is made, its weight, and the lowest and highest raw value among the records normalised
    over (None when no record is)."""

    term: str
    raw: str
    weight: float
    low: float | None
    high: float | None


class Weighing(TypedDict):
    """How a blend that normalises made this answer's scores: the blend, how many records it
    normalised over (those that reach ranking under the scorer in force), and its terms in
    the order each record's ``weighed`` lists them."""

    blend: str
    over: int
    terms: list[WeighedTerm]


class Coverage(TypedDict):
    """How many of the question's supporting records (for the active tenant) were selected."""

    found: int
    total: int
    supporting: list[str]
    found_ids: list[str]


class Counts(TypedDict):
    """Records in the store, in scope (past the scope checks), ranked, and selected."""

    stored: int
    in_scope: int
    ranked: int
    selected: int


class Head(TypedDict):
    """What opens both a result and an answer: the engine, the policy and the question."""

    engine_version: str
    policy: dict[str, Any]
    question: QuestionResult


class Summary(TypedDict):
    """What a result and an answer share after the records: the ranking, the tray and its
    counts. ``ranked`` is record ids, best first; ``selected`` the tray, in the order the
    packing rule in force filled it (best first under greedy packing). ``weighing`` says how a
    blend that normalises made the scores (None under the seed blend)."""

    ranked: list[str]
    selected: list[str]
    words_used: int
    budget_words: int
    counts: Counts
    coverage: Coverage
    weighing: Weighing | None


class RecordResult(TypedDict):
    """One record in a full result: its own fields, its scores, its outcome and why.

    ``cosine`` to ``rrf`` are the scorers' own scores, one per scorer (engine/scorers.py:
    each row's first column), None when the answer did not read the question under that
    scorer. ``relevance`` is the policy scorer's share of the score (the cosine, BM25 over the
    best BM25, the similarity clipped at 0, or the RRF sum over its best, ``2 / (rrf_k +
    1)``), ``stage`` the stage (2, 3 or 4) that decides the outcome, ``rank`` its place
    under the policy's scorer and ``other_rank`` under the other one (None when out of
    scope); ``ranks`` gives the record's place among the candidates under each scorer the
    answer computed (None where that scorer does not match it). ``superseded_by`` names the
    record that supersedes a superseded one (None for any other). ``terms`` are the policy
    scorer's parts. ``score`` is None for a record that does not reach ranking under a blend
    that normalises over those that do; ``weighed`` gives, under such a blend, each of its
    terms (``Summary.weighing``) as [raw, normalised, weighted] for a record that reaches
    ranking (else None). Each key not marked is one of the slim answer's columns."""

    id: Annotated[str, STORE]
    tenant: Annotated[str, STORE]
    store: Annotated[str, STORE]
    session: Annotated[str, STORE]
    age_hours: Annotated[float, STORE]
    key: Annotated[str | None, STORE]
    text: Annotated[str, STORE]
    words: Annotated[int, OPENED]
    importance: Annotated[int, OPENED]
    cosine: float
    bm25: float
    similarity: float | None
    rrf: float | None
    relevance: float
    recency: float
    score: float | None
    weighed: list[list[float]] | None
    outcome: str
    stage: Annotated[int, OUTCOME]
    reason: str
    superseded_by: str | None
    rank: int | None
    other_rank: int | None
    ranks: dict[str, int | None]
    terms: Annotated[list[TermPart] | list[BM25Part] | list[EmbeddingPart] | list[FusionPart], PARTS]


class Result(Head, Summary):
    """The full result (the command line, ``api.run``): the head, every record in store
    order, then the summary; in JSON ``records`` comes between the two."""

    records: list[RecordResult]


class Answer(Head, Summary):
    """The slim answer a session sends the page (``Session.answer_json``): what the policy
    decides for each record, by columns in store order. In JSON, after the head: ``ids``,
    then one column per key of ``RecordResult`` not marked (``ANSWER_COLUMNS``: ``cosine``
    to ``ranks``, ``ranks`` as one column per scorer computed), then the summary and
    ``terms_key``, what the per-term parts depend on. It leaves out what the page holds
    already: the records' own fields (the store it opened), their word counts (the open
    reply; each record's recency is a column, since it counts from the policy's as-of), each outcome's stage (the outcome table); the per-term parts travel
    apart, and not at all when the page says it holds those of ``terms_key``."""

    ids: list[str]
    terms_key: str


class Measures(TypedDict):
    """How well one ranking and tray retrieve a question's supporting records, k being the
    policy's ``max_records`` (engine/evaluate.py states each formula): ``recall`` and
    ``precision`` at k, ``mrr`` (the reciprocal rank of the first supporting record), ``ndcg``
    at k (binary gains, log2 discount) and ``coverage`` (the share of them in the tray)."""

    recall: float
    precision: float
    mrr: float
    ndcg: float
    coverage: float


class Evaluated(TypedDict):
    """One question under one scorer in an evaluation: the ranking after scope (record ids,
    best first), the tray, the question's supporting records for the tenant, the place of the
    first of them in the ranking (None when none is ranked), how many of them are among the
    first k, and the measures (None when the question has no supporting record for the
    tenant: nothing to measure). ``outcomes`` gives each supporting record's outcome code
    under this scorer, in the order of ``supporting``."""

    question: str
    scorer: str
    ranking: list[str]
    tray: list[str]
    supporting: list[str]
    outcomes: dict[str, str]
    first_rank: int | None
    hits: int
    measures: Measures | None


class Unmeasured(TypedDict):
    """A question left out of an evaluation's means, and why."""

    question: str
    reason: str


class LeftOut(TypedDict):
    """A supporting record the policy's scope leaves out under every scorer: the questions
    it supports, and the outcome code of every scope check that leaves it out on its own, in
    the order the checks run (the first is its outcome). ``included`` says whether the
    evaluation's ``include`` settings let it in."""

    record: str
    questions: list[str]
    outcomes: list[str]
    included: bool


class OutOfScope(TypedDict):
    """Why supporting records are out of scope, and the settings that let them in: ``why``
    the sentence (the page and the command line say it as it is), ``include`` the policy
    fields to change and their values (empty when no wider setting lets any in), checked by
    the engine's scope checks, and ``include_text`` those changes in the controls' words."""

    left_out: list[LeftOut]
    why: str
    include: dict[str, Any]
    include_text: str


class Evaluation(TypedDict):
    """Every question of the store under every scorer, with the policy in force but its
    question (``api.evaluate``, ``python -m engine --evaluate --json``). ``k`` is the policy's
    ``max_records``; ``evaluation`` holds one entry per question and scorer, question by
    question in store order, scorers in the scorer table's order; ``means`` each scorer's mean
    measures over the ``measured`` questions (None when there are none), ``best`` per measure
    the scorers whose mean is highest (all of those tied at the top, none when every scorer
    ties or nothing is measured), ``unmeasured`` the questions left out of the means with the
    reason, ``out_of_scope`` the measured questions' supporting records the scope leaves out
    (None when it leaves none out); ``measure_names`` each measure's column heading, in the
    order tables show them."""

    policy: dict[str, Any]
    k: int
    measure_names: dict[str, str]
    evaluation: list[Evaluated]
    means: dict[str, Measures | None]
    best: dict[str, list[str]]
    measured: list[str]
    unmeasured: list[Unmeasured]
    out_of_scope: OutOfScope | None


class SweepPoint(TypedDict):
    """Each scorer's mean nDCG at k at one value of the field swept (None when nothing is measured)."""

    value: float
    ndcg: dict[str, float | None]


class Sweep(TypedDict):
    """An evaluation's mean nDCG per scorer as the policy ``field`` swept (the recency weight,
    or MMR's λ: ``fields.SWEPT``) goes from 0 to 1 in steps of 0.1, the rest of the policy
    as given (``evaluate.sweep_over``)."""

    policy: dict[str, Any]
    field: str
    k: int
    points: list[SweepPoint]


class VectorsLoaded(TypedDict):
    """The reply to loading a vector file (``api.load_embedding``): its vocabulary size and dimensions."""

    tokens: int
    dims: int


class Opened(TypedDict):
    """The reply to opening a store: its size, and each record's word count, importance and recency now."""

    records: int
    words: list[int]
    importance: list[int]
    recency: list[float]


class Problem(TypedDict):
    """One problem with the input: the path of the bad value (empty for the whole) and the rule."""

    path: str
    message: str


class ErrorBody(TypedDict):
    name: str
    message: str
    problems: list[Problem]


class ErrorResult(TypedDict):
    """What every entry point returns instead of a result when the input is bad (``name``
    says which input: InvalidStore, InvalidPolicy, InvalidRequest, InvalidJSON,
    MissingVectors or InvalidVectors, the static embedding's file) or the engine failed
    (InternalError, with no problems)."""

    error: ErrorBody


class FalseClaim(TypedDict):
    """A guided step's "Look for" naming what its answer does not hold (engine/claims.py):
    the guide's id, the step (from 1), the path of the sentence in the store, what it names
    (a number, a record id, "30 of 40", "M5's cosine 0.360"…), what the answer shows instead,
    and the two as one line (the command line's and the build's)."""

    guide: str
    step: int
    path: str
    named: str
    shows: str
    text: str


class UncheckedStep(TypedDict):
    """A guided step whose answer could not be made, so its "Look for" went unchecked, and why
    (the embedding's vectors not loaded, in the page, before a learner picks that scorer)."""

    guide: str
    step: int
    path: str
    why: str


class GuideCheck(TypedDict):
    """Every guided step of a store checked against its answer (``claims.check_guides``):
    the false claims, the steps left unchecked, how many steps and claims were checked."""

    claims: list[FalseClaim]
    unchecked: list[UncheckedStep]
    steps: int
    checked: int


class StoreCheck(GuideCheck):
    """A store given as text, checked (``api.check_store_json``): the parser's problems (the
    words and paths ``python -m engine --fixtures`` reports), then, only when there are none,
    its guided claims checked."""

    problems: list[Problem]


def _source(hint: Any) -> Source:
    return typing.cast(Source, hint.__metadata__[0]) if typing.get_origin(hint) is Annotated else ANSWER


# Each key of a record, in declared order, and where the page gets it.
RECORD_SOURCES: dict[str, Source] = {
    key: _source(hint) for key, hint in typing.get_type_hints(RecordResult, include_extras=True).items()
}
# The slim answer's columns, in order.
ANSWER_COLUMNS: tuple[str, ...] = tuple(key for key, source in RECORD_SOURCES.items() if source == ANSWER)


def _column(hint: Any) -> Any:
    """A record's value as a column in store order: a list, or a per-scorer value a list per scorer."""
    if typing.get_origin(hint) is dict:
        return types.GenericAlias(dict, (str, _column(typing.get_args(hint)[1])))
    return types.GenericAlias(list, (hint,))


def json_hints(shape: type) -> dict[str, Any]:
    """A shape's keys and their types in JSON order (a shape's bases first): for ``Answer``,
    its columns after ``ids``, each a list in store order, a per-scorer value a list per scorer."""
    hints = typing.get_type_hints(shape)
    if shape is not Answer:
        return hints
    record = typing.get_type_hints(RecordResult)
    columns = {key: _column(record[key]) for key in ANSWER_COLUMNS}
    keys = list(hints)
    at = keys.index("ids") + 1
    return {key: hints.get(key) or columns[key] for key in [*keys[:at], *columns, *keys[at:]]}


def blank_question() -> QuestionResult:
    """A question's keys in declared order, each empty (a list) or None: what an answer says
    for the keys of a scorer it did not read (the embedding's, under a lexical scorer)."""
    return typing.cast(QuestionResult, {key: [] if key in _QUESTION_LISTS else None for key in _QUESTION_KEYS})


_QUESTION_KEYS = tuple(typing.get_type_hints(QuestionResult))
_QUESTION_LISTS = frozenset(
    key for key, hint in typing.get_type_hints(QuestionResult).items() if typing.get_origin(hint) is list
)

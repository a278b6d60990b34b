"""The JSON shapes the engine hands out, declared once: results, answers, replies and errors.

This module is the one description of those shapes. ``session.py`` builds them as these
TypedDicts, so mypy checks every key it writes; the page's JSDoc types (``site/js``)
follow this module. The order of keys in JSON is the order a value is built in; where
that differs from the declared order (a shape made of ``Head`` and ``Summary``), the
shape's docstring says so. A result's ``policy`` is described by the field table
(``fields.FIELDS``, one key per row, in table order), not here.
"""

from __future__ import annotations

from typing import Any, TypedDict


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


class QuestionResult(TypedDict):
    """The question in force and how it was read. ``own`` is a learner's own text (its id
    is then empty); ``terms`` are its terms found in some record, ``dropped_terms`` those
    found in none (they count for nothing), ``stop_words`` the stop words it contained.
    ``best_bm25`` is the highest BM25 of any record for it: BM25 is blended as a share of it;
    ``average_length`` is the store's mean record length in terms, BM25's ``avg_len``."""

    id: str
    text: str
    own: bool
    terms: list[str]
    dropped_terms: list[str]
    stop_words: list[str]
    best_bm25: float
    average_length: float


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
    counts. ``ranked`` and ``selected`` are record ids, best first."""

    ranked: list[str]
    selected: list[str]
    words_used: int
    budget_words: int
    counts: Counts
    coverage: Coverage


class RecordResult(TypedDict):
    """One record in a full result: its own fields, its scores, its outcome and why.

    ``relevance`` is the policy scorer's share of the score (the cosine, or BM25 over the
    best BM25), ``stage`` the stage (2, 3 or 4) that decides the outcome, ``rank`` its
    place under the policy's scorer and ``other_rank`` under the other one (None when out
    of scope), ``terms`` the policy scorer's per-term parts."""

    id: str
    tenant: str
    store: str
    session: str
    age_hours: float
    key: str | None
    text: str
    words: int
    cosine: float
    bm25: float
    relevance: float
    recency: float
    score: float
    outcome: str
    stage: int
    reason: str
    rank: int | None
    other_rank: int | None
    terms: list[TermPart] | list[BM25Part]


class Result(Head, Summary):
    """The full result (the command line, ``api.run``): the head, every record in store
    order, then the summary; in JSON ``records`` comes between the two."""

    records: list[RecordResult]


class Columns(Head, Summary):
    """The slim answer but for its per-term parts: each column is in store order.

    In JSON the columns (``ids`` to ``other_rank``) come between the head and the
    summary, and ``terms_key`` after it."""

    ids: list[str]
    cosine: list[float]
    bm25: list[float]
    relevance: list[float]
    score: list[float]
    outcome: list[str]
    reason: list[str]
    rank: list[int | None]
    other_rank: list[int | None]
    terms_key: str


class Answer(Columns):
    """The slim answer a session sends the page, by columns in store order: what the
    policy decides for each record, and the question's cosines. It leaves out what the
    page already holds: the records' own fields (the store it opened), their word
    counts and recency (the open reply), each outcome's stage (the outcome table), and
    the per-term parts (``terms``, then None) when the page says it has those of
    ``terms_key`` already."""

    terms: list[list[TermPart]] | list[list[BM25Part]] | None


class Opened(TypedDict):
    """The reply to opening a store: its size, and each record's word count and recency."""

    records: int
    words: list[int]
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
    says which input: InvalidStore, InvalidPolicy, InvalidRequest, InvalidJSON) or the
    engine failed (InternalError, with no problems)."""

    error: ErrorBody

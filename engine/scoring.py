"""The scorers as an answer uses them, and the one formula that blends relevance with recency.

Each scorer reads the question against every record as a ``Scoring``: per record, its
relevance (in [0, 1], what the recency blend weighs), its parts (which add up to the
scorer's own score, for the breakdown), and whether the scorer matches it at all (a
record it does not match is out of scope, with the reason the scorer gives). A new
scorer is one more function that returns a ``Scoring``, and one more entry where the
session lists the scorers it computes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .bm25 import BM25Scores
from .scope import Exclusion
from .shapes import BM25Part, TermPart
from .tfidf import QuestionScores

# The kinds of per-record parts: each scorer has its own.
Part = TypeVar("Part", TermPart, BM25Part)


def recency(age_hours: float) -> float:
    """Half-life decay: 1 for a new record, 0.5 after a day, 0.25 after two."""
    return float(2.0 ** (-age_hours / 24.0))


def blend(relevance: float, recency_value: float, weight: float) -> float:
    """A record's score, ``(1 - w) * relevance + w * recency``, the relevance being the
    cosine or the relative BM25; w = 0 ranks on relevance alone."""
    return (1.0 - weight) * relevance + weight * recency_value


@dataclass(frozen=True)
class Scoring(Generic[Part]):
    """One scorer's reading of a question against every record, in store order.

    ``relevance`` is each record's share of the score before the recency blend, ``parts``
    its parts; ``unmatched(position)`` says why the scorer does not match the record at
    that position (the record is then out of scope), or None when it does."""

    scorer: str
    relevance: tuple[float, ...]
    parts: tuple[tuple[Part, ...], ...]
    unmatched: Callable[[int], Exclusion | None]

    def copied(self, position: int) -> list[Part]:
        """A record's parts as fresh dicts: a caller editing a result never changes the kept scores."""
        return [part.copy() for part in self.parts[position]]

    def all_copied(self) -> list[list[Part]]:
        """Every record's parts as fresh dicts, in store order."""
        return [[part.copy() for part in parts] for parts in self.parts]


AnyScoring = Scoring[TermPart] | Scoring[BM25Part]


def tfidf_scoring(scores: QuestionScores) -> Scoring[TermPart]:
    """TF-IDF: the cosine is the relevance; a record sharing no term (cosine 0) is not matched."""
    return Scoring("tfidf", scores.cosines, scores.parts, _unmatched_at_zero(scores.cosines, NO_SHARED_TERMS["tfidf"]))


def bm25_scoring(scores: BM25Scores) -> Scoring[BM25Part]:
    """BM25: the share of the best BM25 is the relevance; a record sharing no term (BM25 0)
    is not matched. Its parts are empty when it was scored without them (beside another
    scorer, only its ranking is shown)."""
    return Scoring("bm25", scores.relative, scores.parts, _unmatched_at_zero(scores.scores, NO_SHARED_TERMS["bm25"]))


def _unmatched_at_zero(scores: tuple[float, ...], exclusion: Exclusion) -> Callable[[int], Exclusion | None]:
    """The lexical scorers' test: a score of exactly 0 means no term is shared.

    Both lexical scores are 0 exactly when a record shares no term with the question
    (every shared term adds a positive part), so TF-IDF and BM25 match the same records."""

    def unmatched(position: int) -> Exclusion | None:
        return exclusion if scores[position] == 0.0 else None

    return unmatched


# The reason names the score the learner is looking at.
NO_SHARED_TERMS = {
    "tfidf": Exclusion(
        "no_shared_terms",
        "Shares no term with the question (cosine 0), so it is excluded at any recency weight.",
    ),
    "bm25": Exclusion(
        "no_shared_terms",
        "Shares no term with the question (BM25 0), so it is excluded at any recency weight.",
    ),
}

"""The scorers as an answer uses them, and the one formula that blends relevance with recency.

Each scorer reads the question against every record as a ``Scoring``: per record, its
relevance (in [0, 1], what the recency blend weighs), its parts (which add up to the
scorer's own score, for the breakdown), and whether the scorer matches it at all (a
record it does not match is out of scope, with the reason the scorer gives). A new
scorer is one more function that returns a ``Scoring``, and one more entry where the
session lists the scorers it computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from .bm25 import BM25Scores
from .scope import Exclusion
from .shapes import BM25Part, EmbeddingPart, FusionPart, TermPart
from .tfidf import QuestionScores

if TYPE_CHECKING:
    from .semantic import EmbeddingScores  # imported with the vectors (session.py)

# The kinds of per-record parts: each scorer has its own.
Part = TypeVar("Part", TermPart, BM25Part, EmbeddingPart, FusionPart)


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
        return [_fresh(part) for part in self.parts[position]]

    def all_copied(self) -> list[list[Part]]:
        """Every record's parts as fresh dicts, in store order."""
        return [[_fresh(part) for part in parts] for parts in self.parts]


def _fresh(part: Part) -> Part:
    """A copy of a part, its nested lists (an embedding part's closest tokens) copied too."""
    copy = part.copy()
    if "closest" in copy:
        copy["closest"] = [near.copy() for near in copy["closest"]]  # type: ignore[typeddict-item]
    return copy


AnyScoring = Scoring[TermPart] | Scoring[BM25Part] | Scoring[EmbeddingPart] | Scoring[FusionPart]


def tfidf_scoring(scores: QuestionScores) -> Scoring[TermPart]:
    """TF-IDF: the cosine is the relevance; a record sharing no term (cosine 0) is not matched."""
    return Scoring("tfidf", scores.cosines, scores.parts, _unmatched_at_zero(scores.cosines, NO_SHARED_TERMS["tfidf"]))


def bm25_scoring(scores: BM25Scores, relative: tuple[float, ...]) -> Scoring[BM25Part]:
    """BM25: the share of the best BM25 (``relative``, bm25.shares_within) is the relevance;
    a record sharing no term (BM25 0) is not matched. Its parts are empty when it was
    scored without them (beside another scorer, only its ranking is shown)."""
    return Scoring("bm25", relative, scores.parts, _unmatched_at_zero(scores.scores, NO_SHARED_TERMS["bm25"]))


def embedding_scoring(
    scores: EmbeddingScores, minimum: float, parts: tuple[tuple[EmbeddingPart, ...], ...]
) -> Scoring[EmbeddingPart]:
    """The static embedding: the similarity clipped at 0 is the relevance; a record whose
    similarity is under ``minimum`` is not matched."""
    similarity = scores.similarity
    made: dict[float, Exclusion] = {}

    def unmatched(position: int) -> Exclusion | None:
        value = similarity[position]
        if value >= minimum:
            return None
        exclusion = made.get(value)
        if exclusion is None:
            exclusion = made[value] = below_similarity(value, minimum)
        return exclusion

    return Scoring("embedding", tuple(max(0.0, value) for value in similarity), parts, unmatched)


@dataclass(frozen=True)
class Fusion:
    """Hybrid's reading: the Reciprocal Rank Fusion sum of every record in scope (None for
    the others, which no ranking holds), and its scoring."""

    rrf: tuple[float | None, ...]
    scoring: Scoring[FusionPart]


def fuse(
    bm25: BM25Scores,
    relative: tuple[float, ...],
    embedding: EmbeddingScores,
    in_scope: list[int],
    minimum: float,
    k: int,
) -> Fusion:
    """Hybrid: Reciprocal Rank Fusion of the BM25 ranking (records in scope with BM25 above 0)
    and the embedding's (records in scope with similarity at least ``minimum``), each
    ordered by its own relevance::

        rrf = Σ over the rankings that hold the record of 1 / (k + rank)

    Records tied on relevance share the best of their ranks, so a fused score never
    depends on the order of the store. The relevance blended with recency is ``rrf`` over
    its best possible value, ``2 / (k + 1)`` (first in both rankings). A record in neither
    ranking is not matched."""
    size = len(bm25.scores)
    lexical = _ranks([p for p in in_scope if bm25.scores[p] > 0.0], relative)
    meaning = _ranks([p for p in in_scope if embedding.similarity[p] >= minimum], embedding.similarity)
    best = 2.0 / (k + 1)
    rrf: list[float | None] = [None] * size
    relevance = [0.0] * size
    parts: list[tuple[FusionPart, ...]] = [()] * size
    for position in in_scope:
        made: list[FusionPart] = []
        for scorer, ranks, values in (("bm25", lexical, relative), ("embedding", meaning, embedding.similarity)):
            place = ranks.get(position)
            if place is not None:
                made.append(
                    {
                        "scorer": scorer,
                        "rank": place,
                        "relevance": max(0.0, values[position]),
                        "contribution": 1.0 / (k + place),
                    }
                )
        total = math.fsum(part["contribution"] for part in made)
        rrf[position] = total
        relevance[position] = total / best
        parts[position] = tuple(made)
    similarity = embedding.similarity

    def unmatched(position: int) -> Exclusion | None:
        if parts[position]:
            return None
        return in_neither_ranking(similarity[position], minimum)

    return Fusion(tuple(rrf), Scoring("hybrid", tuple(relevance), tuple(parts), unmatched))


def _ranks(positions: list[int], relevance: tuple[float, ...]) -> dict[int, int]:
    """Each position's rank by relevance, best first; tied positions share the best rank."""
    ranks: dict[int, int] = {}
    value, rank = math.nan, 0
    for place, position in enumerate(sorted(positions, key=lambda p: (-relevance[p], p)), start=1):
        if relevance[position] != value:
            value, rank = relevance[position], place
        ranks[position] = rank
    return ranks


def similarity_text(value: float, minimum: float) -> tuple[str, str]:
    """The similarity and the minimum to three places, or more where three would show them equal."""
    for places in range(3, 10):
        shown, limit = f"{value:.{places}f}", f"{minimum:.{places}f}"
        if shown != limit:
            return shown, limit
    return repr(value), repr(minimum)


def below_similarity(value: float, minimum: float) -> Exclusion:
    shown, limit = similarity_text(value, minimum)
    return Exclusion(
        "below_similarity",
        f"Similarity {shown} is under the minimum {limit}, so it is excluded at any recency weight.",
    )


def in_neither_ranking(value: float, minimum: float) -> Exclusion:
    shown, limit = similarity_text(value, minimum)
    return Exclusion(
        "below_similarity",
        f"Shares no term with the question (BM25 0) and its similarity {shown} is under the minimum {limit}: "
        "neither ranking holds it, so it is excluded at any recency weight.",
    )


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

"""The hybrid scorer: Reciprocal Rank Fusion of the rankings of the scorers it needs
(engine/scorers.py: BM25's and the static embedding's), each of the records in scope that
scorer matches, ordered by its own relevance::

    rrf = Σ over the rankings that hold the record of 1 / (k + rank)

Records tied on relevance share the best of their ranks, so a fused score never depends
on the order of the store. The relevance blended with recency is ``rrf`` over its best
possible value, ``n / (k + 1)`` for n rankings (first in all of them). A record in no
ranking is not matched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

from .scope import Exclusion
from .scoring import AnyScoring, Asking, Scoring
from .semantic import similarity_text
from .shapes import FusionPart


def read(asking: Asking, ranks: bool, needed: Sequence[AnyScoring]) -> Scoring[FusionPart]:
    """Hybrid's reading: the fusion of BM25's ranking and the embedding's (``needed``, in that
    order), kept by terms key, since it depends on which records the scope keeps."""
    meaning = needed[1]
    policy = asking.policy

    def neither(position: int) -> Exclusion:
        return in_neither_ranking(cast(float, meaning.column[position]), policy.min_similarity)

    return asking.session.keep("hybrid", asking.terms_key, lambda: fuse(needed, asking.in_scope, policy.rrf_k, neither))


def fuse(
    rankings: Sequence[AnyScoring], in_scope: list[int], k: int, neither: Callable[[int], Exclusion]
) -> Scoring[FusionPart]:
    """The fused scoring of ``rankings`` over the records in scope; ``neither`` says why a
    record no ranking holds is not matched."""
    size = len(rankings[0].relevance)
    ranked = [
        (each.scorer, _ranks([p for p in in_scope if each.unmatched(p) is None], each.relevance), each.relevance)
        for each in rankings
    ]
    best = len(rankings) / (k + 1)
    rrf: list[float | None] = [None] * size
    relevance = [0.0] * size
    parts: list[tuple[FusionPart, ...]] = [()] * size
    for position in in_scope:
        made: list[FusionPart] = []
        for scorer, places, values in ranked:
            place = places.get(position)
            if place is not None:
                made.append(
                    {"scorer": scorer, "rank": place, "relevance": values[position], "contribution": 1.0 / (k + place)}
                )
        total = math.fsum(part["contribution"] for part in made)
        rrf[position] = total
        relevance[position] = total / best
        parts[position] = tuple(made)

    def unmatched(position: int) -> Exclusion | None:
        return None if parts[position] else neither(position)

    return Scoring("hybrid", tuple(relevance), tuple(parts), unmatched, tuple(rrf))


def _ranks(positions: list[int], relevance: Sequence[float]) -> dict[int, int]:
    """Each position's rank by relevance, best first; tied positions share the best rank."""
    ranks: dict[int, int] = {}
    value, rank = math.nan, 0
    for place, position in enumerate(sorted(positions, key=lambda p: (-relevance[p], p)), start=1):
        if relevance[position] != value:
            value, rank = relevance[position], place
        ranks[position] = rank
    return ranks


def in_neither_ranking(value: float, minimum: float) -> Exclusion:
    shown, limit = similarity_text(value, minimum)
    return Exclusion(
        "below_similarity",
        f"Shares no term with the question (BM25 0) and its similarity {shown} is under the minimum {limit}: "
        "neither ranking holds it, so it is excluded at any recency weight.",
    )

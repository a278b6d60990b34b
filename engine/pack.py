"""Ranking and greedy packing of the in-scope candidates into the context tray.

Candidates are visited best first. Once ``max_records`` are selected the rest are
cut by the record limit; a record longer than the words that remain is skipped and
packing goes on with the next. Records are never truncated, and the result is not an
optimal packing: a learner can see a smaller, lower-ranked record take the space.
``pack`` is the greedy packing rule of engine/scorers.py's PACKINGS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import number, ordinal

if TYPE_CHECKING:
    from .scoring import Asking


@dataclass(frozen=True)
class Candidate:
    id: str
    position: int  # order in the store, the last tie-breaker
    words: int
    relevance: float  # the scorer's share of the score: the cosine, or BM25 relative to the best
    score: float


@dataclass(frozen=True)
class Packed:
    id: str
    rank: int
    outcome: str
    reason: str


def rank(candidates: list[Candidate]) -> list[Candidate]:
    """Best first: higher score, then higher relevance, then earlier in the store."""
    return sorted(candidates, key=lambda c: (-c.score, -c.relevance, c.position))


def pack(ranked: list[Candidate], asking: Asking) -> list[Packed]:
    """Visit ranked candidates once, deciding each one's place in the tray."""
    budget_words, max_records = asking.policy.budget_words, asking.policy.max_records
    remaining = budget_words
    selected = 0
    packed: list[Packed] = []
    for place, candidate in enumerate(ranked, start=1):
        standing = f"Ranked {ordinal(place)} (score {number(candidate.score)})"
        if selected >= max_records:
            outcome = "record_limit"
            reason = (
                f"{standing}, but the tray already holds {max_records} "
                f"record{'s' if max_records != 1 else ''}, the maximum."
            )
        elif candidate.words > remaining:
            outcome = "over_budget"
            reason = (
                f"{standing}, but needs {candidate.words} words and only {remaining} of "
                f"the {budget_words}-word budget remain; skipped, not truncated."
            )
        else:
            remaining -= candidate.words
            selected += 1
            outcome = "selected"
            reason = f"{standing}; its {candidate.words} words fit, leaving {remaining} of {budget_words}."
        packed.append(Packed(candidate.id, place, outcome, reason))
    return packed

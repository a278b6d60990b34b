"""The Generative Agents blend (Park et al., 2023): recency, importance and relevance, each
min-max normalised over the records that reach ranking, then weighted.

For the records ``R`` that reach ranking under the scorer in force (in scope, and matched by
it), and each term ``x`` of a record ``r``::

    recency(r)    = decay ** age_hours(r)          (the policy's ga_decay, 0.995 by default)
    importance(r) = the record's importance, 1 to 10
    relevance(r)  = the scorer's relevance (cosine, BM25 share, similarity or RRF share)
    x'(r)         = (x(r) - min over R of x) / (max over R of x - min over R of x),
                    or 0.5 for every record when the max equals the min
    score(r)      = wr * recency'(r) + wi * importance'(r) + wv * relevance'(r)

The 0.5 for a term equal across ``R`` is what the published code's ``normalize_dict_floats``
gives (target range 0 to 1). Unlike the seed blend, a record's score depends on which other
records reach ranking: adding or removing one can move every score. A record that does not
reach ranking is not normalised, and has no score. ``weigh`` is the blend's row in
engine/scorers.py's BLENDS.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .scoring import Asking, Weigh
from .shapes import WeighedTerm, Weighing

# Each term's name and how its raw value is made, in the order scores add them up.
TERMS: tuple[tuple[str, str], ...] = (
    ("recency", "decay ^ age in hours"),
    ("importance", "the record's importance, 1 to 10"),
    ("relevance", "the scorer's relevance"),
)


@dataclass(frozen=True)
class Term:
    """One term over the records normalised: each one's raw and normalised value, in their order."""

    raw: list[float]
    normalised: list[float]
    low: float | None
    high: float | None


def normalise(values: list[float]) -> Term:
    """Min-max to [0, 1]; every value 0.5 when they are all equal."""
    if not values:
        return Term([], [], None, None)
    low, high = min(values), max(values)
    spread = high - low
    if spread == 0:
        return Term(values, [0.5] * len(values), low, high)
    return Term(values, [(value - low) / spread for value in values], low, high)


def _terms(asking: Asking, relevance: Sequence[float], positions: list[int]) -> list[Term]:
    session, decay = asking.session, asking.policy.ga_decay
    ages, importance, as_of = session.ages, session.importance, asking.policy.as_of_hours
    return [
        # Ages count from the moment asked (the policy's as-of; 0: now, the ages as they are).
        normalise([decay ** (ages[i] - as_of) for i in positions]),
        normalise([float(importance[i]) for i in positions]),
        normalise([relevance[i] for i in positions]),
    ]


def _weights(asking: Asking) -> tuple[float, float, float]:
    policy = asking.policy
    return policy.ga_recency_weight, policy.ga_importance_weight, policy.ga_relevance_weight


def weigh(asking: Asking) -> Weigh:
    """The scores of the records at the positions given, normalised over those positions:
    a session asks with the records that reach ranking under a scorer."""
    wr, wi, wv = _weights(asking)

    def scores(relevance: Sequence[float], positions: Iterable[int]) -> list[float]:
        recency, importance, relevant = _terms(asking, relevance, list(positions))
        return [
            wr * r + wi * i + wv * v
            for r, i, v in zip(recency.normalised, importance.normalised, relevant.normalised, strict=True)
        ]

    return scores


def weighed(
    asking: Asking, relevance: Sequence[float], positions: list[int]
) -> tuple[Weighing | None, dict[int, list[list[float]]]]:
    """What the breakdown shows: each term's name, weight and bounds, and for each record
    normalised over, each term as [raw, normalised, weighted]."""
    weights = _weights(asking)
    terms = _terms(asking, relevance, positions)
    described: list[WeighedTerm] = [
        {"term": name, "raw": raw, "weight": weight, "low": term.low, "high": term.high}
        for (name, raw), weight, term in zip(TERMS, weights, terms, strict=True)
    ]
    each = {
        position: [
            [term.raw[k], term.normalised[k], weight * term.normalised[k]]
            for term, weight in zip(terms, weights, strict=True)
        ]
        for k, position in enumerate(positions)
    }
    return {"blend": asking.policy.blend, "over": len(positions), "terms": described}, each

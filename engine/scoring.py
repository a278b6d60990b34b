"""What every scorer's reading of a question is, what a scorer reads it with, and the seed
blend of relevance with recency.

Each scorer reads the question against every record as a ``Scoring``: per record, its
relevance (in [0, 1], what the blend weighs), its parts (which add up to the scorer's own
score, for the breakdown), its own score (the answer's column), and whether the scorer
matches it at all (a record it does not match is out of scope, with the reason the
scorer gives); and what it adds to the answer's question, and says of it. A scorer's
module makes one with ``read(asking, ranks, needed)`` (engine/scorers.py names the module).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from .scope import Exclusion
from .shapes import BM25Part, EmbeddingPart, FusionPart, ReadingClaim, TermPart

if TYPE_CHECKING:
    from .embedding import StaticEmbedding
    from .model import Policy
    from .reading import Negation

# The kinds of per-record parts: each scorer has its own.
Part = TypeVar("Part", TermPart, BM25Part, EmbeddingPart, FusionPart)


def recency(age_hours: float) -> float:
    """Half-life decay: 1 for a new record, 0.5 after a day, 0.25 after two."""
    return float(2.0 ** (-age_hours / 24.0))


def blend(relevance: float, recency_value: float, weight: float) -> float:
    """A record's score, ``(1 - w) * relevance + w * recency``, the relevance being the
    cosine or the relative BM25; w = 0 ranks on relevance alone."""
    return (1.0 - weight) * relevance + weight * recency_value


# A blend's scores: for a scorer's relevance (every record's, in store order), the score of
# each record at the positions given, in their order.
Weigh = Callable[[Sequence[float], Iterable[int]], list[float]]


def weigh(asking: Asking) -> Weigh:
    """The seed blend (engine/scorers.py BLENDS): ``blend`` with the policy's recency weight."""
    fresh, weight = asking.moment.recency, asking.policy.recency_weight
    keep = 1.0 - weight

    def scores(relevance: Sequence[float], positions: Iterable[int]) -> list[float]:
        # blend's expression inlined, the same floats: this runs for every record.
        return [keep * relevance[i] + weight * fresh[i] for i in positions]

    return scores


def weighed(
    asking: Asking, relevance: Sequence[float], positions: list[int]
) -> tuple[None, dict[int, list[list[float]]]]:
    """The seed blend shows its two numbers in the answer's own columns: nothing more to say."""
    return None, {}


@dataclass(frozen=True)
class First:
    """The record ranked first, for what a scorer says of the question: its id, its position
    in the store and the scorer that ranked it."""

    id: str
    position: int
    ranker: str


@dataclass(frozen=True)
class Scoring(Generic[Part]):
    """One scorer's reading of a question against every record, in store order.

    ``relevance`` is each record's share of the score before the blend, ``parts`` its
    parts and ``column`` the scorer's own score (the answer's column: the cosine, BM25,
    similarity or RRF sum, None where the scorer gives none); ``unmatched(position)`` says
    why the scorer does not match the record at that position (the record is then out of
    scope), or None when it does. ``question(policy)`` gives what it adds to the answer's
    question (keys of ``shapes.QuestionResult``), and ``claims`` what it says of the
    question's reading beyond its words, given the question's negations and the record
    ranked first. A session may keep a reading for the next answer that asks the same."""

    scorer: str
    relevance: Sequence[float]
    parts: tuple[tuple[Part, ...], ...]
    unmatched: Callable[[int], Exclusion | None]
    column: Sequence[float | None]
    question: Callable[[Policy], Mapping[str, Any]] = lambda policy: {}
    claims: Callable[[Sequence[Negation], First | None], list[ReadingClaim]] | None = None

    def copied(self, position: int) -> list[Part]:
        """A record's parts as fresh dicts: a caller editing a result never changes the kept scores."""
        return [_fresh(part) for part in self.parts[position]]


def _fresh(part: Part) -> Part:
    """A copy of a part, its nested lists (an embedding part's closest tokens) copied too."""
    copy = part.copy()
    if "closest" in copy:
        copy["closest"] = [near.copy() for near in copy["closest"]]  # type: ignore[typeddict-item]
    return copy


AnyScoring = Scoring[TermPart] | Scoring[BM25Part] | Scoring[EmbeddingPart] | Scoring[FusionPart]


V = TypeVar("V")


class Holder(Protocol):
    """What a session holds for its scorers, blend and packing rule: the store's records, in
    store order, the static embedding (which raises InputError when none is loaded), and
    ``keep`` for what they make of them once and read again (a scorer's index of the store,
    its reading of the last few questions)."""

    texts: list[str]
    ids: list[str]
    tenants: list[str]
    recency: list[float]
    ages: list[float]
    importance: list[int]

    def embedding(self) -> StaticEmbedding: ...

    def keep(self, kind: str, key: Hashable, make: Callable[[], V]) -> V: ...


@dataclass(frozen=True)
class Moment:
    """The store as the agent had it ``hours`` ago (0: now). ``written`` holds the positions
    of the records that existed then, in store order (None: every record), ``recency`` each
    record's recency with its age counted from then, and ``index_key`` names the records
    that existed (the youngest one's age; None when every record did): two moments with
    the same records share one index of the store."""

    hours: float
    written: tuple[int, ...] | None
    recency: Sequence[float]
    index_key: float | None


def moment(ages: Sequence[float], hours: float, now: Sequence[float]) -> Moment:
    """The moment ``hours`` ago of a store whose records are ``ages`` hours old (``now``:
    their recency now, which a moment with every record existing keeps, the same floats)."""
    if hours == 0 or all(age >= hours for age in ages):
        fresh = now if hours == 0 else [recency(age - hours) for age in ages]
        return Moment(hours, None, fresh, None)
    written = tuple(position for position, age in enumerate(ages) if age >= hours)
    youngest = min((ages[position] for position in written), default=math.inf)
    # A record not yet written has no recency then; 0, as if infinitely far in the future.
    fresh = [recency(age - hours) if age >= hours else 0.0 for age in ages]
    return Moment(hours, written, fresh, youngest)


@dataclass(frozen=True)
class Asking:
    """One policy's question to a session, as every scorer reads it: the question's text, the
    key of what the per-record parts depend on (``Session._terms_key``), the records in
    scope (past the scope filters, before any scorer's test), and the moment asked about
    (the policy's as-of: the records that existed then, and recency counted from then)."""

    session: Holder
    policy: Policy
    text: str
    terms_key: str
    in_scope: list[int]
    moment: Moment


def unmatched_at_zero(scores: Sequence[float], exclusion: Exclusion) -> Callable[[int], Exclusion | None]:
    """The lexical scorers' test: a score of exactly 0 means no term is shared.

    Both lexical scores are 0 exactly when a record shares no term with the question
    (every shared term adds a positive part), so TF-IDF and BM25 match the same records."""

    def unmatched(position: int) -> Exclusion | None:
        return exclusion if scores[position] == 0.0 else None

    return unmatched

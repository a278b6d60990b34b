"""Maximal marginal relevance (Carbonell and Goldstein, 1998): a tray of records that are
relevant but not repeats of each other.

The tray is filled in turn. At each turn every ranked record not yet decided has the value

    value(r) = λ × score(r) − (1 − λ) × max over tray records t of likeness(r, t)

(the max is 0 while the tray is empty), likeness being the cosine of the two records under
the scorer in force (engine/scorers.py names the module: TF-IDF vectors for the lexical
scorers, embedding vectors for embedding and hybrid). The record of highest value that fits
the words that remain is put in the tray; ties go to the better ranked. Each record of
higher value that does not fit is skipped, with its reason, as the greedy packing skips one:
no later turn can give it the words back. Packing stops when the tray holds ``max_records``
or nothing left fits. A record left out that is ranked above a record picked instead was
passed over for its likeness: its reason names the tray record it most resembled at that
turn, by how much, and the value that beat it. λ = 1 picks as the greedy packing does (the
policy then packs greedily, engine/pack.py). ``pack`` is the "mmr" row of PACKINGS.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .pack import Candidate, Packed
from .scorers import SCORERS_BY_ID
from .text import number, ordinal

if TYPE_CHECKING:
    from .scoring import Asking


@dataclass(frozen=True)
class _Passed:
    """The first turn a better-ranked record lost: to whom, and the numbers."""

    turn: int
    winner: str
    winner_value: float
    value: float
    like: str
    likeness: float


def values_apart(a: float, b: float) -> tuple[str, str]:
    """Two values to three places, or more where three would show them equal."""
    for places in range(3, 10):
        first, second = f"{a:.{places}f}", f"{b:.{places}f}"
        if first != second:
            return first, second
    return repr(a), repr(b)


def pack(ranked: list[Candidate], asking: Asking) -> list[Packed]:
    """Each candidate's outcome and reason, in the order the packing decided them: the
    records tried at each turn (those skipped, then the one picked), then those never tried,
    best ranked first."""
    policy = asking.policy
    lam, budget, limit = policy.mmr_lambda, policy.budget_words, policy.max_records
    rest = 1.0 - lam
    module = importlib.import_module(f"{__package__}.{SCORERS_BY_ID[policy.scorer].likeness}")
    like = module.likeness(asking)
    weights = f"{lam:g} × score − {rest:g} × likeness"
    undecided = list(range(len(ranked)))  # places in the ranking, best first
    most = [0.0] * len(ranked)
    most_like: list[str | None] = [None] * len(ranked)
    passed: dict[int, _Passed] = {}
    packed: list[Packed] = []
    remaining, turn = budget, 0

    def standing(k: int) -> str:
        return f"Ranked {ordinal(k + 1)} (score {number(ranked[k].score)})"

    def working(k: int, value: float) -> str:
        if most_like[k] is None:
            return f"{lam:g} × {number(ranked[k].score)} − {rest:g} × 0 = {number(value)}, the tray being empty"
        return (
            f"{lam:g} × {number(ranked[k].score)} − {rest:g} × {number(most[k])} = {number(value)}, "
            f"{number(most[k])} being its likeness to {most_like[k]}, the tray record it most resembles"
        )

    while undecided and turn < limit:
        value = {k: lam * ranked[k].score - rest * most[k] for k in undecided}
        fitting = [k for k in undecided if ranked[k].words <= remaining]
        # Ties to the better ranked: the lower place.
        picked = min(fitting, key=lambda k: (-value[k], k)) if fitting else None
        skipped = sorted(
            (
                k
                for k in undecided
                if ranked[k].words > remaining and (picked is None or (-value[k], k) < (-value[picked], picked))
            ),
            key=lambda k: (-value[k], k),
        )
        for k in skipped:
            packed.append(
                Packed(
                    ranked[k].id,
                    k + 1,
                    "over_budget",
                    f"{standing(k)}; tried for the tray's {ordinal(turn + 1)} place at value {weights} = "
                    f"{working(k, value[k])}, but it needs {ranked[k].words} words and only {remaining} of the "
                    f"{budget}-word budget remain; skipped, not truncated.",
                )
            )
        if picked is None:
            undecided = []
            break
        turn += 1
        remaining -= ranked[picked].words
        packed.append(
            Packed(
                ranked[picked].id,
                picked + 1,
                "selected",
                f"{standing(picked)}; picked {ordinal(turn)} for the tray at the highest value, {weights} = "
                f"{working(picked, value[picked])}; its {ranked[picked].words} words fit, leaving {remaining} of {budget}.",
            )
        )
        gone = set(skipped) | {picked}
        undecided = [k for k in undecided if k not in gone]
        for k in undecided:
            if k < picked and k not in passed:
                passed[k] = _Passed(turn, ranked[picked].id, value[picked], value[k], most_like[k] or "", most[k])
        for k in undecided:
            alike = like(ranked[k].position, ranked[picked].position)
            if alike > most[k]:
                most[k], most_like[k] = alike, ranked[picked].id
    for k in undecided:
        lost = passed.get(k)
        if lost is None:
            packed.append(
                Packed(
                    ranked[k].id,
                    k + 1,
                    "record_limit",
                    f"{standing(k)}, but the tray already holds {limit} record{'s' if limit != 1 else ''}, the maximum.",
                )
            )
            continue
        mine, theirs = values_apart(lost.value, lost.winner_value)
        packed.append(
            Packed(
                ranked[k].id,
                k + 1,
                "too_similar",
                f"{standing(k)}, but {number(lost.likeness)} alike to {lost.like}, already in the tray: "
                f"{weights} = {lam:g} × {number(ranked[k].score)} − {rest:g} × {number(lost.likeness)} = {mine}, "
                f"under {lost.winner}'s {theirs}, so {lost.winner} was picked {ordinal(lost.turn)} for the tray instead.",
            )
        )
    return packed

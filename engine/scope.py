"""Scope policies: which records may be considered at all, before any ranking.

The checks run in a fixed order and a record's outcome is the first that applies:
not_written_yet, other_tenant, not_true_yet, superseded, store_filtered,
previous_session, too_old. What they keep is
in scope; the policy scorer's own test of whether it matches a record at all
(no_shared_terms for the lexical scorers, ``Scoring.unmatched``) comes after them, once a
session has read the question. Each exclusion comes with a sentence that gives its numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from .fields import FIELDS_BY_NAME
from .model import Policy, Record, Store
from .recent import Recent
from .text import hours


@dataclass(frozen=True)
class Exclusion:
    outcome: str
    reason: str
    # The record that supersedes this one (a superseded record only).
    by: str | None = None


def newest_by_key(records: tuple[Record, ...]) -> dict[tuple[str, str], Record]:
    """The newest record of each (tenant, key); the first in store order wins a tie."""
    newest: dict[tuple[str, str], Record] = {}
    for record in records:
        if record.key is None:
            continue
        slot = (record.tenant, record.key)
        if slot not in newest or record.age_hours < newest[slot].age_hours:
            newest[slot] = record
    return newest


def later_by(clock: str) -> Callable[[Record], float]:
    """A record's hours ago by the clock that makes a fact the latest: when it was written
    (``written``) or when it became true (``true``); the fewest hours ago is the latest."""
    if clock == "true":
        return lambda record: record.true_since_hours
    return lambda record: record.age_hours


def newer_at(records: Sequence[Record], as_of: float, clock: str) -> list[Record | None]:
    """For each record, the record of its tenant and key that is strictly later by ``clock``
    among those that existed ``as_of`` hours ago (and, by the time true, were true by then),
    or None. The first in store order wins a tie; two records equally late both stay."""
    time = later_by(clock)
    latest: dict[tuple[str, str], Record] = {}
    for record in records:
        if record.key is None or record.age_hours < as_of or (clock == "true" and record.true_since_hours < as_of):
            continue
        slot = (record.tenant, record.key)
        if slot not in latest or time(record) < time(latest[slot]):
            latest[slot] = record
    found: list[Record | None] = []
    for record in records:
        best = None if record.key is None else latest.get((record.tenant, record.key))
        found.append(None if best is None or time(best) >= time(record) else best)
    return found


class ScopeChecker:
    """The scope checks for one store.

    Each sentence depends on a few values only (the two tenants, the two stores, an
    age and the limit), and a large store repeats them record after record; so each
    exclusion is made once per distinct set of values and shared. The store's newest
    record per key does not depend on the policy and is found once.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        newest = newest_by_key(store.records)
        # Strictly newer only: two records of the same age both stay.
        self.newer: list[Record | None] = [
            None
            if record.key is None or newest[(record.tenant, record.key)].age_hours >= record.age_hours
            else newest[(record.tenant, record.key)]
            for record in store.records
        ]
        # Who supersedes whom at another moment or by the other clock, for the last few asked.
        self._newer_at: Recent[tuple[float, str], list[Record | None]] = Recent(8)
        self._made: dict[Hashable, Exclusion] = {}
        self.by_tenant: dict[str, list[int]] = {}
        for position, record in enumerate(store.records):
            self.by_tenant.setdefault(record.tenant, []).append(position)

    def _exclusion(self, key: Hashable, make: Callable[[], Exclusion]) -> Exclusion:
        found = self._made.get(key)
        if found is None:
            if len(self._made) > 4 * len(self.newer) + 64:  # ages against many limits tried
                self._made.clear()
            found = self._made[key] = make()
        return found

    def check_all(self, policy: Policy) -> tuple[list[Exclusion | None], list[int]]:
        """``check`` for every record, in store order, and the positions in scope.

        Another tenant's records are excluded a tenant at a time; only the active
        tenant's records go through the checks one by one.
        """
        exclusions: list[Exclusion | None] = [None] * len(self.newer)
        in_scope: list[int] = []
        for tenant, positions in self.by_tenant.items():
            if tenant == policy.tenant or policy.as_of_hours > 0:
                for position in positions:
                    exclusion = self.check(position, policy)
                    if exclusion is None:
                        in_scope.append(position)
                    else:
                        exclusions[position] = exclusion
            else:
                excluded = other_tenant(self.store.records[positions[0]], policy, self.store)
                for position in positions:
                    exclusions[position] = excluded
        in_scope.sort()
        return exclusions, in_scope

    def check(self, position: int, policy: Policy) -> Exclusion | None:
        """Why the record at ``position`` is out of scope, or None when it is in scope."""
        record = self.store.records[position]
        as_of = policy.as_of_hours
        # A record written after the moment asked about did not exist then: not even its
        # tenant is known to the agent.
        if record.age_hours < as_of:
            return self._exclusion(("not_written_yet", record.age_hours, as_of), lambda: not_written_yet(record, as_of))
        if record.tenant != policy.tenant:
            return self._exclusion(
                ("other_tenant", record.tenant, policy.tenant), lambda: other_tenant(record, policy, self.store)
            )
        clock = policy.latest_by
        if clock == "true" and record.true_since_hours < as_of:
            return self._exclusion(
                ("not_true_yet", record.true_since_hours, record.age_hours, as_of), lambda: not_true_yet(record, as_of)
            )
        newer = self.newer[position] if as_of == 0 and clock == "written" else self.newer_at(as_of, clock)[position]
        if policy.latest_per_key and newer is not None:
            # The newer record wins even if a later filter excludes it, so a stale fact
            # never comes back.
            later = newer
            return self._exclusion(
                ("superseded", position, later.id, as_of, clock), lambda: superseded(record, later, as_of, clock)
            )
        if policy.store != "all" and record.store != policy.store:
            return self._exclusion(
                ("store_filtered", record.store, policy.store), lambda: store_filtered(record, policy)
            )
        if record.session == "previous" and not policy.previous_sessions:
            return PREVIOUS_SESSION
        if record.age_hours - as_of > policy.max_age_hours:
            return self._exclusion(
                ("too_old", record.age_hours, policy.max_age_hours, as_of), lambda: too_old(record, policy)
            )
        return None

    def newer_at(self, as_of: float, clock: str) -> list[Record | None]:
        """``newer_at`` of the store's records, kept for the last few moments and clocks asked."""
        return self._newer_at.get((as_of, clock), lambda: newer_at(self.store.records, as_of, clock))


def other_tenant(record: Record, policy: Policy, store: Store) -> Exclusion:
    return Exclusion(
        "other_tenant",
        f"Belongs to {store.tenant_label(record.tenant)}; the active tenant is "
        f"{store.tenant_label(policy.tenant)}, a hard filter.",
    )


def not_written_yet(record: Record, as_of: float) -> Exclusion:
    return Exclusion(
        "not_written_yet",
        f"Not written yet as of {hours(as_of)} ago: written {hours(record.age_hours)} ago.",
    )


def not_true_yet(record: Record, as_of: float) -> Exclusion:
    return Exclusion(
        "not_true_yet",
        f"Not true yet as of {hours(as_of)} ago: it became true {hours(record.true_since_hours)} ago "
        f"(written {hours(record.age_hours)} ago), and the latest is by the time a fact became true.",
    )


def superseded(record: Record, newer: Record, as_of: float = 0, clock: str = "written") -> Exclusion:
    if clock == "true":
        moment = f" as of {hours(as_of)} ago" if as_of else ""
        return Exclusion(
            "superseded",
            f"Superseded by {newer.id}, a fact for key {record.key} that became true later "
            f"(true for {hours(newer.true_since_hours - as_of)} against {hours(record.true_since_hours - as_of)}"
            f"{moment}): the time each became true decided, not when it was written.",
            newer.id,
        )
    if as_of:
        return Exclusion(
            "superseded",
            f"Superseded by {newer.id}, a newer fact for key {record.key} "
            f"({hours(newer.age_hours - as_of)} old against {hours(record.age_hours - as_of)} as of "
            f"{hours(as_of)} ago): the time each was written decided.",
            newer.id,
        )
    return Exclusion(
        "superseded",
        f"Superseded by {newer.id}, a newer fact for key {record.key} "
        f"({hours(newer.age_hours)} old against {hours(record.age_hours)}).",
        newer.id,
    )


def store_filtered(record: Record, policy: Policy) -> Exclusion:
    return Exclusion(
        "store_filtered",
        f"Stored as {record.store} memory; the policy reads only {policy.store} memory.",
    )


PREVIOUS_SESSION = Exclusion(
    "previous_session",
    "Comes from a previous session, and previous sessions are not included.",
)


def too_old(record: Record, policy: Policy) -> Exclusion:
    as_of = policy.as_of_hours
    moment = f" as of {hours(as_of)} ago" if as_of else ""
    return Exclusion(
        "too_old",
        f"{hours(record.age_hours - as_of)} old{moment}, past the maximum age of {hours(policy.max_age_hours)}.",
    )


def as_of_said(as_of: float, existed: int, stored: int, latest_by: str) -> str:
    """What asking as of an earlier moment changes, with this answer's numbers (empty now)."""
    said = ""
    if as_of:
        said = (
            f"As of {hours(as_of)} ago: {existed} of {stored} records had been written; idf and BM25's "
            f"statistics count only those {existed}, and every age (maximum age, recency 2^(-age/24), "
            f"the table's) counts from then, age - {as_of:g}."
        )
    if latest_by == "true":
        said += (" " if said else "") + (
            "Latest by the time a fact became true (true_since_hours), not when it was written."
        )
    return said


# ---------------------------------------------------------------- wider settings


def _all_their_stores(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    kinds = {record.store for record in records}
    return {"store": next(iter(kinds)) if len(kinds) == 1 else "all"}


def _previous_sessions(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    return {"previous_sessions": True}


def _old_enough(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    oldest = max((record.age_hours - policy.as_of_hours for record in records), default=policy.max_age_hours)
    limit = FIELDS_BY_NAME["max_age_hours"].maximum
    if limit is not None and oldest > limit:
        return None
    return {"max_age_hours": max(oldest, policy.max_age_hours)}


# Per scope check, the least change to a policy that lets ``records`` (all those to be let
# in, whichever check stops each now) past it. A check missing here has no wider setting:
# another tenant's record (the tenant is a hard filter) and a superseded one (no filter
# brings a stale fact back; turning Keep latest fact per key off is another experiment).
WIDER: dict[str, Callable[[Sequence[Record], Policy], dict[str, Any] | None]] = {
    "store_filtered": _all_their_stores,
    "previous_session": _previous_sessions,
    "too_old": _old_enough,
}

"""Scope policies: which records may be considered at all, before any ranking.

The checks run in a fixed order and a record's outcome is the first that applies:
other_tenant, superseded, store_filtered, previous_session, too_old. What they keep is
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
from .text import hours


@dataclass(frozen=True)
class Exclusion:
    outcome: str
    reason: str


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
            if tenant == policy.tenant:
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
        if record.tenant != policy.tenant:
            return self._exclusion(
                ("other_tenant", record.tenant, policy.tenant), lambda: other_tenant(record, policy, self.store)
            )
        newer = self.newer[position]
        if policy.latest_per_key and newer is not None:
            # The newer record wins even if a later filter excludes it, so a stale fact
            # never comes back.
            return self._exclusion(("superseded", position), lambda: superseded(record, newer))
        if policy.store != "all" and record.store != policy.store:
            return self._exclusion(
                ("store_filtered", record.store, policy.store), lambda: store_filtered(record, policy)
            )
        if record.session == "previous" and not policy.previous_sessions:
            return PREVIOUS_SESSION
        if record.age_hours > policy.max_age_hours:
            return self._exclusion(("too_old", record.age_hours, policy.max_age_hours), lambda: too_old(record, policy))
        return None


def other_tenant(record: Record, policy: Policy, store: Store) -> Exclusion:
    return Exclusion(
        "other_tenant",
        f"Belongs to {store.tenant_label(record.tenant)}; the active tenant is "
        f"{store.tenant_label(policy.tenant)}, a hard filter.",
    )


def superseded(record: Record, newer: Record) -> Exclusion:
    return Exclusion(
        "superseded",
        f"Superseded by {newer.id}, a newer fact for key {record.key} "
        f"({hours(newer.age_hours)} old against {hours(record.age_hours)}).",
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
    return Exclusion(
        "too_old",
        f"{hours(record.age_hours)} old, past the maximum age of {hours(policy.max_age_hours)}.",
    )


# ---------------------------------------------------------------- wider settings


def _all_their_stores(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    kinds = {record.store for record in records}
    return {"store": next(iter(kinds)) if len(kinds) == 1 else "all"}


def _previous_sessions(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    return {"previous_sessions": True}


def _old_enough(records: Sequence[Record], policy: Policy) -> dict[str, Any] | None:
    oldest = max((record.age_hours for record in records), default=policy.max_age_hours)
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

"""Scope policies: which records may be considered at all, before any ranking.

The checks run in a fixed order and a record's outcome is the first that applies:
other_tenant, superseded, store_filtered, previous_session, too_old,
no_shared_terms. Each exclusion comes with a sentence that gives its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def check_scope(
    record: Record,
    cosine: float,
    policy: Policy,
    store: Store,
    newest: dict[tuple[str, str], Record],
) -> Exclusion | None:
    """Return why the record is out of scope, or None when it is a candidate."""
    if record.tenant != policy.tenant:
        return Exclusion(
            "other_tenant",
            f"Belongs to {store.tenant_label(record.tenant)}; the active tenant is "
            f"{store.tenant_label(policy.tenant)}, a hard filter.",
        )
    if policy.latest_per_key and record.key is not None:
        latest = newest[(record.tenant, record.key)]
        # Strictly newer only: two records of the same age both stay. The newer record
        # wins even if a later filter excludes it, so a stale fact never comes back.
        if latest.age_hours < record.age_hours:
            return Exclusion(
                "superseded",
                f"Superseded by {latest.id}, a newer fact for key {record.key} "
                f"({hours(latest.age_hours)} old against {hours(record.age_hours)}).",
            )
    if policy.store != "all" and record.store != policy.store:
        return Exclusion(
            "store_filtered",
            f"Stored as {record.store} memory; the policy reads only {policy.store} memory.",
        )
    if record.session == "previous" and not policy.previous_sessions:
        return Exclusion(
            "previous_session",
            "Comes from a previous session, and previous sessions are not included.",
        )
    if record.age_hours > policy.max_age_hours:
        return Exclusion(
            "too_old",
            f"{hours(record.age_hours)} old, past the maximum age of {hours(policy.max_age_hours)}.",
        )
    if cosine == 0.0:
        return Exclusion(
            "no_shared_terms",
            "Shares no term with the question (cosine 0), so it is excluded at any recency weight.",
        )
    return None

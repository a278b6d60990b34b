"""JSON text of a result: run_json's encoder, quick on large stores.

Most of a result does not depend on the policy. Each record's own fields, cosine,
recency and per-term parts depend only on the store and the question, and for a
store of 1,000 records they are most of a 570 KB answer; encoding them again on
every policy change took half of run_json's time. They are encoded once per store
and question and spliced into each answer around the fields a policy decides
(score, outcome, stage, reason, rank). The text is exactly what ``json.dumps``
writes for the same result (tests/test_engine_encode.py checks it).
"""

from __future__ import annotations

import functools
import json
import math
from json.encoder import encode_basestring  # the C version where there is one
from typing import Any

from .model import RecordResult, Result, Store

dumps = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))

# A record's keys in the order retrieve() writes them: the fixed head, the part a
# policy decides, and the per-term parts.
FIXED_HEAD = ("id", "tenant", "store", "session", "age_hours", "key", "text", "words", "cosine", "recency")
DECIDED = ("score", "outcome", "stage", "reason", "rank")
RECORD_KEYS = (*FIXED_HEAD, *DECIDED, "terms")

# Encoded fixed parts per (store, question); a store object is kept alive by its
# entry, so its id() cannot be reused while cached.
_CACHE_SIZE = 8
_fixed: dict[tuple[int, str], tuple[Store, list[tuple[str, str]]]] = {}


def encode_result(result: Result, store: Store) -> str:
    """``dumps(result)``, reusing the encoded fixed parts of ``store``'s records."""
    rows = result["records"]
    if rows and tuple(rows[0]) != RECORD_KEYS:
        return dumps(result)  # not laid out as retrieve() writes it (one literal makes every row)
    fixed = _fixed_parts(store, result["question"]["id"], rows)
    records = ",".join(head + _decided(row) + tail for (head, tail), row in zip(fixed, rows, strict=True))
    keys = list(result)
    at = keys.index("records")
    before = dumps({k: result[k] for k in keys[:at]})[:-1]  # type: ignore[literal-required]
    after = dumps({k: result[k] for k in keys[at + 1 :]})[1:]  # type: ignore[literal-required]
    return f'{before}{"," if at else ""}"records":[{records}]{"," if after != "}" else ""}{after}'


def _fixed_parts(store: Store, question_id: str, rows: list[RecordResult]) -> list[tuple[str, str]]:
    key = (id(store), question_id)
    entry = _fixed.get(key)
    if entry is not None and entry[0] is store and len(entry[1]) == len(rows):
        return entry[1]
    parts = [
        (
            dumps({k: row[k] for k in FIXED_HEAD})[:-1],  # type: ignore[literal-required]
            f',"terms":{dumps(row["terms"])}}}',
        )
        for row in rows
    ]
    if len(_fixed) >= _CACHE_SIZE:
        del _fixed[next(iter(_fixed))]
    _fixed[key] = (store, parts)
    return parts


def _decided(row: RecordResult) -> str:
    """The policy-decided fields of one record, as json.dumps writes them."""
    score, stage, rank = row["score"], row["stage"], row["rank"]
    return (
        f',"score":{_number(score)},"outcome":{encode_basestring(row["outcome"])}'
        f',"stage":{_number(stage)},"reason":{encode_basestring(row["reason"])}'
        f',"rank":{"null" if rank is None else _number(rank)}'
    )


def _number(value: Any) -> str:
    # json.dumps writes finite floats with float.__repr__ and ints with int.__repr__;
    # anything else (a bool, NaN) goes through json.dumps itself.
    kind = type(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    return dumps(value)

"""The engine's one entry point: a request (store + policy) in, a result out.

``run_json`` is all the page's worker ever calls, and what the CPython tests call
too, so both sides go through the very same code. Both functions are total: bad
input returns an error object naming the path and the rule, never a traceback.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from . import __version__
from .encode import dumps, encode_result
from .model import (
    Coverage,
    ErrorResult,
    InputError,
    Policy,
    RecordResult,
    Result,
    Store,
    parse_policy,
    parse_store,
)
from .pack import Candidate, pack, rank
from .scope import check_scope, newest_by_key
from .text import word_count
from .tfidf import build_index, score_question

# Which of the page's four stages decides each outcome: 2 scope filters,
# 3 ranking (a zero cosine is found when scoring), 4 final context.
OUTCOME_STAGE = {
    "other_tenant": 2,
    "superseded": 2,
    "store_filtered": 2,
    "previous_session": 2,
    "too_old": 2,
    "no_shared_terms": 3,
    "selected": 4,
    "over_budget": 4,
    "record_limit": 4,
}


def recency(age_hours: float) -> float:
    """Half-life decay: 1 for a new record, 0.5 after a day, 0.25 after two."""
    return float(2.0 ** (-age_hours / 24.0))


def blend(cosine_value: float, recency_value: float, weight: float) -> float:
    """``(1 - w) * cosine + w * recency``; w = 0 ranks on cosine alone."""
    return (1.0 - weight) * cosine_value + weight * recency_value


@lru_cache(maxsize=1 << 14)
def _words(text: str) -> int:
    return word_count(text)  # the same texts on every policy change of a session


def retrieve(store: Store, policy: Policy, *, copy_terms: bool = True) -> Result:
    """Score every record, apply the scope policies, rank and pack the tray.

    Each record's per-term parts are fresh copies, so a caller may edit them; with
    ``copy_terms=False`` they are the cached originals, for callers that only read
    (run_json encodes them).
    """
    index = build_index(tuple(record.text for record in store.records))
    question = store.question(policy.question)
    scores = score_question(index, question.text)
    newest = newest_by_key(store.records)

    rows: list[RecordResult] = []
    candidates: list[Candidate] = []
    for position, (record, parts, cos) in enumerate(zip(store.records, scores.parts, scores.cosines, strict=True)):
        fresh = recency(record.age_hours)
        row: RecordResult = {
            "id": record.id,
            "tenant": record.tenant,
            "store": record.store,
            "session": record.session,
            "age_hours": record.age_hours,
            "key": record.key,
            "text": record.text,
            "words": _words(record.text),
            "cosine": cos,
            "recency": fresh,
            "score": blend(cos, fresh, policy.recency_weight),
            "outcome": "",
            "stage": 0,
            "reason": "",
            "rank": None,
            "terms": [dict(part) for part in parts] if copy_terms else list(parts),  # type: ignore[misc]
        }
        exclusion = check_scope(record, cos, policy, store, newest)
        if exclusion is None:
            candidates.append(Candidate(record.id, position, row["words"], cos, row["score"]))
        else:
            row["outcome"], row["reason"] = exclusion.outcome, exclusion.reason
        rows.append(row)

    ranked = rank(candidates)
    by_id = {row["id"]: row for row in rows}
    for decision in pack(ranked, policy.budget_words, policy.max_records):
        row = by_id[decision.id]
        row["outcome"], row["reason"], row["rank"] = decision.outcome, decision.reason, decision.rank
    for row in rows:
        row["stage"] = OUTCOME_STAGE[row["outcome"]]

    selected = [c.id for c in ranked if by_id[c.id]["outcome"] == "selected"]
    supporting = list(question.supporting.get(policy.tenant, ()))
    coverage: Coverage = {
        "found": sum(1 for rid in supporting if rid in selected),
        "total": len(supporting),
        "supporting": supporting,
        "found_ids": [rid for rid in supporting if rid in selected],
    }
    return {
        "engine_version": __version__,
        "policy": policy_dict(policy),
        "question": {
            "id": question.id,
            "text": question.text,
            "terms": list(scores.terms),
            "dropped_terms": list(scores.dropped),
        },
        "records": rows,
        "ranked": [c.id for c in ranked],
        "selected": selected,
        "words_used": sum(by_id[rid]["words"] for rid in selected),
        "budget_words": policy.budget_words,
        "counts": {
            "stored": len(rows),
            "in_scope": sum(1 for row in rows if row["stage"] > 2),
            "ranked": len(ranked),
            "selected": len(selected),
        },
        "coverage": coverage,
    }


def policy_dict(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in policy.__dataclass_fields__}


def error_result(error: InputError) -> ErrorResult:
    return {
        "error": {
            "name": error.name,
            "message": str(error),
            "problems": [{"path": path, "message": message} for path, message in error.problems],
        }
    }


def _check_request(request: Any) -> None:
    if not isinstance(request, dict):
        raise InputError("InvalidRequest", [("request", "must be an object with store and policy")])
    unknown = sorted(set(request) - {"store", "policy"})
    if unknown:
        raise InputError("InvalidRequest", [(f"request.{unknown[0]}", "is not a known field (allowed: store, policy)")])
    if "store" not in request:
        raise InputError("InvalidRequest", [("request.store", "is missing")])


def run(request: Any) -> Result | ErrorResult:
    """Run one request ``{"store": <store>, "policy": <policy>}``; never raises on bad input."""
    try:
        _check_request(request)
        store = parse_store(request["store"])
        return retrieve(store, parse_policy(request.get("policy"), store))
    except InputError as error:
        return error_result(error)
    except Exception as error:  # the page must get an answer, never a hang
        return internal_error(error)


def internal_error(error: BaseException) -> ErrorResult:
    """A bug or a resource limit: still an answer, with enough to report it."""
    message = f"the engine failed unexpectedly ({type(error).__name__}: {error})"
    return {"error": {"name": "InternalError", "message": message, "problems": []}}


def run_json(text: str) -> str:
    """``run`` with JSON text on both sides: the function the page's worker calls."""
    store: Store | None = None
    try:
        result, store = _run_text(text)
    except (json.JSONDecodeError, TypeError) as error:
        result = error_result(InputError("InvalidJSON", [("request", f"is not valid JSON ({error})")]))
    except RecursionError as error:  # absurdly nested input
        result = internal_error(error)
    if store is None or "error" in result:
        return dumps(result)
    return encode_result(result, store)


# The page sends the same store with every policy change. Requests laid out as it
# writes them, {"store":<store>,"policy":<policy>}, reuse the validated store when its
# text is unchanged: the answer is the same, the 1,000-record store is not re-checked.
_STORE_PREFIX = '{"store":'
_DECODER = json.JSONDecoder()
_last_store_text = ""


@lru_cache(maxsize=4)
def _store_from_text(store_text: str) -> Store:
    return parse_store(json.loads(store_text))  # an InputError is raised, never cached


def _run_text(text: str) -> tuple[Result | ErrorResult, Store | None]:
    """The answer, and the cached store it was computed from (None off the fast path)."""
    global _last_store_text
    split = _split_store(text)
    if split is None:
        return run(json.loads(text)), None
    store_text, rest = split
    try:
        _check_request({**rest, "store": None})
        store = _store_from_text(store_text)
        _last_store_text = store_text
        return retrieve(store, parse_policy(rest.get("policy"), store), copy_terms=False), store
    except InputError as error:
        return error_result(error), None
    except Exception as error:  # the page must get an answer, never a hang
        return internal_error(error), None


def _split_store(text: str) -> tuple[str, dict[str, Any]] | None:
    """The store's own JSON text and the rest of the request, parsed; None for other layouts."""
    if not isinstance(text, str) or not text.startswith(_STORE_PREFIX):
        return None
    start = len(_STORE_PREFIX)
    last = _last_store_text
    if last and text.startswith(last, start) and text[start + len(last) : start + len(last) + 1] in (",", "}"):
        # The store we saw last time: reuse that very string (its hash is cached) and
        # skip decoding it just to find where it ends.
        store_text, end = last, start + len(last)
    else:
        try:
            _, end = _DECODER.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            return None
        store_text = text[start:end]
    tail = text[end:]
    try:
        rest = json.loads("{" + tail[1:]) if tail.startswith(",") else json.loads("{}" if tail == "}" else "x")
    except json.JSONDecodeError:
        return None
    return store_text, rest

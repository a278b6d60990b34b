"""Every question of a store under every scorer, measured as retrieval is measured.

An evaluation keeps the policy in force but its question: for each question of the store
(in store order) and each scorer (in the scorer table's order) it ranks and packs on one
``Session``, so the index, the question scores and the vectors are made once, and measures
the ranking and the tray against the question's supporting records for the active tenant,
with k the policy's ``max_records``. For a ranking r_1, r_2, … and supporting set S:

- recall@k    = |{r_1..r_k} ∩ S| / |S|
- precision@k = |{r_1..r_k} ∩ S| / k, k even when fewer than k records are ranked
  (trec_eval's P_k; some toolkits divide by the number ranked instead)
- MRR         = 1 / i for the first i with r_i in S, over the whole ranking; 0 when none
- nDCG@k      = DCG / IDCG with DCG = Σ_{i ≤ k, r_i ∈ S} 1 / log2(i + 1) and IDCG the same
  sum over the first min(|S|, k) places: binary gains, so trec_eval's ndcg_cut and ranx's
  ndcg (and the 2^rel − 1 form) agree
- coverage    = |tray ∩ S| / |S|, the seed's coverage as a share

A question with no supporting record for the tenant has nothing to measure: it is listed
with that reason and left out of the means. Sums are ``math.fsum``, in question order.

A supporting record the scope leaves out is a miss under every scorer, whatever it ranks:
the evaluation names each such record with every scope check that leaves it out on its own
(the first is its outcome; after widening that check, the next one that would stop it, and
so on), and the settings that let in those a wider setting can (``scope.WIDER``).

Measures are printed to three places rounded half up on the digits Python's ``repr`` writes
(0.5625 as 0.563), as a learner rounds by hand; ``format`` rounds the float's exact binary
value, ties to even, and would write 0.562.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .errors import InputError, error_result, internal_error
from .fields import FIELDS_BY_NAME, OUTCOMES_BY_CODE, SWEPT
from .model import Policy, Store
from .parse import _show, parse_policy
from .scope import WIDER, Exclusion
from .scorers import SCORER_IDS
from .session import Session, dumps, policy_dict
from .shapes import (
    ErrorResult,
    Evaluated,
    Evaluation,
    LeftOut,
    Measures,
    OutOfScope,
    Sweep,
    SweepPoint,
    Unmeasured,
)

# The measures in the order every table shows them, each with its column heading.
MEASURE_NAMES: dict[str, str] = {
    "recall": "Recall@k",
    "precision": "Precision@k",
    "mrr": "MRR",
    "ndcg": "nDCG@k",
    "coverage": "Coverage",
}
# The values a sweep visits: 0 to 1 in steps of 0.1, each the nearest float to i/10.
SWEEP_WEIGHTS: tuple[float, ...] = tuple(i / 10 for i in range(11))
# The places a measure is printed to, here and on the page (site/js/core/decimals.js).
PLACES = 3


def printed(value: float, places: int = PLACES) -> str:
    """``value`` to ``places`` decimals, rounded half up (away from zero) on its ``repr``'s
    digits, in whole numbers: the page's stdlib, trimmed to what the engine imports, needs no ``decimal``."""
    if not math.isfinite(value):
        return repr(value)
    mantissa, _, power = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction)
    # abs(value) = digits × 10^scale
    scale = int(power or 0) - len(fraction)
    if scale + places >= 0:
        units = digits * 10 ** (scale + places)
    else:
        units, rest = divmod(digits, 10 ** -(scale + places))
        units += 2 * rest >= 10 ** -(scale + places)
    text = str(units).rjust(places + 1, "0")
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"


def measure(ranking: list[str], tray: list[str], supporting: list[str], k: int) -> Measures:
    """The five measures of one ranking and tray against a non-empty supporting list."""
    wanted = set(supporting)
    if not wanted:
        raise ValueError("a question with no supporting record has nothing to measure")
    top = ranking[:k]
    hits = sum(1 for rid in top if rid in wanted)
    first = first_rank(ranking, wanted)
    dcg = math.fsum(1.0 / math.log2(place + 1) for place, rid in enumerate(top, start=1) if rid in wanted)
    ideal = math.fsum(1.0 / math.log2(place + 1) for place in range(1, min(len(wanted), k) + 1))
    return {
        "recall": hits / len(wanted),
        "precision": hits / k,
        "mrr": 0.0 if first is None else 1.0 / first,
        "ndcg": dcg / ideal,
        "coverage": sum(1 for rid in set(tray) if rid in wanted) / len(wanted),
    }


def first_rank(ranking: list[str], wanted: set[str]) -> int | None:
    """The place (1 for the best) of the first supporting record in a ranking, None when none is ranked."""
    return next((place for place, rid in enumerate(ranking, start=1) if rid in wanted), None)


def evaluate(session: Session, policy: Policy) -> Evaluation:
    """Every question of the session's store under every scorer, with ``policy`` but its
    question (an own question, ``question_text``, is set aside too)."""
    store = session.store
    k = policy.max_records
    rows: list[Evaluated] = []
    measured: dict[str, list[str]] = {}
    unmeasured: list[Unmeasured] = []
    for question in store.questions:
        # Duplicates in a store's list would count a record twice; each counts once.
        supporting = list(dict.fromkeys(question.supporting.get(policy.tenant, ())))
        if supporting:
            measured[question.id] = supporting
        else:
            unmeasured.append({"question": question.id, "reason": _no_support(store.tenant_label(policy.tenant))})
        wanted = set(supporting)
        for scorer in SCORER_IDS:
            asked = replace(policy, question=question.id, question_text="", scorer=scorer)
            ranking, tray, outcomes = session.ranking_and_tray(asked)
            rows.append(
                {
                    "question": question.id,
                    "scorer": scorer,
                    "ranking": ranking,
                    "tray": tray,
                    "supporting": supporting,
                    "outcomes": {rid: outcomes[session.positions[rid]] for rid in supporting},
                    "first_rank": first_rank(ranking, wanted),
                    "hits": sum(1 for rid in ranking[:k] if rid in wanted),
                    "measures": measure(ranking, tray, supporting, k) if supporting else None,
                }
            )
    means = _means(rows)
    return {
        "policy": policy_dict(policy),
        "k": k,
        "measure_names": dict(MEASURE_NAMES),
        "evaluation": rows,
        "means": means,
        "best": _best(means),
        "measured": list(measured),
        "unmeasured": unmeasured,
        "out_of_scope": out_of_scope(session, policy, measured),
    }


def _no_support(tenant: str) -> str:
    return f"declares no supporting record for {tenant}, so there is nothing to measure; left out of the means"


def _means(rows: list[Evaluated]) -> dict[str, Measures | None]:
    """Each scorer's mean of every measure over the questions measured, in question order."""
    means: dict[str, Measures | None] = {}
    for scorer in SCORER_IDS:
        measured = [row["measures"] for row in rows if row["scorer"] == scorer and row["measures"] is not None]
        if not measured:
            means[scorer] = None
            continue
        means[scorer] = {
            "recall": math.fsum(m["recall"] for m in measured) / len(measured),
            "precision": math.fsum(m["precision"] for m in measured) / len(measured),
            "mrr": math.fsum(m["mrr"] for m in measured) / len(measured),
            "ndcg": math.fsum(m["ndcg"] for m in measured) / len(measured),
            "coverage": math.fsum(m["coverage"] for m in measured) / len(measured),
        }
    return means


def _best(means: dict[str, Measures | None]) -> dict[str, list[str]]:
    """Per measure, the scorers with the highest mean (every one of them when some tie at the
    top), and none when every scorer ties: then no scorer is better than another."""
    best: dict[str, list[str]] = {}
    for name in MEASURE_NAMES:
        values = {scorer: _value(m, name) for scorer, m in means.items() if m is not None}
        top = max(values.values(), default=None)
        winners = [scorer for scorer, value in values.items() if value == top]
        best[name] = [] if len(winners) == len(values) else winners
    return best


def _value(measures: Measures, name: str) -> float:
    value: float = measures[name]  # type: ignore[literal-required]
    return value


def out_of_scope(session: Session, policy: Policy, supported: dict[str, list[str]]) -> OutOfScope | None:
    """The supporting records (of the questions in ``supported``, question id to record ids)
    that ``policy``'s scope leaves out, and the settings that let them in; None when it
    leaves none out."""
    store = session.store
    questions: dict[str, list[str]] = {}
    for question, ids in supported.items():
        for rid in ids:
            questions.setdefault(rid, []).append(question)
    widened, chains, aside = _widen(session, policy, list(questions))
    left_out: list[LeftOut] = [
        {"record": rid, "questions": questions[rid], "outcomes": chain, "included": rid not in aside}
        for rid, chain in chains.items()
        if chain
    ]
    if not left_out:
        return None
    if aside:
        # Widened for the records let in alone: a check widened for one set aside stays as it was.
        widened = _widen(session, policy, [entry["record"] for entry in left_out if entry["included"]])[0]
    include = {name: value for name, value in policy_dict(widened).items() if value != getattr(policy, name)}
    return {
        "left_out": left_out,
        "why": _why(left_out, aside, policy, store, len(questions)),
        "include": include,
        "include_text": "; ".join(
            f"{FIELDS_BY_NAME[name].label}: {_value_text(name, value, store)}" for name, value in include.items()
        ),
    }


def _widen(
    session: Session, policy: Policy, ids: list[str]
) -> tuple[Policy, dict[str, list[str]], dict[str, Exclusion]]:
    """``policy`` widened until the scope checks let in every record of ``ids`` that a wider
    setting can, each record's chain of checks that stopped it, and those set aside.

    Each round runs the scope checks on the records not yet let in, under the settings so
    far, notes the check that stops each, and widens that check (``scope.WIDER``) over all of
    them. A record stopped by a check without a wider setting, or by a check its widening
    leaves as it was, is set aside. The rounds end when the checks let in every record not
    set aside, so the engine's own checks confirm the settings returned."""
    store = session.store
    chains: dict[str, list[str]] = {rid: [] for rid in ids}
    aside: dict[str, Exclusion] = {}
    pending = list(ids)
    widened = policy
    while pending:
        stopped: dict[str, list[tuple[str, Exclusion]]] = {}
        for rid in pending:
            exclusion = session.scope.check(session.positions[rid], widened)
            if exclusion is not None:
                chains[rid].append(exclusion.outcome)
                stopped.setdefault(exclusion.outcome, []).append((rid, exclusion))
        if not stopped:
            break
        for outcome, those in stopped.items():
            if outcome not in WIDER:
                aside.update(those)
        wanted = [store.records[session.positions[rid]] for rid in pending if rid not in aside]
        change: dict[str, Any] = {}
        for outcome, those in stopped.items():
            wider = WIDER[outcome](wanted, widened) if outcome in WIDER else None
            if wider is None or all(getattr(widened, name) == value for name, value in wider.items()):
                aside.update(those)
            else:
                change |= wider
        widened = replace(widened, **change)
        pending = [rid for rid in pending if rid not in aside]
    return widened, chains, aside


def _why(left_out: list[LeftOut], aside: dict[str, Exclusion], policy: Policy, store: Store, total: int) -> str:
    """Which supporting records the scope leaves out, and by which settings, grouped by the
    checks that leave them out."""
    count = len(left_out)
    if count == total:
        lead = "No question's supporting record is in scope, so every measure is 0"
    else:
        lead = f"{count} of {total} supporting records {'is' if count == 1 else 'are'} out of scope, so no scorer ranks {'it' if count == 1 else 'them'}"
    groups: dict[tuple[str, ...], list[str]] = {}
    for entry in left_out:
        if entry["included"]:
            groups.setdefault(tuple(entry["outcomes"]), []).append(entry["record"])
    parts = [
        f"{_listed(ids)} {'is' if len(ids) == 1 else 'are'} left out by {_by(outcomes, policy, store)}"
        for outcomes, ids in groups.items()
    ]
    sentences = [f"{lead}: {'; '.join(parts)}." if parts else f"{lead}."]
    for entry in left_out:
        if not entry["included"]:
            reason = aside[entry["record"]].reason
            sentences.append(
                f"{entry['record']} is left out by {_by(entry['outcomes'], policy, store)}, and widening the "
                f"other filters does not let it in: {reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason}"
            )
    return " ".join(sentences)


def _by(outcomes: Sequence[str], policy: Policy, store: Store) -> str:
    """The settings behind scope checks, each with its value in force: "A (x) and by B (y)"."""
    settings = []
    for outcome in outcomes:
        name = OUTCOMES_BY_CODE[outcome].setting
        assert name is not None, f"the scope check {outcome} names its setting in the outcome table"
        settings.append(f"{FIELDS_BY_NAME[name].label} ({_value_text(name, getattr(policy, name), store)})")
    return _listed(settings, joiner=", by ", last=" and by ")


def _value_text(name: str, value: Any, store: Store) -> str:
    """A policy value in the words its control shows."""
    field = FIELDS_BY_NAME[name]
    if field.choices:
        return dict(field.choices)[value]
    if field.choices_from == "tenants":
        return store.tenant_label(value)
    if field.kind == "bool":
        return "on" if value else "off"
    return f"{value:g} {field.unit}".strip()


def _listed(items: Sequence[str], *, joiner: str = ", ", last: str = " and ") -> str:
    return items[0] if len(items) == 1 else joiner.join(items[:-1]) + last + items[-1]


def sweep_over(session: Session, policy: Policy, field: str = SWEPT[0]) -> Sweep:
    """Each scorer's mean nDCG at every value of ``SWEEP_WEIGHTS`` of ``field`` (one of
    ``SWEPT``), the rest of ``policy`` kept."""
    if field not in SWEPT:
        raise InputError("InvalidRequest", [("sweep", f"{_show(field)} is not one of {', '.join(SWEPT)}")])
    points: list[SweepPoint] = []
    for value in SWEEP_WEIGHTS:
        swept: dict[str, Any] = {field: value}
        means = evaluate(session, replace(policy, **swept))["means"]
        points.append({"value": value, "ndcg": {s: None if m is None else m["ndcg"] for s, m in means.items()}})
    return {"policy": policy_dict(policy), "field": field, "k": policy.max_records, "points": points}


def evaluate_json(session: Session, policy_text: str, *, sweep: bool | str = False) -> str:
    """``evaluate`` (or with ``sweep``, the sweep of that field, True for the recency weight)
    for a policy given as JSON text, as JSON text; bad input gives an error object, never an
    exception (the page's worker)."""
    try:
        data = json.loads(policy_text)
    except (ValueError, TypeError, RecursionError) as error:
        return dumps(error_result(InputError("InvalidJSON", [("policy", f"is not valid JSON ({error})")])))
    try:
        policy = parse_policy(data, session.store)
        if sweep:
            return dumps(sweep_over(session, policy, SWEPT[0] if sweep is True else sweep))
        return dumps(evaluate(session, policy))
    except InputError as error:
        return dumps(error_result(error))
    except Exception as error:  # the page must get an answer, never a hang
        return dumps(internal_error(error))


def evaluate_policy(session: Session, policy_data: Any) -> Evaluation | ErrorResult:
    """``evaluate`` for a policy object; bad input gives an error object."""
    try:
        return evaluate(session, parse_policy(policy_data, session.store))
    except InputError as error:
        return error_result(error)

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
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

from .errors import InputError, error_result, internal_error
from .model import Policy
from .parse import parse_policy
from .scorers import SCORER_IDS
from .session import Session, dumps, policy_dict
from .shapes import ErrorResult, Evaluated, Evaluation, Measures, Sweep, SweepPoint, Unmeasured

# The measures in the order every table shows them, each with its column heading.
MEASURE_NAMES: dict[str, str] = {
    "recall": "Recall@k",
    "precision": "Precision@k",
    "mrr": "MRR",
    "ndcg": "nDCG@k",
    "coverage": "Coverage",
}
# The recency weights a sweep visits: 0 to 1 in steps of 0.1, each the nearest float to i/10.
SWEEP_WEIGHTS: tuple[float, ...] = tuple(i / 10 for i in range(11))


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
    measured: list[str] = []
    unmeasured: list[Unmeasured] = []
    for question in store.questions:
        # Duplicates in a store's list would count a record twice; each counts once.
        supporting = list(dict.fromkeys(question.supporting.get(policy.tenant, ())))
        if supporting:
            measured.append(question.id)
        else:
            unmeasured.append({"question": question.id, "reason": _no_support(store.tenant_label(policy.tenant))})
        wanted = set(supporting)
        for scorer in SCORER_IDS:
            asked = replace(policy, question=question.id, question_text="", scorer=scorer)
            ranking, tray = session.ranking_and_tray(asked)
            rows.append(
                {
                    "question": question.id,
                    "scorer": scorer,
                    "ranking": ranking,
                    "tray": tray,
                    "supporting": supporting,
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
        "measured": measured,
        "unmeasured": unmeasured,
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
    """Per measure, the scorers with the highest mean (every one of them when tied)."""
    best: dict[str, list[str]] = {}
    for name in MEASURE_NAMES:
        values = {scorer: _value(m, name) for scorer, m in means.items() if m is not None}
        top = max(values.values(), default=None)
        best[name] = [scorer for scorer, value in values.items() if value == top]
    return best


def _value(measures: Measures, name: str) -> float:
    value: float = measures[name]  # type: ignore[literal-required]
    return value


def sweep_recency(session: Session, policy: Policy) -> Sweep:
    """Each scorer's mean nDCG at every weight of ``SWEEP_WEIGHTS``, the rest of ``policy`` kept."""
    points: list[SweepPoint] = []
    for weight in SWEEP_WEIGHTS:
        means = evaluate(session, replace(policy, recency_weight=weight))["means"]
        points.append(
            {"recency_weight": weight, "ndcg": {s: None if m is None else m["ndcg"] for s, m in means.items()}}
        )
    return {"policy": policy_dict(policy), "k": policy.max_records, "points": points}


def evaluate_json(session: Session, policy_text: str, *, sweep: bool = False) -> str:
    """``evaluate`` (or with ``sweep``, ``sweep_recency``) for a policy given as JSON text,
    as JSON text; bad input gives an error object, never an exception (the page's worker)."""
    try:
        data = json.loads(policy_text)
    except (ValueError, TypeError, RecursionError) as error:
        return dumps(error_result(InputError("InvalidJSON", [("policy", f"is not valid JSON ({error})")])))
    try:
        policy = parse_policy(data, session.store)
        return dumps(sweep_recency(session, policy) if sweep else evaluate(session, policy))
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

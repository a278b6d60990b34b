"""Scope, ranking and packing: the golden cases from fixtures/ and invariants under Hypothesis."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from harness.fixtures import GOLDEN_FILES, assert_golden_case, load_json
from harness.generate import BASE_STORE, POLICIES, RECORD, random_store
from harness.results import result_of


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_case(path: Path, store: dict[str, Any]) -> None:
    """Each seed statement, as a golden case file, holds: tray, words used, outcomes, coverage."""
    assert_golden_case(load_json(path), store)


def test_default_policy_is_the_seed_starting_point(store: dict[str, Any]) -> None:
    """No policy given: deployment-region, Team A, working, previous off, 168 h, latest on, TF-IDF, 0, 40, 3."""
    result = result_of({"store": store})
    assert result["policy"] == {
        "question": "deployment-region",
        "tenant": "team-a",
        "store": "working",
        "previous_sessions": False,
        "max_age_hours": 168,
        "latest_per_key": True,
        "as_of_hours": 0,
        "latest_by": "written",
        "scorer": "tfidf",
        "bm25_k1": 1.2,
        "bm25_b": 0.75,
        "min_similarity": engine.fields.MIN_SIMILARITY,
        "rrf_k": 60,
        "blend": "seed",
        "recency_weight": 0.0,
        "ga_decay": 0.995,
        "ga_recency_weight": 1.0,
        "ga_importance_weight": 1.0,
        "ga_relevance_weight": 1.0,
        "budget_words": 40,
        "max_records": 3,
        "mmr_lambda": 1.0,
        "question_text": "",
    }


def test_fixture_facts_the_seed_relies_on(store: dict[str, Any]) -> None:
    """Working context is exactly M5 (9 words, INC-42) and M10, both current-session Team A."""
    working = [r for r in store["records"] if r["store"] == "working"]
    assert [r["id"] for r in working] == ["M5", "M10"]
    assert all(r["tenant"] == "team-a" and r["session"] == "current" for r in working)
    m5 = working[0]
    assert engine.word_count(m5["text"]) == 9 and "INC-42" in m5["text"]
    assert "deployment" in engine.tokenize(m5["text"])
    assert [r["id"] for r in store["records"]] == [f"M{i}" for i in range(1, 11)]
    assert len(store["questions"]) == 4


def test_every_record_gets_numbers_and_a_reason(store: dict[str, Any]) -> None:
    """Each record carries words, cosine, recency, score, an outcome code, its stage and a sentence."""
    result = result_of({"store": store, "policy": {"store": "all", "previous_sessions": True}})
    for row in result["records"]:
        assert row["outcome"] in engine.OUTCOMES
        assert row["reason"].endswith(".") and len(row["reason"]) > 20
        assert row["stage"] in (2, 3, 4)
        assert (row["rank"] is not None) == (row["outcome"] in ("selected", "over_budget", "record_limit"))
    over = result_of({"store": store, "policy": {"question": "timeout-incident", "budget_words": 8}})
    m5 = next(r for r in over["records"] if r["id"] == "M5")
    assert "needs 9 words" in m5["reason"] and "only 8" in m5["reason"]


def test_age_boundary_is_inclusive(store: dict[str, Any]) -> None:
    """A record exactly as old as the maximum age stays in scope; one hour less excludes it."""
    policy = {"store": "semantic", "previous_sessions": True}
    at_limit = result_of({"store": store, "policy": {**policy, "max_age_hours": 96}})
    assert at_limit["selected"] == ["M2"]
    below = result_of({"store": store, "policy": {**policy, "max_age_hours": 95}})
    assert next(r for r in below["records"] if r["id"] == "M2")["outcome"] == "too_old"


def test_ties_break_on_cosine_then_store_order() -> None:
    """Equal scores: the higher cosine ranks first; equal both: the earlier record ranks first."""
    records = [
        {"id": i, "tenant": "t", "store": "working", "session": "current", "age_hours": 0, "key": None, "text": "pear"}
        for i in ("B", "A")
    ]
    store = {
        "schema": 1,
        "title": "t",
        "tenants": [{"id": "t", "label": "T"}],
        "questions": [{"id": "q", "text": "pear", "supporting": {}}],
        "records": records,
    }
    result = result_of({"store": store, "policy": {"max_records": 1}})
    assert result["ranked"] == ["B", "A"] and result["selected"] == ["B"]


# ------------------------------------------------------------------ invariants


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=POLICIES, records=st.lists(RECORD, min_size=1, max_size=14))
def test_invariants_hold_for_any_policy_and_store(policy: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Never over budget or over the record limit, never another tenant, scores in [0, 1] (under
    the seed blend; under Generative Agents from 0 to the sum of its weights, and none for a
    record that is not ranked), no stale fact."""
    store = random_store(BASE_STORE, records)
    result = result_of({"store": store, "policy": policy})
    rows = {row["id"]: row for row in result["records"]}
    selected = [rows[rid] for rid in result["selected"]]
    assert result["words_used"] == sum(row["words"] for row in selected) <= policy["budget_words"]
    assert len(selected) <= policy["max_records"]
    assert all(row["tenant"] == policy["tenant"] for row in selected)
    ceiling = 1.0
    if policy["blend"] == "generative-agents":
        ceiling = policy["ga_recency_weight"] + policy["ga_importance_weight"] + policy["ga_relevance_weight"]
    for row in rows.values():
        assert 0.0 <= row["cosine"] <= 1.0
        if row["score"] is None:
            assert row["rank"] is None and policy["blend"] != "seed"
        else:
            assert 0.0 <= row["score"] <= ceiling * (1 + 1e-12)
    if policy["latest_per_key"]:
        for row in selected:
            if row["key"] is not None:
                assert not any(
                    other["tenant"] == row["tenant"]
                    and other["key"] == row["key"]
                    and other["age_hours"] < row["age_hours"]
                    for other in rows.values()
                ), "a stale keyed fact was resurrected"
    assert result["ranked"] == [
        r["id"] for r in sorted((r for r in rows.values() if r["rank"] is not None), key=lambda r: cast(int, r["rank"]))
    ]


@settings(max_examples=150, deadline=None)
@given(policy=POLICIES, seed=st.integers(0, 2**32))
def test_record_order_does_not_change_numbers_or_scope(policy: dict[str, Any], seed: int) -> None:
    """Shuffling the store changes no cosine, score or scope outcome, nor the tray when no ties exist."""
    shuffled = dict(BASE_STORE)
    shuffled["records"] = list(BASE_STORE["records"])
    random.Random(seed).shuffle(shuffled["records"])
    first = {r["id"]: r for r in result_of({"store": BASE_STORE, "policy": policy})["records"]}
    second = {r["id"]: r for r in result_of({"store": shuffled, "policy": policy})["records"]}
    # Records tied on score and relevance are ranked in store order, which the shuffle changes.
    standings = [(r["score"], r["relevance"]) for r in first.values() if r["rank"] is not None]
    ties = len(set(standings)) < len(standings)
    for rid, row in first.items():
        assert row["cosine"] == second[rid]["cosine"] and row["score"] == second[rid]["score"]
        assert row["bm25"] == second[rid]["bm25"]
        if not ties or row["stage"] < 4:
            assert row["outcome"] == second[rid]["outcome"]

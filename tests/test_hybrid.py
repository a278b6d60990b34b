"""The hybrid scorer: Reciprocal Rank Fusion of the BM25 and embedding rankings, by hand on a
four-record store whose vectors are exact, and its invariants on generated stores."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.embedding import StaticEmbedding
from engine.wordpiece import BERT_SPECIAL_TOKENS
from harness.rwse import write_rwse

# Two dimensions, scale 0.5, so every vector is exact: alpha (1, 0), beta (0, 1),
# gamma (1, 1), delta (-1, 0).
TOKENS = [*BERT_SPECIAL_TOKENS, "alpha", "beta", "gamma", "delta"]
ROWS = [[0, 0]] * 5 + [[2, 0], [0, 2], [2, 2], [-2, 0]]
NEIGHBOURS = [[5, 6]] * 5 + [[7, 6], [7, 5], [6, 5], [6, 7]]
VECTORS = StaticEmbedding.from_bytes(write_rwse(TOKENS, ROWS, [0.5] * len(TOKENS), NEIGHBOURS))


def record(rid: str, text: str, **fields: Any) -> dict[str, Any]:
    base = {"id": rid, "tenant": "t", "store": "working", "session": "current", "age_hours": 1, "key": None}
    return base | {"text": text} | fields


# For "alpha beta": X shares alpha and is the shortest (BM25 first), but its vectors cancel
# (similarity 0); Y shares no word but points the question's way (similarity 1); Z shares
# beta and points nearly that way: second in both rankings. W is in neither.
STORE: dict[str, Any] = {
    "schema": 1,
    "title": "hand-made",
    "tenants": [{"id": "t", "label": "T"}],
    "questions": [{"id": "q", "text": "alpha beta", "supporting": {"t": ["Z"]}}],
    "records": [
        record("X", "alpha delta"),
        record("Y", "gamma"),
        record("Z", "beta gamma gamma"),
        record("W", "delta"),
    ],
}


def answer(policy: dict[str, Any], store: dict[str, Any] = STORE) -> dict[str, Any]:
    session = engine.Session(engine.parse_store(store), embedding=VECTORS)
    result = session.run({"scorer": "hybrid", "budget_words": 500, "max_records": 4} | policy)
    assert "error" not in result, result
    rows: dict[str, Any] = {row["id"]: row for row in result["records"]}
    return rows | {"": result}


def test_rrf_by_hand() -> None:
    """Z is second under BM25 and under the embedding, so it leads the fusion: 2/(k+2) beats
    1/(k+1); its relevance is that over 2/(k+1). X and Y are each first in one ranking."""
    rows = answer({"rrf_k": 60})
    result = rows[""]
    assert result["ranked"] == ["Z", "X", "Y"]
    assert (rows["X"]["ranks"], rows["Z"]["ranks"]) == (
        {"tfidf": 1, "bm25": 1, "embedding": None, "hybrid": 2},
        {"tfidf": 2, "bm25": 2, "embedding": 2, "hybrid": 1},
    )
    assert rows["Y"]["ranks"] == {"tfidf": None, "bm25": None, "embedding": 1, "hybrid": 3}
    assert rows["Z"]["rrf"] == pytest.approx(2 / 62, abs=1e-15)
    assert rows["X"]["rrf"] == rows["Y"]["rrf"] == pytest.approx(1 / 61, abs=1e-15)
    assert rows["Z"]["relevance"] == pytest.approx((2 / 62) / (2 / 61), abs=1e-15)
    assert rows["Z"]["terms"] == [
        {"scorer": "bm25", "rank": 2, "relevance": rows["Z"]["bm25"] / rows["X"]["bm25"], "contribution": 1 / 62},
        {"scorer": "embedding", "rank": 2, "relevance": rows["Z"]["similarity"], "contribution": 1 / 62},
    ]
    assert rows["Z"]["similarity"] == pytest.approx(5 / math.sqrt(2 * 13), abs=1e-12)
    assert rows["X"]["similarity"] == 0.0 and rows["Y"]["similarity"] == pytest.approx(1.0, abs=1e-12)
    # Hybrid's other rank is the embedding's.
    assert (rows["Z"]["rank"], rows["Z"]["other_rank"], rows["X"]["other_rank"]) == (1, 2, None)


def test_a_record_in_neither_ranking_is_excluded_naming_both_facts() -> None:
    """W shares no word and its similarity is under the minimum: below_similarity, both numbers given."""
    rows = answer({"min_similarity": 0.35})
    assert rows["W"]["outcome"] == "below_similarity" and rows["W"]["stage"] == 3
    assert rows["W"]["reason"] == (
        "Shares no term with the question (BM25 0) and its similarity -0.707 is under the minimum 0.350: "
        "neither ranking holds it, so it is excluded at any recency weight."
    )
    assert rows["W"]["rrf"] == 0.0 and rows["W"]["terms"] == [] and rows["W"]["relevance"] == 0.0


@pytest.mark.parametrize("k", [1, 7, 60, 100])
def test_every_rrf_is_its_parts_and_at_most_the_best(k: int) -> None:
    rows = answer({"rrf_k": k, "min_similarity": 0})
    for rid in "XYZW":
        row = rows[rid]
        assert row["rrf"] == pytest.approx(math.fsum(part["contribution"] for part in row["terms"]), abs=1e-15)
        assert [1 / (k + part["rank"]) for part in row["terms"]] == [part["contribution"] for part in row["terms"]]
        assert 0.0 <= row["relevance"] <= 1.0
    # At a minimum of 0, X (similarity 0) is third under the embedding too, and first and
    # third beat second and second at any k: 1/(k+1) + 1/(k+3) > 2/(k+2).
    assert [part["rank"] for part in rows["X"]["terms"]] == [1, 3]
    assert rows[""]["ranked"][0] == "X"


def test_records_tied_on_relevance_share_a_rank_whatever_the_store_order() -> None:
    """Two records with the same text tie in both rankings: both get the better rank, so
    their fused sums are equal and do not depend on which comes first in the store."""
    store = json.loads(json.dumps(STORE))
    store["records"].append(record("Z2", "beta gamma gamma"))
    rows = answer({}, store)
    assert [part["rank"] for part in rows["Z"]["terms"]] == [part["rank"] for part in rows["Z2"]["terms"]] == [2, 2]
    assert rows["Z"]["rrf"] == rows["Z2"]["rrf"]
    store["records"].reverse()
    again = answer({}, store)
    assert all(again[rid]["rrf"] == rows[rid]["rrf"] for rid in ("X", "Y", "Z", "Z2", "W"))


def test_scope_comes_first_and_rankings_hold_only_records_in_scope() -> None:
    """Z in another store: the two rankings are made without it, so X and Y move up in neither
    (they were first already) and the fusion holds X and Y alone."""
    rows = answer(
        {"store": "working"},
        STORE | {"records": [*STORE["records"][:2], record("Z", "beta", store="semantic"), STORE["records"][3]]},
    )
    assert rows["Z"]["outcome"] == "store_filtered" and rows["Z"]["rrf"] is None and rows["Z"]["terms"] == []
    assert rows[""]["ranked"] == ["X", "Y"]


@pytest.mark.parametrize(
    "policy, message",
    [
        ({"rrf_k": 0}, "policy.rrf_k: must be a whole number from 1 to 100, not 0"),
        ({"rrf_k": 101}, "policy.rrf_k: must be a whole number from 1 to 100, not 101"),
        ({"rrf_k": 2.5}, "policy.rrf_k: must be a whole number from 1 to 100, not 2.5"),
        ({"min_similarity": 1.5}, "policy.min_similarity: must be a number from 0 to 1, not 1.5"),
    ],
)
def test_bad_fusion_settings_are_refused_naming_the_field(policy: dict[str, Any], message: str) -> None:
    session = engine.Session(engine.parse_store(STORE), embedding=VECTORS)
    error = json.loads(session.answer_json(json.dumps({"scorer": "hybrid"} | policy))[0])["error"]
    assert error["name"] == "InvalidPolicy" and error["message"] == message


WORDS = ["alpha", "beta", "gamma", "delta", "alpha beta", "the"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=8),
    question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    k=st.integers(1, 100),
    minimum=st.sampled_from([0.0, 0.2, 0.35, 0.9]),
    seed=st.integers(0, 2**16),
)
def test_fusion_invariants(texts: list[str], question: str, k: int, minimum: float, seed: int) -> None:
    """A record is in the BM25 ranking when it shares a word and in the embedding's when its
    similarity reaches the minimum; its rank there is one more than the records of higher
    relevance; a record with a part is a candidate; and shuffling the store changes no sum."""
    store = STORE | {
        "records": [record(f"R{i}", text) for i, text in enumerate(texts)],
        "questions": [{"id": "q", "text": "alpha beta", "supporting": {}}],
    }
    policy = {"question_text": question, "rrf_k": k, "min_similarity": minimum}
    rows = answer(policy, store)
    ranked = [rows[f"R{i}"] for i in range(len(texts))]
    for row in ranked:
        by = {part["scorer"]: part for part in row["terms"]}
        assert ("bm25" in by) == (row["bm25"] > 0) and ("embedding" in by) == (row["similarity"] >= minimum)
        for part in row["terms"]:
            better = [
                other
                for other in ranked
                if any(p["scorer"] == part["scorer"] and p["relevance"] > part["relevance"] for p in other["terms"])
            ]
            assert len(better) == part["rank"] - 1
        assert (row["outcome"] != "below_similarity") == bool(row["terms"])
    shuffled = list(store["records"])
    random.Random(seed).shuffle(shuffled)
    again = answer(policy, store | {"records": shuffled})
    assert all(again[rid]["rrf"] == row["rrf"] for rid, row in rows.items() if rid)

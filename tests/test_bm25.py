"""BM25 as Lucene scores it: equal to an independent implementation (bm25s, method
"lucene", given the engine's own token lists) and one record's numbers by hand; and
BM25 as a policy's scorer, ranked beside TF-IDF."""

from __future__ import annotations

import json
import math
from typing import Any

import bm25s
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.bm25 import Shares, lucene_idf, record_lengths, score_question_bm25, shares_within
from engine.tfidf import build_index
from harness.fixtures import FIXTURES, load_json
from harness.generate import BASE_STORE, POLICIES
from harness.results import error_of, result_of

WORDS = ["deployment", "region", "timeout", "checkout", "roll", "release", "mumbai", "the", "not", "frankfurt", "pay"]


def oracle(texts: list[str], question: str, k1: float, b: float) -> Any:
    """bm25s's Lucene BM25 over exactly the engine's tokens; the question keeps its repeats."""
    corpus = [engine.tokenize(text) for text in texts]
    if not any(corpus):  # no record holds a term: bm25s refuses an empty vocabulary
        return np.zeros(len(texts))
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
    vocabulary = sorted({token for tokens in corpus for token in tokens})
    ids = {token: i for i, token in enumerate(vocabulary)}
    tokenized = bm25s.tokenization.Tokenized(ids=[[ids[t] for t in tokens] for tokens in corpus], vocab=ids)
    retriever.index(tokenized, show_progress=False)
    asked = [ids[token] for token in engine.tokenize(question) if token in ids]
    return retriever.get_scores(asked) if asked else np.zeros(len(texts))


def engine_scores(texts: list[str], question: str, k1: float, b: float) -> tuple[float, ...]:
    index = build_index(tuple(texts))
    return score_question_bm25(index, record_lengths(index), question, k1=k1, b=b).scores


@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (0.0, 0.0), (3.0, 1.0), (0.5, 0.3)])
def test_fixture_stores_agree_with_bm25s(k1: float, b: float) -> None:
    """Every question of both fixture stores, every record, within float32 precision."""
    for name in ("store.json", "support-store.json"):
        store = load_json(FIXTURES / name)
        texts = [r["text"] for r in store["records"]]
        for question in store["questions"]:
            got = engine_scores(texts, question["text"], k1, b)
            want = oracle(texts, question["text"], k1, b)
            assert np.allclose(got, want, rtol=1e-6, atol=1e-6), (name, question["id"])


# bm25s divides 0 by 0 for a record of stop words alone at k1 = b = 0, in entries no
# question reads.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join), min_size=1, max_size=12),
    question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    k1=st.floats(0, 3),
    b=st.floats(0, 1),
)
def test_generated_stores_agree_with_bm25s(texts: list[str], question: str, k1: float, b: float) -> None:
    got = engine_scores(texts, question, k1, b)
    want = oracle(texts, question, k1, b)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5)
    # Scored without parts (beside TF-IDF), the very same floats.
    index = build_index(tuple(texts))
    bare = score_question_bm25(index, record_lengths(index), question, k1=k1, b=b, with_parts=False)
    assert bare.scores == got and all(parts == () for parts in bare.parts)


def test_one_record_by_hand() -> None:
    """Three records, "region" asked twice: each factor of the one shared term, written out."""
    texts = ("deploy region region mumbai", "region", "timeout checkout")
    index = build_index(texts)
    lengths = record_lengths(index)
    assert lengths == (4, 1, 2)
    result = score_question_bm25(index, lengths, "region? the region", k1=1.2, b=0.75)
    (part,) = result.parts[0]
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # N = 3 records, n = 2 hold "region"
    factor = 1 - 0.75 + 0.75 * 4 / (7 / 3)  # len 4, mean length 7/3
    assert part["term"] == "region" and part["record_count"] == 2 and part["query_count"] == 2
    assert part["record_length"] == 4 and result.average_length == 7 / 3
    assert part["idf"] == pytest.approx(idf) == lucene_idf(3, 2)
    assert part["length_factor"] == pytest.approx(factor)
    assert part["contribution"] == pytest.approx(2 * idf * 2 / (2 + 1.2 * factor))
    assert result.scores[0] == pytest.approx(0.4892, abs=1e-4)  # 2 · 0.470 · 2 / (2 + 1.2 · 1.536)
    assert result.scores[2] == 0.0 and result.parts[2] == ()
    best = max(result.scores)
    shares = shares_within(result.scores, ["a", "a", "a"])
    assert shares.relative == tuple(score / best for score in result.scores) and shares.best == {"a": 1}
    # Split into two groups, each divides by its own best: the second record is its group's best.
    split = shares_within(result.scores, ["a", "b", "b"])
    assert split.relative == (1.0, 1.0, 0.0) and split.best == {"a": 0, "b": 1}
    assert shares_within((0.0, 0.0), ["a", "a"]) == Shares((0.0, 0.0), {"a": None})


# ---------------------------------------------------------------- BM25 as the policy's scorer


@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (0.0, 1.0), (2.5, 0.2)])
def test_a_bm25_policy_scores_every_record_as_the_oracle_does(k1: float, b: float) -> None:
    """Through the whole engine: each record's BM25, its share of the best, and its blend."""
    store = load_json(FIXTURES / "store.json")
    texts = [r["text"] for r in store["records"]]
    for question in store["questions"]:
        policy = {"question": question["id"], "scorer": "bm25", "bm25_k1": k1, "bm25_b": b, "recency_weight": 0.3}
        result = result_of({"store": store, "policy": policy})
        want = oracle(texts, question["text"], k1, b)
        got = [row["bm25"] for row in result["records"]]
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6), question["id"]
        for row in result["records"]:
            # The divisor is the best BM25 among the record's own tenant's records.
            best = max(other["bm25"] for other in result["records"] if other["tenant"] == row["tenant"])
            assert row["relevance"] == (row["bm25"] / best if best else 0.0)
            assert row["score"] == pytest.approx(0.7 * row["relevance"] + 0.3 * row["recency"], abs=1e-15)
            assert math.fsum(part["contribution"] for part in row["terms"]) == row["bm25"]
            assert (row["bm25"] == 0.0) == (row["cosine"] == 0.0) == (row["terms"] == [])


def test_the_share_divides_by_the_active_tenants_best_and_names_it() -> None:
    """Team A's BM25 shares never divide by a Team B record's BM25, whichever is the store's best."""
    store = load_json(FIXTURES / "store.json")
    seen_other_tenant_best = False
    for question in store["questions"]:
        for tenant in ("team-a", "team-b"):
            policy = {"question": question["id"], "tenant": tenant, "scorer": "bm25", "store": "all"}
            result = result_of({"store": store, "policy": policy})
            own = [row for row in result["records"] if row["tenant"] == tenant]
            best = max(own, key=lambda row: row["bm25"])
            head = result["question"]
            if best["bm25"] == 0.0:
                assert head["best_bm25"] == 0.0 and head["best_bm25_record"] is None
                continue
            assert head["best_bm25"] == best["bm25"] and head["best_bm25_record"] == best["id"]
            seen_other_tenant_best |= max(row["bm25"] for row in result["records"]) > best["bm25"]
            assert max(row["relevance"] for row in own) == 1.0
    # The fixtures hold a question whose store-wide best is another tenant's record.
    assert seen_other_tenant_best


@settings(max_examples=150, deadline=None)
@given(policy=POLICIES)
def test_the_other_rank_is_the_rank_the_other_scorer_gives(policy: dict[str, Any]) -> None:
    """Every record's bracketed rank is its rank when the policy names the other scorer."""
    policy = {**policy, "scorer": "bm25" if policy["scorer"] == "bm25" else "tfidf"}  # the two lexical scorers
    other = {**policy, "scorer": "bm25" if policy["scorer"] == "tfidf" else "tfidf"}
    first = result_of({"store": BASE_STORE, "policy": policy})["records"]
    second = result_of({"store": BASE_STORE, "policy": other})["records"]
    assert [r["other_rank"] for r in first] == [r["rank"] for r in second]
    assert [r["rank"] for r in first] == [r["other_rank"] for r in second]
    assert [r["outcome"] for r in first if r["stage"] < 4] == [r["outcome"] for r in second if r["stage"] < 4]


def test_tfidf_stays_the_default_and_bm25_is_chosen_by_name() -> None:
    store = load_json(FIXTURES / "store.json")
    default = result_of({"store": store})
    assert default["policy"]["scorer"] == "tfidf"
    assert all(row["relevance"] == row["cosine"] for row in default["records"])
    bm25 = result_of({"store": store, "policy": {"scorer": "bm25"}})
    assert bm25["policy"] | {"scorer": "tfidf"} == default["policy"]
    assert all("length_factor" in part for row in bm25["records"] for part in row["terms"])


@pytest.mark.parametrize(
    "policy, message",
    [
        ({"scorer": "okapi"}, 'policy.scorer: "okapi" is not one of tfidf, bm25, embedding, hybrid'),
        ({"bm25_k1": 3.5}, "policy.bm25_k1: must be a number from 0 to 3, not 3.5"),
        ({"bm25_b": -0.1}, "policy.bm25_b: must be a number from 0 to 1, not -0.1"),
        ({"bm25_b": "1"}, 'policy.bm25_b: must be a number from 0 to 1, not "1"'),
    ],
)
def test_bad_scorer_fields_are_refused_naming_the_field(policy: dict[str, Any], message: str) -> None:
    error = error_of({"store": load_json(FIXTURES / "store.json"), "policy": policy})
    assert error["name"] == "InvalidPolicy" and error["message"] == message


def test_per_term_parts_are_keyed_by_scorer_k1_and_b() -> None:
    """The page keeps parts by terms_key: BM25's depend on k1 and b, the cosine's do not."""
    opening = engine.open_json(json.dumps(load_json(FIXTURES / "store.json")))
    session = opening.session
    assert session is not None
    keys = set()
    for policy in ({}, {"recency_weight": 0.5}, {"scorer": "bm25"}, {"scorer": "bm25", "bm25_b": 0.5}):
        text, parts = session.answer_json(json.dumps(policy))
        answer = json.loads(text)
        keys.add(answer["terms_key"])
        held, no_parts = session.answer_json(json.dumps(policy), answer["terms_key"])
        assert parts is not None and no_parts is None and json.loads(held)["score"] == answer["score"]
    assert len(keys) == 3

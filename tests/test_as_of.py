"""Memory over time: a question asked as of an earlier hour, and "latest" by the time a fact
was written or the time it became true.

The oracle recomputes, apart from the engine, what each record's outcome must be (who
existed, whose fact was the latest by either clock), the TF-IDF cosines with scikit-learn's
TfidfVectorizer fitted on the records that existed at the as-of, BM25 with bm25s on those
same records, and recency with each age counted from the as-of; on random stores with keys,
times true apart from times written and ties in time, at random hours and both clocks.
"""

from __future__ import annotations

import json
import math
from typing import Any

import bm25s
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

import engine
from engine.api import open_json
from engine.fields import FIELDS_BY_NAME
from engine.parse import parse_store
from harness.fixtures import FIXTURES, STORE, load_json
from harness.generate import BASE_STORE, HOURS_OVER_TIME, POLICIES_OVER_TIME, RECORD_OVER_TIME, random_store
from harness.results import error_of, result_of

REGION = {"question": "deployment-region", "store": "all", "previous_sessions": True, "max_age_hours": 300}


def rows(result: Any) -> dict[str, Any]:
    return {row["id"]: row for row in result["records"]}


# ------------------------------------------------------------------ the default store


def test_as_of_120_hours_ago_frankfurt_was_team_as_latest_region_fact_and_reaches_the_tray() -> None:
    """Now M2 (Mumbai, 96 h) supersedes M1 (Frankfurt, 410 h); 120 hours ago M2 was not written
    yet, so M1 was the latest region fact, 290 hours old then, within the maximum age of 300."""
    now = rows(result_of({"store": STORE, "policy": REGION}))
    assert now["M1"]["outcome"] == "superseded" and now["M2"]["outcome"] == "selected"
    then = result_of({"store": STORE, "policy": REGION | {"as_of_hours": 120}})
    by_id = rows(then)
    assert "M1" in then["selected"]
    assert by_id["M2"]["outcome"] == "not_written_yet"
    assert by_id["M2"]["reason"] == "Not written yet as of 120 hours ago: written 96 hours ago."
    # Its recency counts from then: 290 hours old, 2^(-290/24).
    assert by_id["M1"]["recency"] == 2.0 ** (-290 / 24)
    # 411 hours ago no record had been written at all.
    nothing = result_of({"store": STORE, "policy": REGION | {"as_of_hours": 411}})
    assert nothing["selected"] == [] and {row["outcome"] for row in nothing["records"]} == {"not_written_yet"}


def test_not_written_yet_comes_before_the_tenant_check() -> None:
    """Team B's M6 (52 h) asked as of 60 hours ago by Team A: it did not exist yet, which is
    said before that it belongs to another tenant; M7 (120 h) existed and is another tenant's."""
    by_id = rows(result_of({"store": STORE, "policy": {"as_of_hours": 60}}))
    assert by_id["M6"]["outcome"] == "not_written_yet"
    assert by_id["M6"]["reason"] == "Not written yet as of 60 hours ago: written 52 hours ago."
    assert by_id["M7"]["outcome"] == "other_tenant"


def test_maximum_age_counts_from_the_as_of() -> None:
    """M4 is 150 hours old now: past a maximum of 100, but 50 hours old as of 100 hours ago."""
    policy = {"question": "rollback-steps", "store": "all", "previous_sessions": True, "max_age_hours": 100}
    assert rows(result_of({"store": STORE, "policy": policy}))["M4"]["outcome"] == "too_old"
    then = rows(result_of({"store": STORE, "policy": policy | {"as_of_hours": 100}}))
    assert then["M4"]["outcome"] == "selected"
    older = rows(result_of({"store": STORE, "policy": policy | {"as_of_hours": 40}}))
    assert older["M4"]["reason"] == "110 hours old as of 40 hours ago, past the maximum age of 100 hours."


def test_the_index_holds_only_the_records_written_by_then() -> None:
    """As of 100 hours ago three records existed (M1, M4, M7): "region" is in M1 alone, so its
    idf is ln((1 + 3)/(1 + 1)) + 1; now, in M1, M2 and M9 of ten, ln(11/4) + 1."""
    then = result_of({"store": STORE, "policy": REGION | {"as_of_hours": 100}})
    assert {part["term"]: part["idf"] for part in rows(then)["M1"]["terms"]}["region"] == math.log(4 / 2) + 1
    now = result_of({"store": STORE, "policy": REGION | {"latest_per_key": False}})
    assert {part["term"]: part["idf"] for part in rows(now)["M1"]["terms"]}["region"] == math.log(11 / 4) + 1


def test_the_as_of_is_refused_out_of_range_with_its_rule() -> None:
    for value in (-1, 100_001, "soon"):
        problems = error_of({"store": STORE, "policy": {"as_of_hours": value}})["problems"]
        assert problems[0]["path"] == "policy.as_of_hours"
        assert problems[0]["message"].startswith("must be a number from 0 to 100000")
    problems = error_of({"store": STORE, "policy": {"latest_by": "said"}})["problems"]
    assert problems[0] == {"path": "policy.latest_by", "message": '"said" is not one of written, true'}


# ------------------------------------------------------------------ written is not true


def clock_store() -> dict[str, Any]:
    """Three region facts of one tenant: Frankfurt since 400 h, Mumbai written 96 h ago and
    true since then, and a note filed 1 h ago about the Frankfurt years (true since 400 h)."""
    store: dict[str, Any] = json.loads(json.dumps(STORE))
    store["records"] = [
        record | {"true_since_hours": 400} if record["id"] == "M1" else record for record in store["records"]
    ]
    store["records"].append(
        {
            "id": "L1",
            "tenant": "team-a",
            "store": "semantic",
            "session": "current",
            "age_hours": 1,
            "true_since_hours": 400,
            "key": "deploy.region",
            "text": "For the record: Team A ran its production deployment in Frankfurt until March.",
        }
    )
    return store


def test_a_late_filed_note_supersedes_by_the_time_written_but_not_by_the_time_true() -> None:
    store = clock_store()
    written = rows(result_of({"store": store, "policy": REGION}))
    assert written["L1"]["outcome"] == "selected" and written["M2"]["outcome"] == "superseded"
    assert (
        written["M2"]["reason"] == "Superseded by L1, a newer fact for key deploy.region (1 hour old against 96 hours)."
    )
    true = rows(result_of({"store": store, "policy": REGION | {"latest_by": "true"}}))
    assert true["M2"]["outcome"] == "selected"
    assert true["L1"]["outcome"] == "superseded"
    assert true["L1"]["reason"] == (
        "Superseded by M2, a fact for key deploy.region that became true later (true for 96 hours against "
        "400 hours): the time each became true decided, not when it was written."
    )


def test_a_fact_announced_before_it_became_true_is_not_true_yet() -> None:
    """A note written 30 hours ago announcing a move true 10 hours ago: as of 20 hours ago it
    existed but was not true yet, so by the time true the Mumbai fact was still the latest."""
    store = clock_store()
    store["records"][-1] |= {"age_hours": 30, "true_since_hours": 10, "text": "Team A moves production to Oslo."}
    by_id = rows(result_of({"store": store, "policy": REGION | {"latest_by": "true", "as_of_hours": 20}}))
    assert by_id["L1"]["outcome"] == "not_true_yet"
    assert by_id["L1"]["reason"] == (
        "Not true yet as of 20 hours ago: it became true 10 hours ago (written 30 hours ago), "
        "and the latest is by the time a fact became true."
    )
    assert by_id["M2"]["outcome"] == "selected"
    # By the time written, the announcement is the newer record and supersedes Mumbai.
    written = rows(result_of({"store": store, "policy": REGION | {"as_of_hours": 20}}))
    assert written["M2"]["outcome"] == "superseded" and written["L1"]["outcome"] == "selected"
    assert written["M2"]["reason"] == (
        "Superseded by L1, a newer fact for key deploy.region (10 hours old against 76 hours as of "
        "20 hours ago): the time each was written decided."
    )


def test_true_since_is_read_checked_and_defaults_to_the_age() -> None:
    store = clock_store()
    store["records"][0]["true_since_hours"] = -3
    problems = error_of({"store": store, "policy": {}})["problems"]
    assert problems == [{"path": "records[0].true_since_hours", "message": "must not be negative, not -3"}]
    assert all(record.true_since_hours == record.age_hours for record in parse_store(STORE).records)


# ------------------------------------------------------------------ the oracle


def expected_outcomes(store: dict[str, Any], policy: dict[str, Any]) -> dict[str, str]:
    """Each record's scope outcome, computed apart from the engine: the checks in their order,
    and keep latest per key as a group-by over the records that existed (and, by the time
    true, were true) at the as-of."""
    as_of, clock = policy["as_of_hours"], policy["latest_by"]

    def true_since(record: dict[str, Any]) -> float:
        return float(record.get("true_since_hours", record["age_hours"]))

    def time(record: dict[str, Any]) -> float:
        return true_since(record) if clock == "true" else record["age_hours"]

    alive = [r for r in store["records"] if r["age_hours"] >= as_of and (clock == "written" or true_since(r) >= as_of)]
    latest: dict[tuple[str, str], float] = {}
    for r in alive:
        if r["key"] is not None:
            slot = (r["tenant"], r["key"])
            latest[slot] = min(latest.get(slot, math.inf), time(r))
    found = {}
    for r in store["records"]:
        if r["age_hours"] < as_of:
            found[r["id"]] = "not_written_yet"
        elif r["tenant"] != policy["tenant"]:
            found[r["id"]] = "other_tenant"
        elif clock == "true" and true_since(r) < as_of:
            found[r["id"]] = "not_true_yet"
        elif policy["latest_per_key"] and r["key"] is not None and latest[(r["tenant"], r["key"])] < time(r):
            found[r["id"]] = "superseded"
        elif policy["store"] != "all" and r["store"] != policy["store"]:
            found[r["id"]] = "store_filtered"
        elif r["session"] == "previous" and not policy["previous_sessions"]:
            found[r["id"]] = "previous_session"
        elif r["age_hours"] - as_of > policy["max_age_hours"]:
            found[r["id"]] = "too_old"
        else:
            found[r["id"]] = "in scope"
    return found


def sklearn_cosines(texts: list[str], question: str) -> list[float]:
    vectorizer = TfidfVectorizer(sublinear_tf=True, smooth_idf=True, norm="l2", stop_words=sorted(engine.STOP_WORDS))
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # only stop words: an empty vocabulary
        return [0.0] * len(texts)
    return [float(x) for x in (matrix @ vectorizer.transform([question]).T).toarray().ravel()]


def bm25s_scores(texts: list[str], question: str, k1: float, b: float) -> list[float]:
    corpus = [engine.tokenize(text) for text in texts]
    if not any(corpus):
        return [0.0] * len(texts)
    vocabulary = {token: i for i, token in enumerate(sorted({t for tokens in corpus for t in tokens}))}
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
    tokenized = bm25s.tokenization.Tokenized(
        ids=[[vocabulary[t] for t in tokens] for tokens in corpus], vocab=vocabulary
    )
    retriever.index(tokenized, show_progress=False)
    asked = [vocabulary[t] for t in engine.tokenize(question) if t in vocabulary]
    return [float(x) for x in retriever.get_scores(asked)] if asked else [0.0] * len(texts)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=POLICIES_OVER_TIME,
    records=st.lists(RECORD_OVER_TIME, min_size=1, max_size=14),
    as_of=HOURS_OVER_TIME | st.floats(0, 500),
    on_an_age=st.booleans(),
    scorer=st.sampled_from(["tfidf", "bm25"]),
)
def test_as_of_agrees_with_an_independent_computation(
    policy: dict[str, Any], records: list[dict[str, Any]], as_of: float, on_an_age: bool, scorer: str
) -> None:
    """Outcomes of scope, cosines (scikit-learn fitted on the records that existed), BM25
    (bm25s on those records), recency from the as-of, and the score's blend."""
    store = random_store(BASE_STORE, records)
    if on_an_age:  # an as-of on a record's very hour: that record was just written
        as_of = records[len(records) // 2]["age_hours"]
    policy = policy | {"as_of_hours": as_of, "scorer": scorer, "question_text": ""}
    result = result_of({"store": store, "policy": policy})
    by_id = rows(result)
    expected = expected_outcomes(store, policy)
    scope = {rid: row["outcome"] if row["stage"] == 2 else "in scope" for rid, row in by_id.items()}
    assert scope == expected
    existed = [r for r in store["records"] if r["age_hours"] >= as_of]
    question = next(q["text"] for q in store["questions"] if q["id"] == policy["question"])
    texts = [r["text"] for r in existed]
    cosines = sklearn_cosines(texts, question) if texts else []
    bm25 = bm25s_scores(texts, question, policy["bm25_k1"], policy["bm25_b"]) if texts else []
    for record, cosine, best in zip(existed, cosines, bm25, strict=True):
        row = by_id[record["id"]]
        assert row["cosine"] == pytest.approx(cosine, abs=1e-12)
        assert row["bm25"] == pytest.approx(best, rel=1e-5, abs=1e-5)
        assert row["recency"] == 2.0 ** (-(record["age_hours"] - as_of) / 24.0)
        weight = policy["recency_weight"]
        if policy["blend"] == FIELDS_BY_NAME["blend"].default:  # the seed blend: relevance with recency
            assert row["score"] == pytest.approx((1 - weight) * row["relevance"] + weight * row["recency"], abs=1e-12)
    for record in store["records"]:
        if record["age_hours"] < as_of:  # a record that did not exist holds no term of the index then
            assert by_id[record["id"]]["cosine"] == 0.0 and by_id[record["id"]]["bm25"] == 0.0
    # Under BM25 the relevance is the share of the best BM25 among the tenant's records then.
    if scorer == "bm25":
        own = [by_id[r["id"]]["bm25"] for r in existed if r["tenant"] == policy["tenant"]]
        top = max(own, default=0.0)
        for r in existed:
            if r["tenant"] == policy["tenant"]:
                share = by_id[r["id"]]["bm25"] / top if top > 0 else 0.0
                assert by_id[r["id"]]["relevance"] == pytest.approx(share, abs=1e-12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policies=st.lists(POLICIES_OVER_TIME, min_size=2, max_size=5),
    records=st.lists(RECORD_OVER_TIME, max_size=10, min_size=1),
)
def test_a_session_moving_the_as_of_answers_as_one_shot_runs_do(
    policies: list[dict[str, Any]], records: list[dict[str, Any]]
) -> None:
    """Dragging the as-of back and forth on one session: every answer is a fresh run's, and a
    terms key held from another moment never stands for this one's parts."""
    store = random_store(BASE_STORE, records)
    opened = open_json(json.dumps(store))
    session = opened.session
    assert session is not None
    keys: dict[str, str] = {}
    for policy in policies:
        assert session.run(policy) == engine.run({"store": json.loads(json.dumps(store)), "policy": policy})
        answer, parts = session.answer_json(json.dumps(policy))
        key = json.loads(answer)["terms_key"]
        assert parts is not None
        if key in keys:  # the same key: the very same parts
            assert keys[key] == parts
        keys[key] = parts


def test_at_now_the_terms_key_and_every_number_are_todays() -> None:
    """With as_of 0 and by the time written, the terms key has no moment in it."""
    session = open_json(json.dumps(STORE)).session
    assert session is not None
    for scorer in ("tfidf", "bm25"):
        now = json.loads(session.answer_json(json.dumps({"scorer": scorer}))[0])["terms_key"]
        then = json.loads(session.answer_json(json.dumps({"scorer": scorer, "as_of_hours": 5}))[0])["terms_key"]
        assert "\x1e" not in now and then != now


def test_the_support_store_still_opens_with_every_record_true_since_its_age() -> None:
    store = load_json(FIXTURES / "support-store.json")
    assert (
        result_of({"store": store, "policy": {"latest_by": "true"}})["selected"]
        == result_of({"store": store})["selected"]
    )


def test_a_guided_claim_of_an_age_counts_from_the_steps_as_of() -> None:
    """As of 20 hours ago F1 (300 hours old now) was 280 hours old: the guided-claim check
    holds "280 hours old" and refuses "300 hours old" in that step's Look for."""
    from engine.claims import check_look_for
    from engine.parse import parse_store
    from engine.session import Session

    store = load_json(FIXTURES / "timeline-store.json")
    session = Session(parse_store(store))
    guide = next(g for g, each in enumerate(store["guides"]) if each["id"] == "newest-note")
    steps = store["guides"][guide]["steps"]
    step = next(
        s
        for s, each in enumerate(steps)
        if each["policy"].get("as_of_hours") == 20 and "latest_by" not in each["policy"]
    )
    held, _ = check_look_for(session, guide, step, "F1, then 280 hours old, is superseded by F2.")
    assert held == []
    refused, _ = check_look_for(session, guide, step, "F1, then 300 hours old, is superseded by F2.")
    assert len(refused) == 1 and "F1 is 280 hours old" in str(refused[0])


def test_the_scoreboard_measures_under_the_as_of_in_force() -> None:
    """As of 120 hours ago with all stores and previous sessions, Team A's region question
    ranks M1 and not M2, which did not exist: recall at k is 0, as M2 is its support."""
    from engine.api import evaluate

    now = evaluate({"store": STORE, "policy": REGION})
    then = evaluate({"store": STORE, "policy": REGION | {"as_of_hours": 120}})
    assert "error" not in now and "error" not in then
    assert then["policy"]["as_of_hours"] == 120
    row = next(r for r in then["evaluation"] if r["question"] == "deployment-region" and r["scorer"] == "tfidf")
    assert "M1" in row["ranking"] and "M2" not in row["ranking"]
    assert row["outcomes"] == {"M2": "not_written_yet"}
    assert row["measures"] is not None and row["measures"]["recall"] == 0.0
    before = next(r for r in now["evaluation"] if r["question"] == "deployment-region" and r["scorer"] == "tfidf")
    assert before["measures"] is not None and before["measures"]["recall"] == 1.0


def test_the_command_line_takes_both_flags() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "--as-of-hours",
            "120",
            "--latest-by",
            "true",
            "--store",
            "all",
            "--previous-sessions",
            "--max-age-hours",
            "300",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    assert result["policy"]["as_of_hours"] == 120 and result["policy"]["latest_by"] == "true"
    assert "M1" in result["selected"]
    bad = subprocess.run([sys.executable, "-m", "engine", "--latest-by", "soon"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--latest-by" in bad.stderr

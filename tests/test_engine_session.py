"""A store opened once: the session's full result equals a one-shot run, its slim answer
is that result by columns without what the page holds already, its parts apart, and its
JSON is json.dumps' of them."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.session import dumps
from engine.shapes import ANSWER_COLUMNS
from harness.fixtures import FIXTURES, load_json
from harness.generate import BASE_STORE, POLICIES, RECORD, random_store

SUPPORT_STORE = load_json(FIXTURES / "support-store.json")


def slim(result: Any, session: engine.Session, *, with_terms: bool = True) -> tuple[str, str | None]:
    """A full result as the slim answer carries it, as JSON text: by columns, those of the
    record's keys engine/shapes.py leaves unmarked (no store fields, no stages, no word
    counts), a per-scorer key as a column per scorer; and its parts apart, unless held."""
    rows = result["records"]
    head = {k: v for k, v in result.items() if k in ("engine_version", "policy", "question")}
    tail = {k: v for k, v in result.items() if k not in head and k != "records"}
    columns: dict[str, Any] = {}
    for name in ANSWER_COLUMNS:
        first = rows[0][name]
        if isinstance(first, dict):
            columns[name] = {scorer: [row[name][scorer] for row in rows] for scorer in first}
        else:
            columns[name] = [row[name] for row in rows]
    answer = {**head, "ids": [row["id"] for row in rows], **columns, **tail, "terms_key": terms_key(session, result)}
    return dumps(answer), dumps([row["terms"] for row in rows]) if with_terms else None


def terms_key(session: engine.Session, result: Any) -> str:
    """What a result's per-term parts depend on: the store, the question, and BM25's k1 and b;
    for the embedding scorers the scope too, and hybrid's fusion settings."""
    policy, text = result["policy"], result["question"]["text"]
    if policy["scorer"] == "bm25":
        return f"{session.name}\x1fbm25:{json.dumps([policy['bm25_k1'], policy['bm25_b']])}:{text}"
    if policy["scorer"] in ("embedding", "hybrid"):
        names = ["tenant", "store", "previous_sessions", "max_age_hours", "latest_per_key"]
        if policy["scorer"] == "hybrid":
            names += ["bm25_k1", "bm25_b", "min_similarity", "rrf_k"]
        return f"{session.name}\x1f{policy['scorer']}:{json.dumps([policy[name] for name in names])}:{text}"
    return f"{session.name}:{text}"


def open_session(store: Any) -> engine.Session:
    opening = engine.open_json(json.dumps(store))
    assert opening.session is not None, opening.reply
    return opening.session


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policies=st.lists(POLICIES, min_size=1, max_size=5), records=st.lists(RECORD, min_size=1, max_size=14))
def test_a_session_of_policy_changes_answers_as_one_shot_runs_do(
    policies: list[dict[str, Any]], records: list[dict[str, Any]]
) -> None:
    """Policy after policy on one session: the answer is run()'s result, slimmed, as json.dumps writes it."""
    store = random_store(BASE_STORE, records)
    session = open_session(store)
    for policy in policies:
        full = engine.run({"store": copy.deepcopy(store), "policy": policy})
        assert session.answer_json(json.dumps(policy)) == slim(full, session)
        held = json.loads(session.answer_json(json.dumps(policy))[0])["terms_key"]
        assert session.answer_json(json.dumps(policy), held) == slim(full, session, with_terms=False)
        assert session.run(policy) == full


def test_switching_questions_never_mixes_their_parts() -> None:
    """More questions than a session keeps, asked back and forth, in both fixture stores."""
    for store in (load_json(FIXTURES / "store.json"), SUPPORT_STORE):
        session = open_session(store)
        for _ in range(2):
            for question in store["questions"]:
                for budget in (0, 9, 40, 120):
                    policy = {
                        "question": question["id"],
                        "budget_words": budget,
                        "store": "all",
                        "previous_sessions": True,
                    }
                    full = engine.run({"store": store, "policy": policy})
                    assert session.answer_json(json.dumps(policy)) == slim(full, session)


def test_opening_replies_with_word_counts_and_recency_and_answers_hold_no_texts() -> None:
    store = load_json(FIXTURES / "store.json")
    opening = engine.open_json(json.dumps(store))
    full = engine.run({"store": store})
    assert json.loads(opening.reply) == {
        "records": 10,
        "words": [engine.word_count(r["text"]) for r in store["records"]],
        "importance": [r.get("importance", 5) for r in store["records"]],
        "recency": [row["recency"] for row in full["records"]],  # type: ignore[typeddict-item]
    }
    assert opening.session is not None
    text, parts = opening.session.answer_json("{}")
    assert json.loads(text)["ids"] == [f"M{i}" for i in range(1, 11)]
    assert all(record["text"] not in text + (parts or "") for record in store["records"])


def test_a_refused_store_opens_no_session_and_names_each_problem() -> None:
    broken = load_json(FIXTURES / "store.json")
    broken["records"][3]["store"] = "semntic"
    del broken["title"]
    for text, path in ((json.dumps(broken), "store.title"), ("{not json", "store"), ("[]", "store")):
        opening = engine.open_json(text)
        assert opening.session is None
        error = json.loads(opening.reply)["error"]
        assert error["problems"][0]["path"] == path, error


def test_bad_policies_get_error_objects_never_a_traceback() -> None:
    session = open_session(load_json(FIXTURES / "store.json"))
    for text, path in (
        ('{"budget_words": 900}', "policy.budget_words"),
        ('{"colour": "red"}', "policy.colour"),
        ("[1]", "policy"),
        ("{nope", "policy"),
    ):
        reply, parts = session.answer_json(text)
        error = json.loads(reply)["error"]
        assert parts is None
        assert error["problems"][0]["path"] == path, error


def test_callers_of_run_get_parts_they_may_edit() -> None:
    """run() hands out copies; editing them changes no later answer of the session."""
    session = open_session(load_json(FIXTURES / "store.json"))
    before = session.answer_json("{}")
    for row in session.run({})["records"]:  # type: ignore[typeddict-item]
        for part in row["terms"]:
            part["contribution"] = -1.0
    assert session.answer_json("{}") == before


def test_per_term_parts_are_named_by_store_and_question() -> None:
    """Another store asking the same question gets another key, so kept parts never cross."""
    store = load_json(FIXTURES / "store.json")
    edited = copy.deepcopy(store)
    edited["records"][0]["text"] += " region"
    keys = [json.loads(open_session(s).answer_json("{}")[0])["terms_key"] for s in (store, edited, store)]
    assert keys[0] == keys[2] != keys[1]


def test_budget_changes_divide_bm25_once_per_question(monkeypatch: Any) -> None:
    """BM25's shares are kept with the question: a change of budget or recency makes none again."""
    calls: list[int] = []
    from engine.bm25 import shares_within

    def counted(*args: Any) -> Any:
        calls.append(1)
        return shares_within(*args)

    monkeypatch.setattr("engine.bm25.shares_within", counted)
    session = open_session(load_json(FIXTURES / "store.json"))
    for change in ({}, {"budget_words": 60}, {"recency_weight": 0.5}, {"scorer": "bm25"}):
        assert "error" not in json.loads(session.answer_json(json.dumps(change))[0])
    assert len(calls) == 1


def test_scope_is_checked_once_per_answer_under_every_scorer(monkeypatch: Any) -> None:
    """The scope filters run once per answer, whichever scorer ranks: the embedding's parts and
    hybrid's fusion read the same records in scope as the policy scorer's test does."""
    from engine.scope import ScopeChecker

    calls: list[str] = []
    check_all = ScopeChecker.check_all

    def counted(self: ScopeChecker, *args: Any) -> Any:
        calls.append("check")
        return check_all(self, *args)

    monkeypatch.setattr(ScopeChecker, "check_all", counted)
    store = load_json(FIXTURES / "store.json")
    session = engine.Session(engine.parse_store(store), vectors=engine.load_vectors)
    for scorer in engine.fields.FIELDS_BY_NAME["scorer"].values:
        calls.clear()
        session.run({"scorer": scorer, "store": "all", "previous_sessions": True})
        assert len(calls) == 1, scorer

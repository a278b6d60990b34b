"""run_json's answer is exactly json.dumps of run()'s result, however it is encoded."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.encode import dumps
from tests.conftest import FIXTURES, load_json
from tests.test_engine_policies import BASE_STORE, POLICIES, RECORD, random_store

SUPPORT_STORE = load_json(FIXTURES / "support-store.json")


def request_text(store: Any, policy: Any) -> str:
    """Laid out as the page writes it, so run_json takes its cached fast path."""
    return f'{{"store":{json.dumps(store)},"policy":{json.dumps(policy)}}}'


def expected(store: Any, policy: Any) -> str:
    return dumps(engine.run({"store": copy.deepcopy(store), "policy": policy}))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policies=st.lists(POLICIES, min_size=1, max_size=4), records=st.lists(RECORD, min_size=1, max_size=14))
def test_a_session_of_policy_changes_answers_as_json_dumps_would(
    policies: list[dict[str, Any]], records: list[dict[str, Any]]
) -> None:
    """The same store with several policies in a row: the reused parts never go stale."""
    store = random_store(BASE_STORE, records)
    for policy in policies:
        assert engine.run_json(request_text(store, policy)) == expected(store, policy)


def test_switching_stores_and_questions_never_mixes_their_parts() -> None:
    stores = [load_json(FIXTURES / "store.json"), SUPPORT_STORE, load_json(FIXTURES / "store.json")]
    for store in stores:
        for question in store["questions"]:
            for budget in (0, 9, 40, 120):
                policy = {"question": question["id"], "budget_words": budget, "store": "all", "previous_sessions": True}
                assert engine.run_json(request_text(store, policy)) == expected(store, policy)


def test_a_store_differing_only_in_one_record_text_is_encoded_afresh() -> None:
    store = load_json(FIXTURES / "store.json")
    engine.run_json(request_text(store, {}))
    edited = copy.deepcopy(store)
    edited["records"][0]["text"] += " deployment region"
    answer = json.loads(engine.run_json(request_text(edited, {})))
    assert answer["records"][0]["text"] == edited["records"][0]["text"]
    assert engine.run_json(request_text(edited, {})) == expected(edited, {})


def test_callers_of_run_still_get_parts_they_may_edit() -> None:
    """run() hands out copies; editing them changes no later answer."""
    store = load_json(FIXTURES / "store.json")
    before = engine.run_json(request_text(store, {}))
    result = engine.run({"store": store, "policy": {}})
    for row in result["records"]:
        for part in row["terms"]:
            part["contribution"] = -1.0
    assert engine.run_json(request_text(store, {})) == before


def test_errors_and_other_layouts_are_encoded_whole() -> None:
    store = load_json(FIXTURES / "store.json")
    refused = request_text(store, {"budget_words": 900})
    assert json.loads(engine.run_json(refused))["error"]["problems"][0]["path"] == "policy.budget_words"
    other_layout = json.dumps({"policy": {"budget_words": 9}, "store": store})
    assert engine.run_json(other_layout) == expected(store, {"budget_words": 9})

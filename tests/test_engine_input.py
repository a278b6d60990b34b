"""Bad input: every malformed store or policy is refused with the path of the bad value."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import engine
from harness import ROOT


def error_of(request: Any) -> dict[str, Any]:
    result = json.loads(engine.run_json(json.dumps(request)))
    assert set(result) == {"error"}, result
    error: dict[str, Any] = result["error"]
    return error


def store_error(store: dict[str, Any]) -> dict[str, Any]:
    error = error_of({"store": store, "policy": {}})
    assert error["name"] == "InvalidStore"
    return error


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("budget_words", 501, "policy.budget_words: must be a whole number from 0 to 500, not 501"),
        ("budget_words", 9.5, "policy.budget_words: must be a whole number from 0 to 500, not 9.5"),
        ("budget_words", "9", 'policy.budget_words: must be a whole number from 0 to 500, not "9"'),
        ("budget_words", True, "policy.budget_words: must be a whole number from 0 to 500, not true"),
        ("max_records", 0, "policy.max_records: must be a whole number from 1 to 50, not 0"),
        ("recency_weight", 1.5, "policy.recency_weight: must be a number from 0 to 1, not 1.5"),
        ("max_age_hours", -1, "policy.max_age_hours: must be a number from 0 to 100000, not -1"),
        ("previous_sessions", "yes", 'policy.previous_sessions: must be true or false, not "yes"'),
        ("store", "semntic", 'policy.store: "semntic" is not one of semantic, episodic, procedural, working, all'),
        ("tenant", "team-c", 'policy.tenant: "team-c" is not one of team-a, team-b'),
        (
            "question",
            "weather",
            'policy.question: "weather" is not one of deployment-region, timeout-incident, '
            "rollback-steps, on-call-contact",
        ),
        ("budget", 9, "policy.budget: is not a known field"),
    ],
)
def test_bad_policy_value_is_named_with_its_rule(store: dict[str, Any], field: str, value: Any, message: str) -> None:
    """A policy value out of range or of the wrong type comes back as one message naming field and rule."""
    error = error_of({"store": store, "policy": {field: value}})
    assert error["name"] == "InvalidPolicy"
    assert error["message"].startswith(message)


def test_policy_problems_are_all_listed(store: dict[str, Any]) -> None:
    """Two bad fields give two problems, each with its path."""
    error = error_of({"store": store, "policy": {"budget_words": -1, "tenant": 3}})
    assert [p["path"] for p in error["problems"]] == ["policy.tenant", "policy.budget_words"]
    assert error["message"].endswith("(and 1 more problem)")


def mutate(store: dict[str, Any], change: str) -> dict[str, Any]:
    records = store["records"]
    if change == "missing field":
        del records[2]["session"]
    elif change == "unknown store":
        records[3]["store"] = "semntic"
    elif change == "unknown session":
        records[0]["session"] = "yesterday"
    elif change == "unknown tenant":
        records[1]["tenant"] = "team-z"
    elif change == "duplicate id":
        records[4]["id"] = "M1"
    elif change == "negative age":
        records[5]["age_hours"] = -3
    elif change == "non-numeric age":
        records[5]["age_hours"] = "old"
    elif change == "unknown supporting id":
        store["questions"][0]["supporting"]["team-a"] = ["M99"]
    elif change == "empty text":
        records[6]["text"] = "   "
    elif change == "wrong schema":
        store["schema"] = 2
    return store


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing field", "records[2].session: is missing"),
        ("unknown store", 'records[3].store: "semntic" is not one of semantic, episodic, procedural, working'),
        ("unknown session", 'records[0].session: "yesterday" is not one of current, previous'),
        ("unknown tenant", 'records[1].tenant: "team-z" is not one of the tenants (team-a, team-b)'),
        ("duplicate id", 'records[4].id: "M1" is used by another record'),
        ("negative age", "records[5].age_hours: must not be negative, not -3"),
        ("non-numeric age", 'records[5].age_hours: must be a number of hours, not "old"'),
        ("unknown supporting id", 'questions[0].supporting.team-a[0]: "M99" is not a record id'),
        ("empty text", "records[6].text: must not be empty"),
        ("wrong schema", "schema: must be 1, not 2"),
    ],
)
def test_malformed_store_is_refused_with_the_path(store: dict[str, Any], change: str, message: str) -> None:
    """Each kind of malformed store names the path of the bad value."""
    error = store_error(mutate(store, change))
    assert error["message"].startswith(message)


def test_every_store_problem_is_listed(store: dict[str, Any]) -> None:
    """Several problems in one file are reported together, not one per attempt."""
    store["records"][0]["store"] = "x"
    store["records"][9]["age_hours"] = None
    store["tenants"].append({"id": "team-a", "label": "Again"})
    paths = [p["path"] for p in store_error(store)["problems"]]
    assert paths == ["tenants[2].id", "records[0].store", "records[9].age_hours"]


def test_invalid_json_and_wrong_shapes_give_error_objects() -> None:
    """Not JSON, not an object, no store, unknown top-level field: an error object, never a traceback."""
    assert json.loads(engine.run_json("{oops"))["error"]["name"] == "InvalidJSON"
    assert error_of([1, 2])["name"] == "InvalidRequest"
    assert error_of({"policy": {}})["message"] == "request.store: is missing"
    assert error_of({"store": {}, "extra": 1})["message"].startswith("request.extra: is not a known field")
    assert error_of({"store": "x"})["message"].startswith("store: must be a JSON object")
    deep = "[" * 100000 + "]" * 100000
    assert "error" in json.loads(engine.run_json(deep))


def test_run_json_round_trips_the_result(store: dict[str, Any]) -> None:
    """run_json returns exactly run's result as JSON text."""
    request = {"store": store, "policy": {"question": "timeout-incident", "budget_words": 9}}
    assert json.loads(engine.run_json(json.dumps(request))) == engine.run(request)


def test_public_surface() -> None:
    """STOP_WORDS and __version__ are public, and the engine imports only the standard library."""
    assert "the" in engine.STOP_WORDS and isinstance(engine.__version__, str)
    code = (
        "import sys, engine, engine.__main__\n"
        "allowed = set(sys.stdlib_module_names) | {'engine', '__main__'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} - allowed))"
    )
    # -S: no site-packages, so a third-party import would fail here rather than pass silently.
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_run_json_reuses_a_store_without_changing_any_answer(store: dict[str, Any]) -> None:
    """The page's request layout (store text reused across policies) answers exactly as run() does."""
    other = json.loads(json.dumps(store))
    other["records"][4]["text"] = "Ticket INC-42 checkout timeout incident, now with a longer note about it."
    broken = json.loads(json.dumps(store))
    broken["records"][3]["store"] = "semntic"
    # Same length as the default store's text, differing in one tenant: must not be mistaken for it.
    same_length = json.loads(json.dumps(store))
    same_length["records"][1]["tenant"] = "team-z"
    texts = []
    for current in (store, store, other, store, broken, store, same_length, store, same_length):
        for policy in ({"question": "timeout-incident", "budget_words": 9}, {"budget_words": 8}, None):
            compact = json.dumps(current, separators=(",", ":"))
            tail = "}" if policy is None else f',"policy":{json.dumps(policy, separators=(",", ":"))}}}'
            texts.append('{"store":' + compact + tail)
    texts += ['{"store":' + json.dumps(store) + ',"policy":{},"extra":1}', '{"store": "x"}', '{"store":{}} ']
    for text in texts:
        assert json.loads(engine.run_json(text)) == engine.run(json.loads(text)), text[-60:]

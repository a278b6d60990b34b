"""The engine under Node Pyodide with the site's trimmed bytecode stdlib gives CPython's results,
the static embedding's scorers included (the shipped vectors, loaded as the page's worker loads them)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import engine
from engine.evaluate import evaluate_json
from engine.fields import EMBEDDING_SCORERS
from harness import ROOT
from harness.compare import assert_same_result
from harness.fixtures import FIXTURES, GOLDEN_FILES, load_json
from harness.generate import random_policy

VECTORS = ROOT / "embedding" / "minilm-static.rwse"


def requests_to_check() -> list[dict[str, Any]]:
    store = load_json(FIXTURES / "store.json")
    requests: list[dict[str, Any]] = [{"store": store, "policy": load_json(p)["policy"]} for p in GOLDEN_FILES]
    rng = random.Random(314)
    for _ in range(60):
        requests.append(
            {
                "store": store,
                "policy": random_policy(store, rng),
            }
        )
    for _ in range(50):  # the scorers that read the vectors
        requests.append(
            {"store": store, "policy": random_policy(store, rng) | {"scorer": rng.choice(EMBEDDING_SCORERS)}}
        )
    broken = json.loads(json.dumps(store))
    broken["records"][2]["store"] = "semntic"
    requests += [{"store": store, "policy": {"budget_words": 900}}, {"store": broken}]
    return requests


def sessions_to_check(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's path: each store opened once, then every policy of its requests in turn
    (a session keeps per-question scores, so the order matters), then two it refuses."""
    stores: dict[str, list[str]] = {}
    for request in requests:
        policies = stores.setdefault(json.dumps(request["store"]), [])
        if "policy" in request:
            policies.append(json.dumps(request["policy"]))
    for policies in stores.values():
        policies += [json.dumps({"question": "no-such-question"}), "{not json"]
    # Each policy asked naming the per-term parts the answer before it sent, as the page asks.
    sessions = [{"store": store, "policies": policies, "haveTerms": True} for store, policies in stores.items()]
    return [*sessions, {"store": "{not json", "policies": []}]


def evaluations_to_check() -> list[dict[str, Any]]:
    """The scoreboard's path: both fixture stores evaluated under a few policies, and swept."""
    rng = random.Random(50)
    checks = []
    for path in (FIXTURES / "store.json", FIXTURES / "support-store.json"):
        store = load_json(path)
        wide = {"store": "all", "previous_sessions": True, "max_age_hours": 100000}
        policies = [{}, wide, *(random_policy(store, rng) for _ in range(4))]
        checks.append({"store": json.dumps(store), "policies": [json.dumps(p) for p in policies], "sweep": False})
        checks.append({"store": json.dumps(store), "policies": [json.dumps(wide)], "sweep": True})
    return checks


def checks_to_check() -> list[str]:
    """The editor's path: both fixture stores checked whole (every guided claim holds, the
    embedding's steps included), one with a false claim, one malformed, and text that is not JSON."""
    stores = [load_json(FIXTURES / "store.json"), load_json(FIXTURES / "support-store.json")]
    false = json.loads(json.dumps(stores[0]))
    step = false["guides"][3]["steps"][0]
    step["look_for"] = step["look_for"].replace("0.359", "0.360")
    broken = json.loads(json.dumps(stores[1]))
    broken["records"][0]["age_hours"] = -1
    return [*(json.dumps(store) for store in [*stores, false, broken]), "{not json"]


def test_engine_in_node_pyodide_matches_cpython(built_site: Path) -> None:
    """Golden cases, 60 random policies, 50 more under the embedding or hybrid scorer, and error
    cases agree between Pyodide and CPython, through run_json and through the page's open_json
    and Session.answer_json; so do the scoreboard's evaluations and the editor's checks of a
    draft store (check_store_json)."""
    requests = requests_to_check()
    texts = [json.dumps(r) for r in requests]
    sessions = sessions_to_check(requests)
    done = subprocess.run(
        ["node", str(ROOT / "harness" / "pyodide_runner.mjs"), str(built_site), str(VECTORS)],
        input=json.dumps(
            {
                "requests": texts,
                "sessions": sessions,
                "evaluations": evaluations_to_check(),
                "checks": checks_to_check(),
            }
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = json.loads(done.stdout)
    assert output["info"]["python"].startswith("3.14")
    assert output["info"]["stdlib"].endswith(".pyc")  # running from the bytecode zip
    vectors = engine.load_vectors(VECTORS)
    assert json.loads(output["vectors"]) == {"tokens": vectors.size, "dims": vectors.dims}
    for text, response in zip(texts, output["responses"], strict=True):
        assert_same_result(json.loads(response), json.loads(engine.run_json(text)))

    assert len(output["sessions"]) == len(sessions)
    for asked, got in zip(sessions, output["sessions"], strict=True):
        opening = engine.open_json(asked["store"])
        assert_same_result(json.loads(got["reply"]), json.loads(opening.reply))
        if opening.session is None:
            assert got["answers"] == []
            continue
        want, held = [], ""
        for policy in asked["policies"]:
            answer, parts = opening.session.answer_json(policy, held)
            want.append([json.loads(answer), None if parts is None else json.loads(parts)])
            held = want[-1][0].get("terms_key") or ""
        assert_same_result([[json.loads(a), None if p is None else json.loads(p)] for a, p in got["answers"]], want)
    for asked, evaluated in zip(evaluations_to_check(), output["evaluations"], strict=True):
        replies = evaluated["replies"]
        session = engine.open_json(asked["store"]).session
        assert session is not None and len(replies) == len(asked["policies"])
        for policy, reply in zip(asked["policies"], replies, strict=True):
            want = json.loads(evaluate_json(session, policy, sweep=asked["sweep"]))
            assert_same_result(json.loads(reply), want)
    checks = [json.loads(checked["reply"]) for checked in output["checks"]]
    assert checks == [json.loads(engine.check_store_json(text)) for text in checks_to_check()]
    assert [len(c["claims"]) for c in checks] == [0, 0, 1, 0, 0] and not any(c["unchecked"] for c in checks)
    assert checks[0]["steps"] == 20 and checks[3]["problems"] and checks[4]["problems"][0]["path"] == "store"
    refused = [json.loads(s["reply"]) for s in output["sessions"]]
    assert [("error" in reply) for reply in refused] == [False, True, True]

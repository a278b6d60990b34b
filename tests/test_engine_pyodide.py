"""The engine under Node Pyodide with the site's trimmed bytecode stdlib gives CPython's results."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import engine
from harness.compare import assert_same_result
from tests.conftest import FIXTURES, GOLDEN_FILES, ROOT, load_json


def requests_to_check() -> list[dict[str, Any]]:
    store = load_json(FIXTURES / "store.json")
    requests: list[dict[str, Any]] = [{"store": store, "policy": load_json(p)["policy"]} for p in GOLDEN_FILES]
    rng = random.Random(314)
    for _ in range(60):
        requests.append(
            {
                "store": store,
                "policy": {
                    "question": rng.choice([q["id"] for q in store["questions"]]),
                    "tenant": rng.choice(["team-a", "team-b"]),
                    "store": rng.choice(list(engine.STORE_CHOICES)),
                    "previous_sessions": rng.random() < 0.5,
                    "max_age_hours": rng.uniform(0, 600),
                    "latest_per_key": rng.random() < 0.5,
                    "recency_weight": rng.random(),
                    "budget_words": rng.randint(0, 80),
                    "max_records": rng.randint(1, 6),
                },
            }
        )
    broken = json.loads(json.dumps(store))
    broken["records"][2]["store"] = "semntic"
    requests += [{"store": store, "policy": {"budget_words": 900}}, {"store": broken}]
    return requests


def test_engine_in_node_pyodide_matches_cpython(built_site: Path) -> None:
    """Golden cases, 60 random policies and error cases agree between Pyodide and CPython."""
    requests = requests_to_check()
    texts = [json.dumps(r) for r in requests]
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "pyodide_runner.mjs"), str(built_site)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = json.loads(done.stdout)
    assert output["info"]["python"].startswith("3.14")
    assert output["info"]["stdlib"].endswith(".pyc")  # running from the bytecode zip
    for text, response in zip(texts, output["responses"], strict=True):
        assert_same_result(json.loads(response), json.loads(engine.run_json(text)))

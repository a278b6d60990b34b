"""Benchmark: an evaluation (every question under every scorer, engine/evaluate.py) as the
page's worker runs it on an open session, in CPython.

Prints JSON: on the default store, the evaluation after a control change (the session's
question scores and vectors kept, as in the page) over random policies drawn on the
controls' steps, median and p90 beside the 50 ms target; the recency sweep (eleven
evaluations); and on a 1,000-record synthetic store (its one question supported by a few
records) the first evaluation, which embeds every record, and later ones, beside the 1 s target.
Run: python bench/evaluate_scale.py [--changes N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.evaluate import evaluate_json
from harness.generate import BASE_STORE, random_policy, synthetic_store
from harness.stats import latencies

TARGET_CHANGE_P90_MS = 50
TARGET_LARGE_S = 1.0


def timed(action: Any) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=60, help="random control changes to time (default 60)")
    args = parser.parse_args()
    engine.load_embedding(str(Path(__file__).resolve().parent.parent / "embedding" / "minilm-static.rwse"))
    rng = random.Random(50)

    session = engine.open_json(json.dumps(BASE_STORE)).session
    assert session is not None
    first_ms = timed(lambda: evaluate_json(session, "{}"))
    changes = [
        timed(lambda: evaluate_json(session, json.dumps(random_policy(BASE_STORE, rng, on_steps=True))))
        for _ in range(args.changes)
    ]
    sweeps = [
        timed(lambda: evaluate_json(session, json.dumps(random_policy(BASE_STORE, rng, on_steps=True)), sweep=True))
        for _ in range(10)
    ]

    large = synthetic_store(1_000)
    ids = [r["id"] for r in large["records"] if r["tenant"] == "team-a"]
    large["questions"][0]["supporting"] = {"team-a": ids[:3], "team-b": []}
    big = engine.open_json(json.dumps(large)).session
    assert big is not None
    wide = {"store": "all", "previous_sessions": True, "max_age_hours": 1000}
    large_first_s = timed(lambda: evaluate_json(big, json.dumps(wide))) / 1000
    later = [json.dumps({**wide, "recency_weight": i / 10, "budget_words": 40 + i}) for i in range(8)]
    large_later = [timed(lambda text=text: evaluate_json(big, text)) for text in later]
    print(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "default_store": {
                    "questions_x_scorers": len(BASE_STORE["questions"]) * 4,
                    "first_evaluation_ms": round(first_ms, 1),
                    "control_change_ms": latencies(changes),
                    "target_p90_ms": TARGET_CHANGE_P90_MS,
                    "recency_sweep_ms": latencies(sweeps),
                },
                "records_1000": {
                    "first_evaluation_s": round(large_first_s, 3),
                    "later_evaluation_ms": latencies(large_later),
                    "target_s": TARGET_LARGE_S,
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

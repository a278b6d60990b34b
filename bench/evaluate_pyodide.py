"""Benchmark: evaluations as the page's worker computes them, the built site's Pyodide under
Node (harness/pyodide_runner.mjs: no worker round trip, no rendering).

Prints JSON: on the default store, the first evaluation (it embeds every record) and then one
per control change over random policies on the controls' steps (median, p90, max beside the
50 ms target), and the recency sweep; on a 1,000-record synthetic store, its first evaluation
and later ones beside the 1 s target.
Run: python bench/evaluate_pyodide.py [--site DIR] [--changes N]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import ROOT
from harness.generate import BASE_STORE, random_policy, synthetic_store
from harness.stats import latencies

RUNNER = ROOT / "harness" / "pyodide_runner.mjs"
VECTORS = ROOT / "embedding" / "minilm-static.rwse"
TARGET_CHANGE_P90_MS = 50
TARGET_LARGE_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--changes", type=int, default=60)
    args = parser.parse_args()
    site = args.site
    if site is None:
        import build

        site = Path(tempfile.mkdtemp()) / "dist"
        build.build(out=site, quiet=True)
    rng = random.Random(50)
    default = [json.dumps({})] + [
        json.dumps(random_policy(BASE_STORE, rng, on_steps=True)) for _ in range(args.changes)
    ]
    large = synthetic_store(1_000)
    ids = [r["id"] for r in large["records"] if r["tenant"] == "team-a"]
    large["questions"][0]["supporting"] = {"team-a": ids[:3], "team-b": []}
    wide = {"store": "all", "previous_sessions": True, "max_age_hours": 1000}
    later = [json.dumps({**wide, "recency_weight": i / 10, "budget_words": 40 + i}) for i in range(8)]
    evaluations = [
        {"store": json.dumps(BASE_STORE), "policies": default, "sweep": False},
        {"store": json.dumps(BASE_STORE), "policies": default[1:11], "sweep": True},
        {"store": json.dumps(large), "policies": [json.dumps(wide), *later], "sweep": False},
    ]
    done = subprocess.run(
        ["node", str(RUNNER), str(site), str(VECTORS)],
        input=json.dumps({"requests": [], "sessions": [], "evaluations": evaluations}),
        capture_output=True,
        text=True,
        check=True,
    )
    output = json.loads(done.stdout)
    changes, sweeps, big = (each["ms"] for each in output["evaluations"])
    print(
        json.dumps(
            {
                "python": output["info"]["python"],
                "default_store": {
                    "first_evaluation_ms": round(changes[0], 1),
                    "control_change_ms": latencies(changes[1:]),
                    "target_p90_ms": TARGET_CHANGE_P90_MS,
                    "recency_sweep_ms": latencies(sweeps),
                },
                "records_1000": {
                    "first_evaluation_s": round(big[0] / 1000, 3),
                    "later_evaluation_ms": latencies(big[1:]),
                    "target_s": TARGET_LARGE_S,
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

"""Benchmark: an answer per change with MMR off against another checkout, and with MMR on.

Each series opens a store as the page's worker does (engine.open_json) and answers a
policy change after change on the open session (Session.answer_json, the per-term parts
named as held, as the page's engine client names them): Python's share of the page's
per-change time, in CPython.

- off: the context word budget changed K times (60 and 80 in turn, as bench/page_scale.py
  types them), no MMR field sent, on the default store and on harness/generate.py's
  synthetic store of 10,000 records. With --against DIR the same series runs in DIR's
  checkout too (a subprocess with DIR as its working directory, its own engine and
  harness imported: DIR is only read), the two alternating R rounds so that a busy
  machine slows both alike; the ratio of the p90s is printed beside the target, within
  10 % of DIR's.
- on: the synthetic store of 1,000 records, λ and the budget changed K times (λ 0.3,
  0.5 and 0.7 in turn, the budget 60 and 80), at the default three records and at ten,
  under TF-IDF and BM25; target p90 within 100 ms.

Prints JSON. Run: python bench/mmr_scale.py [--against /work/main] [--changes K] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# The checkout whose engine is timed: the working directory's (--series runs in another).
sys.path.insert(0, os.getcwd())

TARGET_OFF_RATIO = 1.10
TARGET_ON_MS = 100.0


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def answers(store: dict[str, Any], policies: list[dict[str, Any]]) -> list[float]:
    """Each policy's answer on one open session, in ms, the parts named as held after the first."""
    import engine

    opening = engine.open_json(json.dumps(store))
    session = opening.session
    assert session is not None, opening.reply
    held = ""
    times = []
    for policy in policies:
        start = time.perf_counter()
        text, parts = session.answer_json(json.dumps(policy), held)
        times.append((time.perf_counter() - start) * 1000)
        held = json.loads(text).get("terms_key", held) if parts is not None else held
    return times


def off_series(changes: int) -> dict[str, float]:
    """The budget changed ``changes`` times, MMR off, on the default store and on 10,000 records: p90 in ms."""
    from harness.generate import synthetic_store

    default = json.loads((Path.cwd() / "fixtures" / "store.json").read_text(encoding="utf-8"))
    budgets = [{"budget_words": 60 if i % 2 else 80} for i in range(changes)]
    out = {}
    for name, store in (("default", default), ("10000", synthetic_store(10_000))):
        times = answers(store, [{}, *budgets])[1:]
        out[name] = p90(times)
    return out


def on_series(changes: int) -> dict[str, Any]:
    from harness.generate import synthetic_store

    store = synthetic_store(1_000)
    out: dict[str, Any] = {}
    for scorer in ("tfidf", "bm25"):
        for records in (3, 10):
            policies = [
                {
                    "scorer": scorer,
                    "store": "all",
                    "previous_sessions": True,
                    "max_age_hours": 100_000,
                    "max_records": records,
                    "budget_words": 60 if i % 2 else 80,
                    "mmr_lambda": (0.3, 0.5, 0.7)[i % 3],
                }
                for i in range(changes + 1)
            ]
            times = answers(store, policies)[1:]
            out[f"{scorer}, max_records {records}"] = {
                "median_ms": round(statistics.median(times), 1),
                "p90_ms": round(p90(times), 1),
                "max_ms": round(max(times), 1),
            }
    return out


def run_series(where: Path, changes: int) -> dict[str, float]:
    """The off series in a fresh process whose working directory is ``where``."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--series", "--changes", str(changes)],
        cwd=where,
        capture_output=True,
        text=True,
        check=True,
    )
    series: dict[str, float] = json.loads(done.stdout)
    return series


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, help="another checkout to time the off series in, alternately")
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the off series")
    parser.add_argument("--series", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.series:
        print(json.dumps(off_series(args.changes)))
        return 0
    here = Path(__file__).resolve().parent.parent
    report: dict[str, Any] = {"python": sys.version.split()[0]}
    if args.against:
        mine: dict[str, list[float]] = {}
        theirs: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for where, into in ((args.against, theirs), (here, mine)):
                for name, value in run_series(where, args.changes).items():
                    into.setdefault(name, []).append(value)
        report["off"] = {
            name: {
                "p90_ms": round(statistics.median(mine[name]), 2),
                "against_p90_ms": round(statistics.median(theirs[name]), 2),
                "ratio": round(statistics.median(mine[name]) / statistics.median(theirs[name]), 3),
                "target_ratio": TARGET_OFF_RATIO,
                "met": statistics.median(mine[name]) <= TARGET_OFF_RATIO * statistics.median(theirs[name]),
                "rounds": args.rounds,
            }
            for name in mine
        }
    report["on_1000"] = on_series(args.changes)
    report["on_target_p90_ms"] = TARGET_ON_MS
    report["on_met"] = all(v["p90_ms"] <= TARGET_ON_MS for v in report["on_1000"].values())
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

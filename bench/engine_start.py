"""Benchmark: the engine's start in the page's Python, step by step, for one or more built sites.

Runs harness/engine_start.mjs (Node Pyodide from the built site's own runtime files) on
each site in turn, RUNS times, alternating, so that two builds (say, before and after a
change to the engine's imports) meet the same machine load: Pyodide's load, unpacking
the wheel and the bytecode, ``import engine``, opening the store, the first answer and a
second one. Node's V8 is not the browser worker's, but the WebAssembly is the same, so
the engine's share is measured apart from the page's downloads and rendering
(bench/worker_phases.py and bench/first_visit.py measure those in Chromium).

Prints JSON: per site, the median and minimum of each step in ms, the engine modules
imported by then, and the bytes of the wheel and the bytecode a first visit downloads.

Run: python bench/engine_start.py [--site DIR ...] [--store FILE] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness import ROOT
from harness.fixtures import FIXTURES

SCRIPT = ROOT / "harness" / "engine_start.mjs"


def runtime_bytes(site: Path) -> dict[str, int]:
    html = (site / "index.html").read_text(encoding="utf-8")
    runtime = json.loads(html.split('<script type="application/json" id="runtime">', 1)[1].split("</script>", 1)[0])
    return {
        name: (site / runtime[key]).stat().st_size
        for name, key in (("wheel", "wheelURL"), ("bytecode", "engineBytecodeURL"))
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--site", type=Path, action="append", help="a built site (repeat to compare; default: build one)"
    )
    parser.add_argument("--store", type=Path, default=FIXTURES / "store.json", help="the store to open")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        sites = args.site or [build.build(out=Path(scratch) / "dist", quiet=True).parent]
        laps: dict[Path, list[dict[str, Any]]] = {site: [] for site in sites}
        for _ in range(args.runs):
            for site in sites:
                output = subprocess.run(
                    ["node", str(SCRIPT), str(site), str(args.store)], capture_output=True, text=True, check=True
                ).stdout
                laps[site].append(json.loads(output.strip().splitlines()[-1]))
        report = {}
        for site, runs in laps.items():
            steps = runs[0]["ms"].keys()
            report[str(site)] = {
                "median_ms": {step: round(statistics.median(r["ms"][step] for r in runs), 1) for step in steps},
                "min_ms": {step: round(min(r["ms"][step] for r in runs), 1) for step in steps},
                "engine_modules": runs[0]["engine_modules"],
                "bytes": runtime_bytes(site),
            }
        print(json.dumps({"runs": args.runs, "store": str(args.store), "sites": report}, indent=2))


if __name__ == "__main__":
    main()

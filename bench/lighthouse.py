"""Benchmark: Lighthouse's scores for the built site, with its mobile and its desktop preset.

Builds the site into a temporary folder and serves it with harness/servers.py's
PagesServer, as GitHub Pages serves it (gzip, max-age=600, validators). Runs the npm
package lighthouse pinned in package.json (node_modules/.bin/lighthouse) against it,
driving Debian's Chromium (CHROME_PATH, from harness/browser.py) headless without the
sandbox. The mobile run is Lighthouse's default configuration (a Moto G Power-sized
screen, simulated slow 4G: 150 ms, 1.6 Mbit/s, and a 4× slower processor); desktop is
--preset=desktop. Lighthouse starts each run from empty storage: a first visit. The
presets alternate run by run.

Prints JSON: per preset, the median and min/max over the runs of the four category
scores (performance, accessibility, best practices, SEO, out of 100) and the core
metrics in ms (first and largest contentful paint, total blocking time, speed index;
cumulative layout shift unitless), the targets (performance ≥ 95 on mobile and 100 on
desktop; the other three 100 on both) with how many runs met them, every run, and the
audits that lost points and the longest main-thread tasks in the last run of each preset.

Run: python bench/lighthouse.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import chromium_executable
from harness.servers import PagesServer
from harness.stats import spread

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {
    "fcp_ms": "first-contentful-paint",
    "lcp_ms": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
    "speed_index_ms": "speed-index",
    "cls": "cumulative-layout-shift",
}
PRESETS: dict[str, list[str]] = {"mobile": [], "desktop": ["--preset=desktop"]}
TARGETS = {
    "mobile": {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100},
    "desktop": {"performance": 100, "accessibility": 100, "best-practices": 100, "seo": 100},
}
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"


def lighthouse_version() -> str:
    return subprocess.run([LIGHTHOUSE, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def run_lighthouse(url: str, preset: str, scratch: Path) -> dict[str, Any]:
    """One Lighthouse run: its JSON report (lhr)."""
    report = scratch / f"lighthouse-{preset}.json"
    command = [
        str(LIGHTHOUSE),
        url,
        *PRESETS[preset],
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        f"--output-path={report}",
        f"--chrome-flags={CHROME_FLAGS}",
        "--quiet",
    ]
    env = {**os.environ, "CHROME_PATH": chromium_executable()}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse {preset} failed ({done.returncode}): {done.stderr[-2000:]}")
    lhr: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    if lhr.get("runtimeError"):
        raise RuntimeError(f"lighthouse {preset}: {lhr['runtimeError']}")
    return lhr


def figures(lhr: dict[str, Any]) -> dict[str, Any]:
    scores = {name: round(lhr["categories"][name]["score"] * 100) for name in CATEGORIES}
    metrics = {
        key: round(lhr["audits"][audit]["numericValue"], 3 if key == "cls" else 0) for key, audit in METRICS.items()
    }
    return {**scores, **metrics}


def lost_points(lhr: dict[str, Any]) -> dict[str, list[str]]:
    """Per category, the audits that count towards it and scored below 1."""
    lost: dict[str, list[str]] = {}
    for name in CATEGORIES:
        for ref in lhr["categories"][name]["auditRefs"]:
            audit = lhr["audits"][ref["id"]]
            if ref["weight"] > 0 and audit.get("score") is not None and audit["score"] < 1:
                value = audit.get("displayValue", "")
                lost.setdefault(name, []).append(f"{ref['id']} ({audit['score']:.2f}{', ' + value if value else ''})")
    return lost


def long_tasks(lhr: dict[str, Any]) -> list[str]:
    """The main thread's longest tasks as Lighthouse saw them (simulated on mobile), with their script."""
    items = lhr["audits"].get("long-tasks", {}).get("details", {}).get("items", [])
    return [
        f"{item['startTime']:.0f} ms +{item['duration']:.0f} ms {str(item.get('url', '')).rsplit('/', 1)[-1] or 'the page'}"
        for item in items[:8]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per preset (default 3)")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, Any]]] = {preset: [] for preset in PRESETS}
    lost: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as scratch:
        site = Path(scratch) / "site"
        build.build(out=site, quiet=True)
        with PagesServer(site) as server:
            for i in range(args.runs):
                for preset in PRESETS if i % 2 == 0 else list(PRESETS)[::-1]:
                    lhr = run_lighthouse(server.url, preset, Path(scratch))
                    runs[preset].append(figures(lhr))
                    lost[preset] = {"audits": lost_points(lhr), "long_tasks": long_tasks(lhr)}
                    print(f"run {i + 1}/{args.runs} {preset}: {json.dumps(runs[preset][-1])}", file=sys.stderr)
    summary = {
        preset: {key: spread([run[key] for run in rows], None) for key in rows[0]} for preset, rows in runs.items()
    }
    targets = [
        {
            "preset": preset,
            "category": category,
            "target": f"≥ {limit}",
            "median": summary[preset][category]["median"],
            "met": summary[preset][category]["median"] >= limit,
            "runs_met": f"{sum(run[category] >= limit for run in runs[preset])}/{len(runs[preset])}",
        }
        for preset, limits in TARGETS.items()
        for category, limit in limits.items()
    ]
    report = {
        "benchmark": "lighthouse",
        "lighthouse": lighthouse_version(),
        "browser": f"{chromium_executable()} headless, no sandbox",
        "server": "harness.servers.PagesServer: gzip, max-age=600, ETag/Last-Modified",
        "presets": {"mobile": "default (simulated slow 4G, 4× CPU, mobile screen)", "desktop": "--preset=desktop"},
        "runs": args.runs,
        "summary": summary,
        "targets": targets,
        "per_run": runs,
        "last_run": lost,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

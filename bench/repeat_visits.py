"""Benchmark: is the first repeat visit as quick as the later ones?

Builds the site, serves it with harness/servers.py's PagesServer (as GitHub Pages does)
and, per run, in a fresh Chromium with a profile of its own (real disk and code caches):
a first visit, then a wait until the worker has saved its memory snapshot (it does so
once the page is idle), then REPEATS reloads, each left alone for SETTLE_S after Python
is ready (as a learner coming back later would find whatever the browser does in the
background done). Each visit reports the page's rw:engine-ready mark (from navigation
start) and <html data-python-boot> (fresh or snapshot).

Prints JSON: per run the ready times; the median and min/max of the first repeat and of
the later repeats; the ratio first repeat / median of the later ones, per run, against
its target (≤ 1.10).

Run: python bench/repeat_visits.py [--runs N] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch_persistent
from harness.page_timing import SETTLE_S, VIEWPORT, wait_in_page
from harness.servers import PagesServer
from harness.snapshots import wait_snapshot_saved
from harness.stats import spread

REPEATS = 4
TARGET_RATIO = 1.10


def ready(page: Page) -> dict[str, Any]:
    wait_in_page(page, "document.documentElement.dataset.engine === 'ready'")
    return {
        "ready_ms": round(page.evaluate("() => performance.getEntriesByName('rw:engine-ready')[0].startTime"), 1),
        "boot": page.get_attribute("html", "data-python-boot"),
    }


def one_run(playwright: Any, url: str, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
        context = launch_persistent(playwright, profile, viewport=VIEWPORT)
        try:
            page = context.pages[0]
            page.goto(url)
            first = ready(page)
            wait_snapshot_saved(page)
            time.sleep(SETTLE_S)
            visits = []
            for _ in range(repeats):
                page.reload()
                visits.append(ready(page))
                time.sleep(SETTLE_S)
        finally:
            context.close()
    later = statistics.median(v["ready_ms"] for v in visits[1:])
    return {"first": first, "repeats": visits, "first_repeat_over_later": round(visits[0]["ready_ms"] / later, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="fresh profiles (default 3)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"reloads per run (default {REPEATS}, at least 3)")
    args = parser.parse_args(argv)
    if args.repeats < 3:
        parser.error("--repeats must be at least 3")
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-site-") as scratch, sync_playwright() as playwright:
        site = Path(scratch) / "site"
        build.build(out=site, quiet=True)
        with PagesServer(site) as server:
            for i in range(args.runs):
                runs.append(one_run(playwright, server.url, args.repeats))
                print(f"run {i + 1}/{args.runs}: {json.dumps(runs[-1])}", file=sys.stderr)
    ratios = [run["first_repeat_over_later"] for run in runs]
    report = {
        "benchmark": "repeat_visits",
        "server": "harness.servers.PagesServer (gzip, max-age=600)",
        "runs": args.runs,
        "repeats_per_run": args.repeats,
        "settle_s": SETTLE_S,
        "summary": {
            "first_visit_ready_ms": spread([run["first"]["ready_ms"] for run in runs]),
            "first_repeat_ready_ms": spread([run["repeats"][0]["ready_ms"] for run in runs]),
            "later_repeats_ready_ms": spread([v["ready_ms"] for run in runs for v in run["repeats"][1:]]),
            "first_repeat_over_later": {
                **spread(ratios, 3),
                "target": f"≤ {TARGET_RATIO}",
                "met": statistics.median(ratios) <= TARGET_RATIO,
                "runs_met": f"{sum(r <= TARGET_RATIO for r in ratios)}/{len(ratios)}",
            },
            "boots": sorted({v["boot"] for run in runs for v in run["repeats"]}),
        },
        "per_run": runs,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

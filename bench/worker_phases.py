"""Diagnostic: where Python's start goes, phase by phase, on a first visit and on repeat visits.

Builds the site, serves it like GitHub Pages (harness/servers.py's PagesServer, gzip)
and loads it in headless Chromium:

* first visits, each in a fresh context, in the profile asked for (harness/emulation.py's
  PROFILES: unthrottled, or low_end with 4x CPU, 1.6 Mbit/s and 150 ms);
* with --repeats N, one persistent profile (real disk and code caches): a first visit,
  a wait for the memory snapshot, then N reloads, each left alone SETTLE_S after ready,
  as bench/repeat_visits.py does (unthrottled).

Each visit reports, in ms from navigation start: its navigation timing (service worker
start, response, DOM interactive), the page's marks (rw:python-worker,
rw:python-start, rw:engine-ready), the worker's own marks (rw:w-load: the worker has its
runtime paths; rw:w-prepared: Pyodide's loader imported and the snapshot looked up;
rw:w-boot: the page's go-ahead; rw:w-instantiated: the WebAssembly module compiled and
instantiated; rw:w-snapshot-read: a kept snapshot's pages read, once the module is;
rw:w-pyodide: loadPyodide done; rw:w-engine: the engine imported), and the worker's
downloads (start, end, bytes transferred), the worker's clock moved onto the page's by
the two time origins.

Run: python bench/worker_phases.py [--runs N] [--profile unthrottled|low_end] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch, launch_persistent
from harness.emulation import PROFILES, emulate
from harness.page_timing import SETTLE_S, VIEWPORT, wait_in_page
from harness.servers import PagesServer
from harness.snapshots import wait_snapshot_saved

PAGE = """() => ({
  origin: performance.timeOrigin,
  marks: Object.fromEntries(performance.getEntriesByType("mark").filter((m) => m.name.startsWith("rw:")).map((m) => [m.name, m.startTime])),
  fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
  boot: document.documentElement.dataset.pythonBoot,
  navigation: (({ workerStart, fetchStart, responseStart, responseEnd, domInteractive, domContentLoadedEventEnd }) => ({ workerStart, fetchStart, responseStart, responseEnd, domInteractive, domContentLoadedEventEnd }))(performance.getEntriesByType("navigation")[0]),
  resources: performance.getEntriesByType("resource").map((r) => [r.name.split("/").pop(), r.startTime, r.responseEnd, r.transferSize]),
})"""

WORKER = """() => ({
  origin: performance.timeOrigin,
  marks: Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])),
  resources: performance.getEntriesByType("resource").map((r) => [r.name.split("/").pop(), r.startTime, r.responseStart, r.responseEnd, r.transferSize]),
})"""


def visit(page: Page) -> dict[str, Any]:
    wait_in_page(page, "document.documentElement.dataset.engine === 'ready'")
    seen = page.evaluate(PAGE)
    worker = page.workers[-1].evaluate(WORKER)
    shift = worker["origin"] - seen["origin"]
    marks = {k: round(v) for k, v in seen["marks"].items()}
    marks |= {k: round(v + shift) for k, v in worker["marks"].items()}
    return {
        "boot": seen["boot"],
        "fcp": round(seen["fcp"] or 0),
        "navigation": {k: round(v) for k, v in seen["navigation"].items()},
        "marks": dict(sorted(marks.items(), key=lambda kv: kv[1])),
        "page_downloads": [[n, round(s), round(e), t] for n, s, e, t in seen["resources"]],
        "worker_downloads": [
            [n, round(s + shift), round(r + shift), round(e + shift), t] for n, s, r, e, t in worker["resources"]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="low_end")
    parser.add_argument("--repeats", type=int, default=0, help="reloads after a first visit (unthrottled)")
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    args = parser.parse_args(argv)
    profile = PROFILES[args.profile]
    with tempfile.TemporaryDirectory(prefix="bench-site-") as scratch, sync_playwright() as playwright:
        site = args.site or Path(scratch) / "site"
        if not args.site:
            build.build(out=site, quiet=True)
        with PagesServer(site) as server:
            if args.repeats:
                for _ in range(args.runs):
                    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
                        context = launch_persistent(playwright, folder, viewport=VIEWPORT)
                        try:
                            page = context.pages[0]
                            page.goto(server.url)
                            print(json.dumps({"visit": 0, **visit(page)}))
                            wait_snapshot_saved(page)
                            time.sleep(SETTLE_S)
                            for i in range(args.repeats):
                                page.reload()
                                print(json.dumps({"visit": i + 1, **visit(page)}))
                                time.sleep(SETTLE_S)
                        finally:
                            context.close()
            else:
                browser = launch(playwright)
                try:
                    for _ in range(args.runs):
                        context = browser.new_context(viewport=VIEWPORT)
                        try:
                            page = context.new_page()
                            emulate(context, page, profile)
                            page.goto(server.url)
                            print(json.dumps({"profile": args.profile, **visit(page)}))
                        finally:
                            context.close()
                finally:
                    browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

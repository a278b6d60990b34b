"""Benchmark: a learner's first and repeat visit, the Workbench page against stock Pyodide.

Two pages, side by side, built into one temporary folder and served by
harness/servers.py's PagesServer the way GitHub Pages serves them (gzip for text and
WebAssembly, Cache-Control: max-age=600, ETag/Last-Modified answered with 304):

* workbench/: the site as build.py builds it: prerendered table, trimmed bytecode
  stdlib, inline package lock, engine wheel unpacked by the worker.
* stock/: what most projects do. A bare page whose module worker calls loadPyodide()
  with its defaults (pyodide-lock.json fetched, the stock python_stdlib.zip), then
  pyodide.loadPackage(<the same engine wheel>) and `import engine`; the page draws
  the engine's result for the default store as a plain table once Python answers,
  so its first table paint comes after Python. Runtime files are copied from
  node_modules/pyodide, untouched.

Every first visit uses a fresh Chromium profile (a persistent context in a new
temporary user-data folder: real disk and code caches, all empty); the repeat visit
is page.reload() in the same context, seconds later (well inside max-age=600), once
the workbench's worker has saved its memory snapshot (it does so when the page has
been idle for a moment after the first answer, as it is while a learner reads it). A visit
ends once Python is ready, the table is drawn and the server has then had no request
for 1.5 s, so late requests (the favicon, the workbench's service worker precaching
for offline use once Python is ready) count for the visit that caused them.

A learner follows a link from a browser already running, so before the first visit the
new browser draws a page of text from another origin (a data: URL: nothing of either
page is cached) and is left WARM_UP_S to settle; the visit still gets a new renderer
process. Navigating the instant Chromium has launched instead adds the browser's own
start-up to the first visit: its font service is still cold (every font look-up the
page's first frame makes waits on it) and its start-up tasks compete with the page's,
lengthening the workbench's first frames and the tasks around them. --cold-browser
measures that way, for comparison.

Each page is visited on an unthrottled connection and on one throttled to 20 Mbit/s
down and up with 40 ms latency, through CDP Network.emulateNetworkConditions on the
page's session. Chromium applies that to the page's dedicated worker too: every
visit reports the worker's largest download (Resource Timing read inside the worker)
with its implied rate, under 20 Mbit/s when throttled. A service worker is a target
of its own that this session does not reach, so its precaching (after Python is
ready, small text files) is not throttled; it delays none of the figures below.

Per visit, with navigation start as 0 (see bench/page_load.py for how each is taken):
table_paint_ms (first paint that can show the full #records-body), ready_ms
(rw:engine-ready mark: Python ready and engine imported), longest_task_ms (longest
main-thread task from navigation to the end of the visit), bytes (sum of the
response bodies as sent, i.e. gzip-encoded where compressed, counted by the server:
worker and service-worker requests included, whatever the browser took from a cache
counts 0; header_bytes apart, a 304 is headers only).

Prints JSON: median and min/max per page, condition and visit over the runs, the
ratios workbench/stock of Python ready on the first and the repeat visit (paired
within each run), the targets for the workbench page (ready first visit ≤ 0.45× stock, repeat ≤ 0.35×, first table paint ≤ 300 ms,
no main-thread task over 50 ms, first-visit bytes ≤ 5.4 MB, repeat visit ≤ 10 KB,
with MB = 10^6 and KB = 10^3 bytes of body), every visit, and the responses the
server sent on the first run.

Run: python bench/first_visit.py [--runs N]   (N ≥ 3; default 3)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Playwright, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.browser import chromium_version, launch_persistent
from harness.emulation import MBIT, emulate_network
from harness.page_timing import LONG_TASK_MS, TARGET_TABLE_MS, VIEWPORT, init_script, read_load_metrics, wait_loaded
from harness.servers import PagesServer, Served
from harness.snapshots import wait_snapshot_saved
from harness.stats import ms, spread
from harness.stock_page import PAGES, build_pages

CONDITIONS: dict[str, dict[str, float] | None] = {
    "unthrottled": None,
    "throttled_20mbit_40ms": {"latency": 40, "downloadThroughput": 20 * MBIT, "uploadThroughput": 20 * MBIT},
}
VISITS = ("first", "repeat")

TARGET_READY_RATIO = {"first": 0.45, "repeat": 0.35}
TARGET_BYTES = {"first": 5_400_000, "repeat": 10_000}

# Inside the worker: its largest download, to show the throttling reached it.
WORKER_LARGEST_DOWNLOAD = """() => {
  const [e] = performance.getEntriesByType("resource").sort((a, b) => b.transferSize - a.transferSize);
  return e && e.transferSize > 0 ? { url: e.name, bytes: e.transferSize, ms: e.responseEnd - e.requestStart } : null;
}"""


@contextmanager
def fresh_profile(playwright: Playwright) -> Iterator[BrowserContext]:
    """A new Chromium with an empty profile of its own, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
        context = launch_persistent(playwright, profile, viewport=VIEWPORT)
        try:
            yield context
        finally:
            context.close()


# The page a learner was on before following the link: text in the default sans-serif
# and monospace faces, regular and bold, as most pages have.
WARM_UP_PAGE = (
    "data:text/html,<!doctype html><title>Course page</title><h1>Week 3</h1>"
    "<p>Read the notes, then open the <b>workbench</b> from the link below.</p>"
    "<pre>budget_words=40</pre>"
)
WARM_UP_S = 2.0


def warm_up(page: Page) -> None:
    """Let a just-launched browser draw an unrelated page and settle, as a learner's has."""
    page.goto(WARM_UP_PAGE)
    time.sleep(WARM_UP_S)


def visit(page: Page, server: PagesServer, go: Callable[[], object]) -> tuple[dict[str, Any], list[Served]]:
    """Navigate with go(), wait for the table and Python, return the figures and responses."""
    server.take_log()  # nothing before this navigation counts
    go()
    wait_loaded(page)
    server.wait_idle()
    metrics = read_load_metrics(page)
    served = server.take_log()
    worker_download = page.workers[0].evaluate(WORKER_LARGEST_DOWNLOAD) if page.workers else None
    if worker_download:
        worker_download = {
            "url": worker_download["url"].rsplit("/", 1)[-1],
            "bytes": worker_download["bytes"],
            "ms": ms(worker_download["ms"]),
            "mbit_s": ms(worker_download["bytes"] * 8 / 1000 / worker_download["ms"]),
        }
    figures = {
        "python_boot": page.get_attribute("html", "data-python-boot"),
        "table_paint_ms": metrics["table_paint_ms"],
        "fcp_ms": metrics["fcp_ms"],
        "ready_ms": metrics["ready_ms"],
        "longest_task_ms": metrics["longest_task_ms"],
        "longest_task_cause": metrics["longest_task_cause"],
        "bytes": sum(s.body_bytes for s in served),
        "header_bytes": sum(s.header_bytes for s in served),
        "responses": len(served),
        "worker_largest_download": worker_download,
    }
    return figures, served


def one_page(
    playwright: Playwright,
    server: PagesServer,
    page_name: str,
    network: dict[str, float] | None,
    *,
    cold_browser: bool = False,
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """The first and the repeat visit of one page in one fresh profile."""
    url = f"{server.url}{page_name}/"
    figures: dict[str, dict[str, Any]] = {}
    responses: dict[str, list[str]] = {}
    with fresh_profile(playwright) as context:
        page = context.pages[0]
        if not cold_browser:
            warm_up(page)
        context.add_init_script(init_script())
        if network is not None:
            emulate_network(context.new_cdp_session(page), network)
        for name, go in (("first", lambda: page.goto(url)), ("repeat", page.reload)):
            figures[name], served = visit(page, server, go)
            responses[name] = [f"{s.status} {s.encoding} {s.body_bytes} {s.path}" for s in served]
            if name == "first" and page_name == "workbench":
                wait_snapshot_saved(page)
                server.take_log()  # the snapshot is no request; anything else meanwhile is no visit's
    return figures, responses


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and min/max of each figure per condition, page and visit, and of the
    ratio workbench/stock of Python ready, paired run by run."""
    figures = ("table_paint_ms", "fcp_ms", "ready_ms", "longest_task_ms", "bytes", "header_bytes")
    summary: dict[str, Any] = {}
    for condition in CONDITIONS:
        cells = [run[condition] for run in runs]
        summary[condition] = {
            page: {visit: {f: spread([cell[page][visit][f] for cell in cells]) for f in figures} for visit in VISITS}
            for page in PAGES
        }
        summary[condition]["ready_ratio_workbench_over_stock"] = {
            visit: spread(
                [cell["workbench"][visit]["ready_ms"] / cell["stock"][visit]["ready_ms"] for cell in cells], 3
            )
            for visit in VISITS
        }
    return summary


def targets(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each target for the workbench page: its median over the runs, and how many runs met it."""
    checks = []
    for condition in CONDITIONS:
        cells = [run[condition] for run in runs]
        for visit in VISITS:
            mine = [cell["workbench"][visit] for cell in cells]
            ratio = TARGET_READY_RATIO[visit]
            checks += [
                check(f"Python ready ≤ {ratio}× stock", condition, visit, [cell["workbench"][visit]["ready_ms"] / cell["stock"][visit]["ready_ms"] for cell in cells], ratio),
                check(f"first table paint ≤ {TARGET_TABLE_MS} ms", condition, visit, [m["table_paint_ms"] for m in mine], TARGET_TABLE_MS),
                check(f"no main-thread task over {LONG_TASK_MS} ms (longest, ms)", condition, visit, [m["longest_task_ms"] for m in mine], 0),
                check(f"bytes ≤ {TARGET_BYTES[visit]:,}", condition, visit, [m["bytes"] for m in mine], TARGET_BYTES[visit]),
            ]  # fmt: skip
    return checks


def check(target: str, condition: str, visit: str, values: list[float], limit: float) -> dict[str, Any]:
    median = statistics.median(values)
    return {
        "target": target,
        "condition": condition,
        "visit": visit,
        "median": round(median, 3),
        "met": median <= limit,
        "runs_met": f"{sum(v <= limit for v in values)}/{len(values)}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per page and condition (default 3, at least 3)")
    parser.add_argument(
        "--cold-browser", action="store_true", help="visit the moment Chromium has launched (no warm-up page)"
    )
    args = parser.parse_args(argv)
    if args.runs < 3:
        parser.error("--runs must be at least 3")
    runs: list[dict[str, Any]] = []
    first_run_responses: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as scratch, sync_playwright() as playwright:
        root = Path(scratch)
        build_pages(root)
        with PagesServer(root) as server:
            for i in range(args.runs):
                run: dict[str, Any] = {}
                # Alternate which page goes first, so neither always gets the quieter machine.
                order = PAGES if i % 2 == 0 else PAGES[::-1]
                for condition, network in CONDITIONS.items():
                    run[condition] = {}
                    for page_name in order:
                        run[condition][page_name], responses = one_page(
                            playwright, server, page_name, network, cold_browser=args.cold_browser
                        )
                        if i == 0:
                            first_run_responses.setdefault(condition, {})[page_name] = responses
                        print(
                            f"run {i + 1}/{args.runs} {condition} {page_name}: {json.dumps(run[condition][page_name])}",
                            file=sys.stderr,
                        )
                runs.append(run)
    summary = summarize(runs)
    report = {
        "benchmark": "first_visit",
        "browser": f"{chromium_version()} headless, {VIEWPORT['width']}×{VIEWPORT['height']}, fresh profile per first visit",
        "first_visit_from": "a just-launched browser"
        if args.cold_browser
        else f"a running browser ({WARM_UP_S} s after drawing another page)",
        "server": "harness.servers.PagesServer: gzip (text, JSON, SVG, wasm; not zip/whl), max-age=600, ETag/Last-Modified → 304",
        "conditions": {name: network or "no emulation" for name, network in CONDITIONS.items()},
        "runs": args.runs,
        "summary": summary,
        "targets": targets(runs),
        "per_run": runs,
        "responses_first_run": first_run_responses,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

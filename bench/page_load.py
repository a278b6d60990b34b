"""Benchmark: how soon the built page shows its table, starts Python and answers a control.

Builds the site into a temporary folder and loads it in headless Debian Chromium, one
fresh browser context (empty cache) per run, viewport 1280×720, in two profiles:

* unthrottled: served by build.py's own server (no compression, no cache headers: a
  local check of the page itself; bench/first_visit.py measures the network side);
* low_end: a phone as Lighthouse's mobile preset models it. Through CDP on the page's
  session, Emulation.setCPUThrottlingRate 4 (Chromium applies it to the page's thread
  and to its dedicated worker) and Network.emulateNetworkConditions at 1.6 Mbit/s down,
  750 kbit/s up, 150 ms latency (the worker's downloads included); served by
  harness/servers.py's PagesServer, gzip as on GitHub Pages, since transfer sizes
  decide a slow link's waits.

In each profile the stock Pyodide page of harness/stock_page.py (defaults, the same
wheel, its table drawn once Python answers) is loaded the same way, from the same
server, alternating with the workbench run by run, with the same observers, for its
rw:engine-ready mark (stock_ready_ms) and its longest main-thread task until its table
is drawn (stock_longest_task_ms: what the machine does to a page that does almost
nothing on its main thread): the ratio ready_vs_stock is workbench over stock, paired
within a run. Each workbench run records, with navigation start as 0:

* fcp_ms: first-contentful-paint (Paint Timing). The table is prerendered in the HTML,
  so it is in the DOM before the first frame; at 1280×720 it lies below the fold, which
  is why Element Timing cannot time it (it reports only painted, visible elements).
* table_frame_ms: a requestAnimationFrame measure. A script installed before any page
  script by context.add_init_script looks, at the start of each frame and at each step
  of the page's first frames (site/js/first-frames.js draws a fresh visit in five steps,
  the table in the last: <html data-first-frames> is gone), for every row of
  #records-body in the DOM with the steps done; a message posted then marks when the
  main thread has finished that frame, the first that holds them (style, layout and paint
  recorded; the compositor may show it a little later). table_in_dom_ms is when the
  rows were first seen there, to the frame.
* table_paint_ms = max(fcp_ms, table_frame_ms): the table cannot be seen before the
  page's first paint nor before a frame holding it. This is the figure held to ≤ 300 ms.
* ready_ms: the page's User Timing mark rw:engine-ready (Python ready, engine imported).
* python_worker_ms: the page's mark rw:python-worker, where engine-start.js creates
  Python's worker (after the first frame); the worker then only prepares (its own
  script, Pyodide's loader, the downloads). python_start_ms: the mark rw:python-start,
  where main.js, its set-up done and drawn, lets Python boot (compile WebAssembly,
  start the interpreter, import the engine).
* longest_boot_task_ms: the longest 'longtask' entry (PerformanceObserver, buffered,
  from the same init script) still running at or after rw:python-start and starting
  before rw:engine-ready, i.e. while Python boots; 0 when no main-thread task reached
  50 ms. longest_task_before_python_ms: the same for tasks over before Python starts
  (parsing and the first frame of a cold renderer). long_tasks lists every one as
  [start, duration] up to Python's first answer being shown; longest_task_ms /
  longest_task_cause are the longest of them, attributed with Long Animation Frames:
  script time by invoker, and the time its frame spent rendering (style, layout, paint).
* longest_reading_frame_ms / reading_blocking_ms: the READING_MS after Python's first
  answer is shown, the page left alone as a learner reading that answer leaves it. The
  page then prepares the next visit (Python's memory snapshot, the code-cache warm-up of
  page-code-cache.js), and none of that may hold back the learner's first click or
  keystroke. Timed with Long Animation Frames rather than 'longtask' entries, which
  Chromium does not report to the page for work done in its hidden frame, and whose
  blockingDuration leaves that work out too: longest_reading_frame_ms is the longest
  frame that starts in that time (0: none passed 50 ms), the figure held to the target;
  reading_blocking_ms the largest blockingDuration; reading_frame_cause attributes the
  longest as longest_task_cause does, and reading_long_frames lists each as [start,
  duration, blocking], its start counted from the answer. The updates below start after
  this time.
* empty_longest_task_ms: the same for an empty document (a title, nothing else) loaded
  after the two pages in the same way, from the same server: the floor under
  longest_task_ms. Chromium's own start of a fresh renderer's first document is one
  task, and at low_end's 4× CPU that task alone can pass 50 ms.
* update_median_ms / update_p90_ms: 50 changes of "Context word budget" through the
  control, alternating between the default and 20 words less (or more). After each, wait for #experiment's
  data-shown-policy to carry the new budget (a MutationObserver in the page, not
  Playwright's polling: see ARM_SHOWN) and for the next frame to be drawn, so every
  change starts from an idle page; then read the page's rw:update measures (from the
  input event to the views updated, before that frame is painted).
* update_drawn_median_ms / update_drawn_p90_ms: the same changes, from the input event
  to the end of the frame that draws the updated views: once ARM_SHOWN sees the new
  budget shown, a requestAnimationFrame callback posts a message, handled when the main
  thread has finished that frame (style, layout, paint). Held to the same target.

In the low_end profile, each run also records bytes: the response bodies the server
sent for the workbench's visit, as sent (gzip where it applies), and stock_bytes for the
stock page's; download_floor_ms: those bytes at the emulated 1.6 Mbit/s, with no latency
and no processor time; floor_vs_stock: that floor over stock's ready, the lowest
ready_vs_stock the workbench's bytes allow on that link.

Waiting for the load happens inside the page, through the DevTools protocol's
Runtime.evaluate (see WAIT_IN_PAGE): no Playwright script runs in the page before the
figures are read, so none of its tasks is counted as the page's.

Prints JSON: per profile, the median and min/max of each figure over the runs beside
its target (unthrottled: table ≤ 300 ms, no main-thread task over 50 ms, update p90 and
drawn update p90 ≤ 17 ms; low_end: table ≤ 1.0 s, no main-thread task over 50 ms,
update p90 and drawn update p90 ≤ 50 ms, Python ready ≤ 0.45× stock; in both, no frame
over 50 ms while the first answer is read), the headline figures of the two profiles
side by side, and every run.

Run: python bench/page_load.py [--runs N] [--profile unthrottled|low_end]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.browser import launch
from harness.emulation import PROFILES, Profile, emulate
from harness.page_timing import (
    LONG_TASK_MS,
    TARGET_TABLE_MS,
    VIEWPORT,
    change_budget,
    frame_cause,
    init_script,
    read_load_metrics,
    wait_in_page,
    wait_loaded,
)
from harness.servers import PagesServer, StaticServer
from harness.stats import ms, p90, spread
from harness.stock_page import build_pages

READING_MS = 10_000  # left alone after the first answer, as a learner reading it
UPDATES = 50
BUDGET_STEP = 20  # words between the two budgets the updates alternate

# The floor of the long-task figure: a document with nothing in it, served and loaded as
# the workbench is.
EMPTY_HTML = '<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>Empty page</title></html>\n'
EMPTY_SETTLE_MS = 2000

TARGET_UPDATE_P90_MS = 17


@dataclass(frozen=True)
class Targets:
    """What the workbench is held to in one profile."""

    table_ms: float
    update_p90_ms: float
    ready_vs_stock: float | None


TARGETS = {
    "unthrottled": Targets(TARGET_TABLE_MS, TARGET_UPDATE_P90_MS, None),
    "low_end": Targets(1000, 50, 0.45),
}


def reading_frames(page: Page) -> dict[str, Any]:
    """The page's long animation frames in the READING_MS after now (its first answer
    just shown), the page left alone meanwhile: the harness waits outside the page."""
    answered = page.evaluate("() => performance.now()")
    page.wait_for_timeout(READING_MS)
    frames = [f for f in page.evaluate("() => window.__bench.frames") if f["start"] >= answered]
    longest = max(frames, key=lambda frame: frame["end"] - frame["start"], default=None)
    return {
        "reading_blocking_ms": ms(max((frame["blocking"] for frame in frames), default=0)),
        "longest_reading_frame_ms": ms(longest["end"] - longest["start"]) if longest else 0,
        "reading_frame_cause": frame_cause(longest) if longest else None,
        "reading_long_frames": [
            [ms(f["start"] - answered), ms(f["end"] - f["start"]), ms(f["blocking"])] for f in frames
        ],
    }


def measure_updates(page: Page) -> tuple[list[float], list[float]]:
    """For UPDATES changes of the word budget: the durations of their rw:update measures,
    and from each change's input event to the end of the frame that drew its view."""
    before = page.evaluate("() => performance.getEntriesByName('rw:update').length")
    page.evaluate("() => { window.__benchPainted = []; }")
    default = int(page.get_by_label("Context word budget", exact=True).input_value())
    other = default - BUDGET_STEP if default >= BUDGET_STEP else default + BUDGET_STEP
    for i in range(UPDATES):
        change_budget(page, (other, default)[i % 2])
    measures: list[list[float]] = page.evaluate(
        "(from) => performance.getEntriesByName('rw:update').slice(from).map((e) => [e.startTime, e.duration])", before
    )
    painted: list[float] = page.evaluate("() => window.__benchPainted")
    if len(measures) != UPDATES or len(painted) != UPDATES:
        raise RuntimeError(
            f"expected {UPDATES} rw:update measures and drawn frames, the page recorded {len(measures)} and {len(painted)}"
        )
    return [duration for _, duration in measures], [
        end - start for (start, _), end in zip(measures, painted, strict=True)
    ]


def stock_run(browser: Browser, url: str, profile: Profile) -> tuple[float, float]:
    """The stock page's rw:engine-ready mark and its longest main-thread task (0: none
    over 50 ms) until a frame holds its table, in ms, loaded as the workbench is."""
    with observed_page(browser, url, profile) as page:
        wait_loaded(page)
        metrics = read_load_metrics(page)
        return metrics["ready_ms"], metrics["longest_task_ms"]


@contextmanager
def observed_page(browser: Browser, url: str, profile: Profile) -> Iterator[Page]:
    """url loaded in a fresh context (empty cache), INIT_SCRIPT's observers installed
    and the profile emulated before it loads; the context goes afterwards."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        context.add_init_script(init_script())
        page = context.new_page()
        emulate(context, page, profile)
        page.goto(url)
        yield page
    finally:
        context.close()


def one_run(browser: Browser, url: str, profile: Profile = PROFILES["unthrottled"]) -> dict[str, Any]:
    with observed_page(browser, url, profile) as page:
        wait_loaded(page)
        # Python's first answer is shown (each shown answer records an rw:update measure).
        wait_in_page(
            page,
            "performance.getEntriesByName('rw:update').length > 0"
            " && !document.getElementById('experiment').hasAttribute('data-pending')",
        )
        result = read_load_metrics(page)
        result.update(reading_frames(page))
        updates, drawn = measure_updates(page)
        result["update_median_ms"] = ms(statistics.median(updates))
        result["update_p90_ms"] = ms(p90(updates))
        result["update_drawn_median_ms"] = ms(statistics.median(drawn))
        result["update_drawn_p90_ms"] = ms(p90(drawn))
        return result


def empty_page_longest_task(browser: Browser, url: str, profile: Profile) -> float:
    """The longest main-thread task of EMPTY_HTML in a fresh context, in ms (0: none over 50 ms).

    Loaded as the workbench is (the same observers, emulation and server), it shows
    what Chromium's own work costs any page in this profile: a fresh renderer starting
    its first document.
    """
    with observed_page(browser, url, profile) as page:
        # Loaded and EMPTY_SETTLE_MS in: long past its few tasks (the observer is buffered).
        wait_in_page(page, f"document.readyState === 'complete' && performance.now() > {EMPTY_SETTLE_MS}")
        tasks = page.evaluate("() => window.__bench.longTasks")
        return ms(max((length for _, length in tasks), default=0))


def body_bytes(server: PagesServer) -> int:
    """Response bytes (bodies, as sent: gzip where it applies) since the last call."""
    return sum(served.body_bytes for served in server.take_log())


def add_download_floor(run: dict[str, Any], throughput: float, workbench_bytes: int, stock_bytes: int) -> None:
    """What the link alone costs each page: its bytes at the emulated throughput, with no
    latency and no processor time. The workbench's floor over stock's ready is the best
    ready_vs_stock these bytes allow."""
    run["bytes"] = workbench_bytes
    run["stock_bytes"] = stock_bytes
    run["download_floor_ms"] = ms(workbench_bytes / throughput * 1000)
    run["floor_vs_stock"] = round(run["download_floor_ms"] / run["stock_ready_ms"], 3)


def with_target(values: list[float], target: float, label: str, digits: int = 1) -> dict[str, Any]:
    """Median and min/max, the target, and whether the median and each run meet it."""
    met = sum(value <= target for value in values)
    return {
        **spread(values, digits),
        "target": label,
        "met": statistics.median(values) <= target,
        "runs_met": f"{met}/{len(values)}",
    }


DOWNLOAD_FIGURES = ("bytes", "stock_bytes", "download_floor_ms", "floor_vs_stock")
HEADLINE = (
    "table_paint_ms",
    "longest_task_ms",
    "empty_longest_task_ms",
    "stock_longest_task_ms",
    "longest_reading_frame_ms",
    "update_p90_ms",
    "update_drawn_p90_ms",
    "ready_ms",
    "ready_vs_stock",
)


def summarize(runs: list[dict[str, Any]], profile: Profile, targets: Targets) -> dict[str, Any]:
    def figure(name: str) -> list[float]:
        return [run[name] for run in runs]

    no_long_task = f"no main-thread task over {LONG_TASK_MS} ms (0)"
    summary = {
        "table_paint_ms": with_target(figure("table_paint_ms"), targets.table_ms, f"≤ {targets.table_ms:g} ms"),
        "fcp_ms": spread(figure("fcp_ms")),
        "table_frame_ms": spread(figure("table_frame_ms")),
        "ready_ms": spread(figure("ready_ms")),
        "stock_ready_ms": spread(figure("stock_ready_ms")),
        "ready_vs_stock": with_target(
            figure("ready_vs_stock"), targets.ready_vs_stock, f"≤ {targets.ready_vs_stock}× stock", 3
        )
        if targets.ready_vs_stock is not None
        else spread(figure("ready_vs_stock"), 3),
        **(
            {name: spread(figure(name), 3 if name == "floor_vs_stock" else 1) for name in DOWNLOAD_FIGURES}
            if profile.network is not None
            else {}
        ),
        "python_worker_ms": spread(figure("python_worker_ms")),
        "python_start_ms": spread(figure("python_start_ms")),
        "longest_task_ms": with_target(figure("longest_task_ms"), 0, no_long_task),
        "empty_longest_task_ms": with_target(figure("empty_longest_task_ms"), 0, no_long_task + ", an empty page"),
        "stock_longest_task_ms": with_target(
            figure("stock_longest_task_ms"), 0, no_long_task + ", stock Pyodide's page"
        ),
        "longest_task_before_python_ms": spread(figure("longest_task_before_python_ms")),
        "longest_boot_task_ms": with_target(figure("longest_boot_task_ms"), 0, no_long_task + " while booting"),
        "longest_reading_frame_ms": with_target(
            figure("longest_reading_frame_ms"),
            0,
            f"no frame held over {LONG_TASK_MS} ms (0) in the {READING_MS // 1000} s after the first answer",
        ),
        "reading_blocking_ms": spread(figure("reading_blocking_ms")),
        "update_median_ms": spread(figure("update_median_ms")),
        "update_p90_ms": with_target(figure("update_p90_ms"), targets.update_p90_ms, f"≤ {targets.update_p90_ms:g} ms"),
        "update_drawn_median_ms": spread(figure("update_drawn_median_ms")),
        "update_drawn_p90_ms": with_target(
            figure("update_drawn_p90_ms"), targets.update_p90_ms, f"≤ {targets.update_p90_ms:g} ms"
        ),
    }
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="fresh-context page loads per profile (default 5)")
    parser.add_argument("--profile", choices=list(PROFILES), action="append", help="only this profile (repeatable)")
    args = parser.parse_args(argv)
    profiles = {name: PROFILES[name] for name in args.profile or PROFILES}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in profiles}
    with tempfile.TemporaryDirectory(prefix="bench-site-") as scratch, sync_playwright() as playwright:
        root = Path(scratch)
        build_pages(root)
        (root / "empty").mkdir()
        (root / "empty" / "index.html").write_text(EMPTY_HTML, encoding="utf-8")
        browser = launch(playwright)
        with StaticServer(root) as plain, PagesServer(root) as pages:
            for i in range(args.runs):
                for name, profile in profiles.items():
                    base = pages.url if profile.gzip else plain.url
                    # Alternate which page goes first, so neither always gets the quieter machine.
                    pages.take_log()
                    if i % 2:
                        stock, stock_longest = stock_run(browser, f"{base}stock/", profile)
                        stock_bytes = body_bytes(pages)
                    run = one_run(browser, f"{base}workbench/", profile)
                    run_bytes = body_bytes(pages)
                    if not i % 2:
                        stock, stock_longest = stock_run(browser, f"{base}stock/", profile)
                        stock_bytes = body_bytes(pages)
                    run["empty_longest_task_ms"] = empty_page_longest_task(browser, f"{base}empty/", profile)
                    run["stock_ready_ms"] = stock
                    run["stock_longest_task_ms"] = stock_longest
                    run["ready_vs_stock"] = round(run["ready_ms"] / stock, 3)
                    if profile.network is not None:
                        add_download_floor(run, profile.network["downloadThroughput"], run_bytes, stock_bytes)
                    runs[name].append(run)
                    print(f"run {i + 1}/{args.runs} {name}: {json.dumps(run)}", file=sys.stderr)
        version = browser.version
        browser.close()

    summary = {name: summarize(runs[name], profile, TARGETS[name]) for name, profile in profiles.items()}
    side_by_side = {
        figure: {
            name: {
                k: v for k, v in summary[name][figure].items() if k in ("median", "min", "max", "target", "runs_met")
            }
            for name in profiles
        }
        for figure in HEADLINE
    }
    report = {
        "benchmark": "page_load",
        "browser": f"Chromium {version} headless, {VIEWPORT['width']}×{VIEWPORT['height']}",
        "profiles": {
            name: {
                "cpu_throttling": profile.cpu_rate,
                "network": profile.network or "no emulation",
                "server": "harness.servers.PagesServer (gzip, max-age=600)"
                if profile.gzip
                else "build.make_server (no compression, no cache headers)",
            }
            for name, profile in profiles.items()
        },
        "runs": args.runs,
        "updates_per_run": UPDATES,
        "side_by_side": side_by_side,
        "summary": summary,
        "per_run": runs,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

In each profile the stock Pyodide page of bench/first_visit.py (defaults, the same
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
  task, and at low_end's 4× CPU that task alone often passes 50 ms.
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

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch
from harness.servers import PagesServer, StaticServer

VIEWPORT: ViewportSize = {"width": 1280, "height": 720}
READY_TIMEOUT_MS = 120_000
LONG_TASK_MS = 50
READING_MS = 10_000  # left alone after the first answer, as a learner reading it
UPDATES = 50
BUDGET_STEP = 20  # words between the two budgets the updates alternate
STORE_RECORDS = len(json.loads(build.DEFAULT_STORE.read_text(encoding="utf-8"))["records"])

# The floor of the long-task figure: a document with nothing in it, served and loaded as
# the workbench is.
EMPTY_HTML = '<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>Empty page</title></html>\n'
EMPTY_SETTLE_MS = 2000

TARGET_TABLE_MS = 300
TARGET_UPDATE_P90_MS = 17
MBIT = 1_000_000 / 8  # bytes per second


@dataclass(frozen=True)
class Profile:
    """A device and link to emulate, and the workbench's targets on it."""

    cpu_rate: float  # Emulation.setCPUThrottlingRate; 1 is the machine as it is
    network: dict[str, float] | None  # Network.emulateNetworkConditions, None for none
    gzip: bool  # served like GitHub Pages (PagesServer) rather than by build.py's server
    table_ms: float
    update_p90_ms: float
    ready_vs_stock: float | None


PROFILES = {
    "unthrottled": Profile(1, None, False, TARGET_TABLE_MS, TARGET_UPDATE_P90_MS, None),
    # Lighthouse's mobile preset: slow 4G (150 ms, 1.6 Mbit/s down, 750 kbit/s up), 4× CPU.
    "low_end": Profile(
        4, {"latency": 150, "downloadThroughput": 1.6 * MBIT, "uploadThroughput": 0.75 * MBIT}, True, 1000, 50, 0.45
    ),
}

# Runs in every document before its own scripts. Observers only read; nothing on the
# page changes. The results wait in window.__bench for read_load_metrics().
INIT_SCRIPT = """
(() => {
  const rows = %(rows)d;
  const bench = (window.__bench = { longTasks: [], frames: [], tableInDom: null, tableFrame: null });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      bench.frames.push({
        start: e.startTime,
        end: e.startTime + e.duration,
        renderStart: e.renderStart,
        blocking: e.blockingDuration,
        scripts: e.scripts.map((s) => [`${s.invoker} ${(s.sourceURL || "").split("/").pop()}:${s.sourceFunctionName || ""}`.trim(), s.duration]),
      });
    }
  }).observe({ type: "long-animation-frame", buffered: true });
  const staged = () => document.documentElement?.hasAttribute("data-first-frames") ?? false;
  const rowsIn = () => document.querySelectorAll("#records-body tr[data-record-id]").length >= rows;
  // Looked for once per frame and at each staging step, never per parsed node: a
  // MutationObserver of the document's child lists would record each of the page's
  // thousand elements as the parser adds them, a cost of the harness's that would be
  // counted in the page's first parse task.
  let found = false;
  const seen = () => {
    if (bench.tableInDom === null && rowsIn()) bench.tableInDom = performance.now();
    if (found || bench.tableInDom === null || staged()) return false;
    found = true;
    steps.disconnect();
    // Seen in a requestAnimationFrame callback (the poll's, or the page's last staging
    // step): the frame being drawn holds the table, and a task posted now runs once it
    // is. A posted message rather than a timer: the page's own tasks posted as this
    // frame starts (main.js sets the page up once the staging ends) come after it, where
    // Chromium may run a zero-delay timer after them.
    const done = new MessageChannel();
    done.port1.onmessage = () => (bench.tableFrame = performance.now());
    done.port2.postMessage(null);
    return true;
  };
  const steps = new MutationObserver(seen);
  steps.observe(document, { subtree: true, attributes: true, attributeFilter: ["data-first-frames"] });
  const poll = () => seen() || found || requestAnimationFrame(poll);
  requestAnimationFrame(poll);
})();
"""

READ_METRICS = """() => {
  const first = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const b = window.__bench;
  return {
    fcp: first("first-contentful-paint"),
    ready: first("rw:engine-ready"),
    pythonStart: first("rw:python-start"),
    pythonWorker: first("rw:python-worker"),
    tableInDom: b.tableInDom,
    tableFrame: b.tableFrame,
    longTasks: b.longTasks,
    frames: b.frames,
  };
}"""


NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))"

# Waiting for an update without disturbing it: armed before the change, a
# MutationObserver inside the page resolves once #experiment shows the new budget, so
# nothing runs on the page while the worker computes. Playwright's expect() polls the
# page every frame instead, and its polling delays the worker's answer reaching the
# page: a cost of the harness that would be counted as the page's.
ARM_SHOWN = """(value) => {
  const experiment = document.getElementById("experiment");
  const shows = () => new RegExp(`(^|&)budget_words=${value}(&|$)`).test(experiment.dataset.shownPolicy ?? "");
  window.__benchPainted ??= [];
  window.__benchShown = new Promise((done, fail) => {
    if (shows()) return done();
    const timer = setTimeout(() => fail(new Error(`budget ${value} never shown`)), 60000);
    const observer = new MutationObserver(() => {
      if (!shows()) return;
      observer.disconnect();
      clearTimeout(timer);
      // The frame that draws the new view: a message posted at its start is handled
      // once the main thread has finished it (style, layout, paint).
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => window.__benchPainted.push(performance.now());
        channel.port2.postMessage(null);
      });
      done();
    });
    observer.observe(experiment, { attributes: true, attributeFilter: ["data-shown-policy"] });
  });
}"""


def change_budget(page: Page, value: int) -> None:
    """Type a new word budget, wait until the views show its result, then for a drawn frame."""
    page.evaluate(ARM_SHOWN, value)
    page.get_by_label("Context word budget", exact=True).fill(str(value))
    page.evaluate("() => window.__benchShown")
    page.evaluate(NEXT_FRAME)


def init_script(rows: int = STORE_RECORDS) -> str:
    return INIT_SCRIPT % {"rows": rows}


# Waiting for the load without disturbing it. Playwright's wait_for_function and expect()
# first inject Playwright's own selector engine into the page, and page.evaluate its
# smaller utility script: evaluating them takes the page's main thread, usually while
# Python boots, and the page's long-task observer would count that as the page's own.
# This waits inside the page through the DevTools protocol itself (Runtime.evaluate of a
# promise), checking every 50 ms: a task of microseconds, and no script but this one.
WAIT_IN_PAGE = """((timeout) => new Promise((done, fail) => {
  const until = performance.now() + timeout;
  const check = () => {
    if (document.documentElement.dataset.engine === "failed") {
      fail(new Error(`Python failed to load: ${document.getElementById("engine-status-text")?.textContent ?? ""}`));
    } else if (CONDITION) {
      done(true);
    } else if (performance.now() > until) {
      fail(new Error(`still waiting after ${timeout} ms (data-engine=${document.documentElement.dataset.engine})`));
    } else {
      setTimeout(check, 50);
    }
  };
  check();
}))(TIMEOUT)"""


def wait_in_page(page: Page, condition: str, timeout_ms: int = READY_TIMEOUT_MS) -> None:
    """Wait until a JavaScript expression (written into the source: the CSP forbids eval) holds."""
    session = page.context.new_cdp_session(page)
    try:
        expression = WAIT_IN_PAGE.replace("CONDITION", condition).replace("TIMEOUT", str(timeout_ms))
        answer = session.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
        )
    finally:
        session.detach()
    if "exceptionDetails" in answer:
        details = answer["exceptionDetails"]
        raise RuntimeError(
            details.get("exception", {}).get("description") or details.get("text", "the page's wait failed")
        )


def wait_loaded(page: Page) -> None:
    """Python is ready and a frame holding the full table has been drawn."""
    wait_in_page(page, "document.documentElement.dataset.engine === 'ready' && window.__bench.tableFrame !== null")


def read_load_metrics(page: Page) -> dict[str, Any]:
    """Paint, readiness and long-task figures of the page's current document, in ms."""
    raw = page.evaluate(READ_METRICS)
    fcp, ready, frame, tasks = raw["fcp"], raw["ready"], raw["tableFrame"], raw["longTasks"]
    # A page without the mark (bench/first_visit.py's stock page) starts Python at once.
    python_start = raw["pythonStart"] if raw["pythonStart"] is not None else 0.0
    longest = max(tasks, key=lambda task: task[1], default=None)
    return {
        "fcp_ms": ms(fcp),
        "table_in_dom_ms": ms(raw["tableInDom"]),
        "table_frame_ms": ms(frame),
        "table_paint_ms": ms(max(fcp, frame)),
        "ready_ms": ms(ready),
        "python_worker_ms": None if raw["pythonWorker"] is None else ms(raw["pythonWorker"]),
        "python_start_ms": ms(python_start),
        "longest_task_before_python_ms": ms(
            max((length for start, length in tasks if start + length <= python_start), default=0)
        ),
        "longest_boot_task_ms": ms(
            max((length for start, length in tasks if start + length > python_start and start < ready), default=0)
        ),
        "longest_task_ms": ms(longest[1]) if longest else 0,
        "longest_task_cause": task_cause(longest, raw["frames"]) if longest else None,
        "long_tasks": [[ms(start), ms(duration)] for start, duration in tasks],
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


def task_cause(task: list[float], frames: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What the long animation frame around a long task spent its time on."""
    start = task[0]
    frame = next((f for f in frames if f["start"] - 1 <= start <= f["end"]), None)
    return None if frame is None else frame_cause(frame)


def frame_cause(frame: dict[str, Any]) -> dict[str, Any]:
    """What a long animation frame spent its time on: script by invoker, and rendering."""
    scripts: dict[str, float] = {}
    for invoker, duration in frame["scripts"]:
        scripts[invoker] = scripts.get(invoker, 0) + duration
    rendering = frame["end"] - frame["renderStart"] if frame["renderStart"] else 0
    return {
        "frame_ms": ms(frame["end"] - frame["start"]),
        "scripts_ms": {invoker: ms(duration) for invoker, duration in scripts.items()},
        "rendering_ms": ms(rendering),
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


def emulate(context: BrowserContext, page: Page, profile: Profile) -> None:
    """Slow the page (and its worker) and its link down as the profile says, before it loads."""
    if profile.cpu_rate == 1 and profile.network is None:
        return
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile.cpu_rate})
    if profile.network is not None:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, **profile.network})


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


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def ms(value: float) -> float:
    return round(value, 1)


def spread(values: list[float], digits: int = 1) -> dict[str, float]:
    return {key: round(f(values), digits) for key, f in (("median", statistics.median), ("min", min), ("max", max))}


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


def summarize(runs: list[dict[str, Any]], profile: Profile) -> dict[str, Any]:
    def figure(name: str) -> list[float]:
        return [run[name] for run in runs]

    no_long_task = f"no main-thread task over {LONG_TASK_MS} ms (0)"
    summary = {
        "table_paint_ms": with_target(figure("table_paint_ms"), profile.table_ms, f"≤ {profile.table_ms:g} ms"),
        "fcp_ms": spread(figure("fcp_ms")),
        "table_frame_ms": spread(figure("table_frame_ms")),
        "ready_ms": spread(figure("ready_ms")),
        "stock_ready_ms": spread(figure("stock_ready_ms")),
        "ready_vs_stock": with_target(
            figure("ready_vs_stock"), profile.ready_vs_stock, f"≤ {profile.ready_vs_stock}× stock", 3
        )
        if profile.ready_vs_stock is not None
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
        "update_p90_ms": with_target(figure("update_p90_ms"), profile.update_p90_ms, f"≤ {profile.update_p90_ms:g} ms"),
        "update_drawn_median_ms": spread(figure("update_drawn_median_ms")),
        "update_drawn_p90_ms": with_target(
            figure("update_drawn_p90_ms"), profile.update_p90_ms, f"≤ {profile.update_p90_ms:g} ms"
        ),
    }
    return summary


def main(argv: list[str] | None = None) -> int:
    from bench.first_visit import build_pages  # the stock page; first_visit imports this module

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

    summary = {name: summarize(runs[name], profile) for name, profile in profiles.items()}
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

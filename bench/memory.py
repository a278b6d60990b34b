"""Benchmark: the memory a visit costs a learner's browser, the Workbench page against stock Pyodide.

The two pages of harness/stock_page.py (the built site, and the bare page that boots
Pyodide with its defaults around the same wheel), built into one temporary folder and
served by harness/servers.py's PagesServer as GitHub Pages serves them. Each visit gets a
fresh Chromium with an empty profile; the pages take turns going first, run by run.

Chromium is driven through harness/cdp_pipe.py rather than Playwright, attached to the
tab alone. Playwright attaches DevTools to every worker: Chromium then keeps the
workbench's service worker running however long it is idle, where a learner's browser
stops it 30 s after its last event; and both pages hold more memory with DevTools
attached to their workers (Playwright records their network traffic), the stock page
more than the workbench.

What is measured is the memory of the page's renderer processes, as the operating
system counts it: every process Chromium started with --type=renderer (the page, its
Python worker, which lives in the page's process, and the workbench's service worker,
wherever Chromium puts it), read from /proc, in MB of 2^20 bytes:

* footprint: RssAnon + VmSwap from /proc/<pid>/status, Chromium's own "private memory
  footprint" on Linux and Android (CalculatePrivateFootprintKb in its
  memory_instrumentation service): the figure its task manager shows, its memory
  metrics report and a phone's low-memory handling weighs. The targets are judged on it.
* private: Private_Clean + Private_Dirty from /proc/<pid>/smaps_rollup, the pages no
  other process maps. Beside the footprint it also counts file pages only this process
  has touched, e.g. the parts of Chromium's own code that only this page runs, which the
  kernel can drop and read again rather than lose.
* rss: resident set size, summed the same way. It also counts pages shared with other
  processes (Chromium's code, fonts, and the raster tiles a software compositor shares
  with the browser process, which grow with how much a page draws), so a page with
  more on screen counts more here without holding more of its own.

Each figure is the difference from the same browser showing a blank tab (about:blank,
after 2 s), so the browser's own renderer start-up is left out. Per visit:

* boot_peak: the largest sums, sampled every SAMPLE_S, from navigation until Python
  is ready and its first answer is shown (the workbench: rw:update measured; stock:
  its table drawn);
* ready: just then;
* reading: READING_S later, the page left alone, while a learner reads the first
  answer: what is kept for later (the workbench's memory snapshot) has been built by
  then, and what building it left behind is counted here until it is freed. Chromium's
  next full garbage collection, which frees what nothing uses any more, may come half a
  minute after the page loaded;
* settled: IDLE_S after ready;
* idle_peak: the largest sums between ready and settled: the building of what is kept
  for later shows here;
* service_worker_at_settled: whether a service worker thread was still running in those
  processes at settled. Chromium stops an idle service worker 30 s after its last
  event, and on a first visit the workbench's gets events after ready (it precaches the
  site once Python is ready, then serves the page's code-cache warm-up), so it is
  usually still there then.

A first visit, then (unless --first-only) a repeat visit: a reload in the same browser,
measured the same way against the same blank-tab figure (the workbench restores Python
from its snapshot; the stock page boots again).

Prints JSON: per page and visit, the median and min/max of each figure over the runs;
the targets (workbench settled ≤ stock's, boot peak ≤ 1.2× stock's, paired run by run,
in footprint, and the same ratios in private and rss beside them) with how many runs met them;
every run.

With --vectors, the workbench alone, in a fresh browser per run: once its first answer
has been shown and the page has been left alone for --idle seconds (before), the Static
embedding scorer is picked; the page downloads the vectors, the worker hands them to
Python, and the embedding's answer is shown (loaded); then the page is left alone for
--idle seconds more (after). Picking a scorer replays the inspection, whose 30 s of
animation leave Blink's heap full of spent layout objects until its next collection,
which an idle tab may put off for minutes: so the tab's garbage is also collected at before
and at after (DevTools' HeapProfiler.collectGarbage: V8's full collection, Blink's heap
with it), and their difference is what the page keeps (kept). Prints the growth of the
judged figure from before to after, what is kept, the peak while loading, and the vectors'
own size beside them (target: kept ≤ that size).

Run: python bench/memory.py [--runs N] [--idle SECONDS] [--first-only] [--vectors]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.browser import chromium_version
from harness.cdp_pipe import CdpError, PipeBrowser
from harness.page_timing import READY_TIMEOUT_MS, VIEWPORT, in_page_wait
from harness.servers import PagesServer
from harness.stats import spread
from harness.stock_page import PAGES, build_pages

SAMPLE_S = 0.02
READING_S = 10.0
IDLE_S = 30.0
BLANK_SETTLE_S = 2.0
GC_SETTLE_S = 1.0
MB = 1 << 20
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
TARGET_SETTLED_RATIO = 1.0
TARGET_PEAK_RATIO = 1.2

# Python ready and its first answer on screen.
ANSWERED = {
    "workbench": "document.documentElement.dataset.engine === 'ready'"
    " && performance.getEntriesByName('rw:update').length > 0"
    " && !document.getElementById('experiment').hasAttribute('data-pending')",
    "stock": "document.documentElement.dataset.engine === 'ready'"
    " && document.querySelectorAll('#records-body tr').length > 0",
}


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:  # the process ended meanwhile
        return None


def _parents() -> dict[int, int]:
    """pid → parent pid of every process now running."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _read(f"/proc/{entry}/stat")
        if stat:
            # The command name may hold spaces and parentheses: fields start after the last ')'.
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def _cmdline(pid: int) -> str:
    """The command line as one string (Chromium's children rewrite theirs into one argument)."""
    return (_read(f"/proc/{pid}/cmdline") or "").replace("\0", " ")


def browser_pid(profile: str) -> int:
    """The browser process of the Chromium running on this profile folder."""
    flag = f"--user-data-dir={profile} "
    for pid in _parents():
        command = _cmdline(pid) + " "
        if flag in command and "--type=" not in command:
            return pid
    raise RuntimeError(f"no Chromium browser process found for {profile}")


def renderers(browser: int) -> list[int]:
    """The renderer processes the browser started (children of its zygotes included)."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [browser]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            if " --type=renderer " in _cmdline(child) + " ":
                found.append(child)
    return found


def rss_bytes(pid: int) -> int:
    statm = _read(f"/proc/{pid}/statm")
    return int(statm.split()[1]) * PAGE_SIZE if statm else 0


def footprint_bytes(pid: int) -> int:
    status = _read(f"/proc/{pid}/status") or ""
    return sum(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith(("RssAnon:", "VmSwap:")))


def private_bytes(pid: int) -> int:
    rollup = _read(f"/proc/{pid}/smaps_rollup") or ""
    return sum(
        int(line.split()[1]) * 1024
        for line in rollup.splitlines()
        if line.startswith(("Private_Clean:", "Private_Dirty:"))
    )


def service_worker_running(pids: list[int]) -> bool:
    """Whether one of these processes runs a service worker now: Chromium names the
    thread of each it starts "ServiceWorker thread" (cut to 15 characters by Linux)."""
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:  # the process ended meanwhile
            continue
        if any((_read(f"/proc/{pid}/task/{task}/comm") or "").startswith("ServiceWorker") for task in tasks):
            return True
    return False


# Each kind of figure and how one process's is read; the targets are judged on the first.
KINDS: dict[str, Callable[[int], int]] = {"footprint": footprint_bytes, "private": private_bytes, "rss": rss_bytes}
JUDGED = "footprint"


def measure(pids: list[int]) -> dict[str, int]:
    return {kind: sum(read(pid) for pid in pids) for kind, read in KINDS.items()}


class Sampler:
    """Sums the renderers' memory every SAMPLE_S in a thread; keeps the largest sums per phase."""

    def __init__(self, browser: int) -> None:
        self.browser = browser
        self.peak = dict.fromkeys(KINDS, 0)
        self.samples = 0
        self._pids: list[int] = []
        self._pids_at = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            now = time.monotonic()
            if now - self._pids_at > 0.25:  # renderers come and go; looking them up costs more than a sample
                self._pids, self._pids_at = renderers(self.browser), now
            sums = measure(self._pids)
            with self._lock:
                self.peak = {kind: max(self.peak[kind], sums[kind]) for kind in KINDS}
                self.samples += 1

    def take_peak(self) -> dict[str, int]:
        """The largest sums since the last call (at least the current ones)."""
        now = self.now()
        with self._lock:
            peak = {key: max(value, now[key]) for key, value in self.peak.items()}
            self.peak = dict.fromkeys(KINDS, 0)
        return peak

    def now(self) -> dict[str, int]:
        return measure(renderers(self.browser))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def mb(value: float) -> float:
    return round(value / MB, 1)


def open_document(browser: PipeBrowser, go: Callable[[], object]) -> None:
    """Navigate, then wait until the tab shows the new document (not the one it replaces)."""
    before = browser.evaluate("performance.timeOrigin")
    go()
    deadline = time.monotonic() + READY_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        try:
            if browser.evaluate("performance.timeOrigin") != before:
                return
        except CdpError:  # the old document went while being asked
            pass
        time.sleep(0.01)
    raise CdpError("the new document never came")


def measure_visit(
    browser: PipeBrowser,
    sampler: Sampler,
    blank: dict[str, int],
    go: Callable[[], object],
    answered: str,
    idle_s: float,
) -> dict[str, Any]:
    sampler.take_peak()
    started = time.monotonic()
    open_document(browser, go)
    browser.evaluate(in_page_wait(answered))
    boot_peak = sampler.take_peak()
    ready = sampler.now()
    answered_at = time.monotonic()
    ready_s = answered_at - started
    time.sleep(max(0.0, answered_at + READING_S - time.monotonic()))
    reading = sampler.now()
    time.sleep(max(0.0, answered_at + idle_s - time.monotonic()))
    idle_peak = sampler.take_peak()
    settled = sampler.now()
    service_worker = service_worker_running(renderers(sampler.browser))
    figures: dict[str, Any] = {"answered_s": round(ready_s, 2)}
    points = {"boot_peak": boot_peak, "ready": ready, "reading": reading, "idle_peak": idle_peak, "settled": settled}
    for point, value in points.items():
        for kind in KINDS:
            figures[f"{point}_{kind}"] = mb(value[kind] - blank[kind])
    figures["service_worker_at_settled"] = service_worker
    figures["python_boot"] = browser.evaluate("document.documentElement.dataset.pythonBoot ?? null")
    return figures


def one_page(server: PagesServer, name: str, visits: tuple[str, ...], idle_s: float) -> dict[str, Any]:
    """A fresh browser: a blank tab, then the page's visits."""
    url = f"{server.url}{name}/"
    figures: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="bench-profile-", ignore_cleanup_errors=True) as profile,
        PipeBrowser(profile, VIEWPORT["width"], VIEWPORT["height"]) as browser,
    ):
        sampler = Sampler(browser_pid(profile))
        try:
            time.sleep(BLANK_SETTLE_S)
            blank = sampler.now()
            figures["blank_tab"] = {kind: mb(blank[kind]) for kind in KINDS}
            for visit in visits:
                go = (lambda: browser.navigate(url)) if visit == "first" else browser.reload
                figures[visit] = measure_visit(browser, sampler, blank, go, ANSWERED[name], idle_s)
        finally:
            sampler.close()
    return figures


FIGURES = tuple(
    f"{point}_{kind}" for point in ("boot_peak", "ready", "reading", "idle_peak", "settled") for kind in KINDS
)


def targets(runs: list[dict[str, Any]], visits: tuple[str, ...]) -> list[dict[str, Any]]:
    checks = []
    for visit in visits:
        for target, point, limit in (
            (f"settled ≤ {TARGET_SETTLED_RATIO}× stock", "settled", TARGET_SETTLED_RATIO),
            (f"boot peak ≤ {TARGET_PEAK_RATIO}× stock", "boot_peak", TARGET_PEAK_RATIO),
        ):
            ratios = {
                kind: [
                    run["workbench"][visit][f"{point}_{kind}"] / run["stock"][visit][f"{point}_{kind}"] for run in runs
                ]
                for kind in KINDS
            }
            check = {
                "target": f"{target} ({JUDGED})",
                "visit": visit,
                "ratio_workbench_over_stock": spread(ratios[JUDGED], 3),
                "met": statistics.median(ratios[JUDGED]) <= limit,
                "runs_met": f"{sum(r <= limit for r in ratios[JUDGED])}/{len(runs)}",
            }
            for kind in KINDS:
                if kind != JUDGED:
                    check[f"{kind}_ratio"] = spread(ratios[kind], 3)
                    check[f"{kind}_runs_met"] = f"{sum(r <= limit for r in ratios[kind])}/{len(runs)}"
            checks.append(check)
    return checks


# The Static embedding scorer picked as a learner picks it, then its answer on screen.
PICK_EMBEDDING = """(() => {
  const scorer = document.getElementById("f-scorer");
  scorer.value = "embedding";
  scorer.dispatchEvent(new Event("change", { bubbles: true }));
})()"""
EMBEDDING_SHOWN = (
    "document.documentElement.dataset.vectors === 'ready'"
    " && /(^|&)scorer=embedding(&|$)/.test(document.getElementById('experiment').dataset.shownPolicy ?? '')"
    " && !document.getElementById('experiment').hasAttribute('data-pending')"
)


def collect_garbage(browser: PipeBrowser, sampler: Sampler) -> dict[str, int]:
    """The renderers' memory once the tab's garbage is collected: a full collection of its
    JavaScript heap, which takes Blink's heap (the DOM, layout objects) with it."""
    browser.send("HeapProfiler.collectGarbage", page=True)
    time.sleep(GC_SETTLE_S)
    return sampler.now()


def vectors_growth(server: PagesServer, idle_s: float, vectors_bytes: int) -> dict[str, Any]:
    """A fresh browser: the workbench's first answer, idle; the embedding picked, loaded, idle."""
    url = f"{server.url}workbench/"
    with (
        tempfile.TemporaryDirectory(prefix="bench-profile-", ignore_cleanup_errors=True) as profile,
        PipeBrowser(profile, VIEWPORT["width"], VIEWPORT["height"]) as browser,
    ):
        sampler = Sampler(browser_pid(profile))
        try:
            open_document(browser, lambda: browser.navigate(url))
            browser.evaluate(in_page_wait(ANSWERED["workbench"]))
            time.sleep(idle_s)
            before = sampler.now()
            before_collected = collect_garbage(browser, sampler)
            sampler.take_peak()
            started = time.monotonic()
            browser.evaluate(PICK_EMBEDDING)
            browser.evaluate(in_page_wait(EMBEDDING_SHOWN))
            loaded_s = time.monotonic() - started
            loaded = sampler.now()
            time.sleep(idle_s)
            peak = sampler.take_peak()
            after = sampler.now()
            after_collected = collect_garbage(browser, sampler)
        finally:
            sampler.close()
    growth = {kind: after[kind] - before[kind] for kind in KINDS}
    kept = {kind: after_collected[kind] - before_collected[kind] for kind in KINDS}
    return {
        "loaded_s": round(loaded_s, 2),
        **{f"before_{kind}": mb(before[kind]) for kind in KINDS},
        **{f"loaded_{kind}": mb(loaded[kind] - before[kind]) for kind in KINDS},
        **{f"peak_{kind}": mb(peak[kind] - before[kind]) for kind in KINDS},
        **{f"growth_{kind}": mb(growth[kind]) for kind in KINDS},
        **{f"kept_{kind}": mb(kept[kind]) for kind in KINDS},
        "vectors_mb": mb(vectors_bytes),
        "met": kept[JUDGED] <= vectors_bytes,
    }


def measure_vectors(runs: int, idle_s: float) -> dict[str, Any]:
    """--vectors: the page's memory growth from loading the embedding's vectors, run by run."""
    measured: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as scratch:
        root = Path(scratch)
        build_pages(root)
        (vectors,) = (root / "workbench" / "embedding").glob("*.rwse")
        with PagesServer(root) as server:
            for i in range(runs):
                measured.append(vectors_growth(server, idle_s, vectors.stat().st_size))
                print(f"run {i + 1}/{runs}: {json.dumps(measured[-1])}", file=sys.stderr)
    figures = [key for key in measured[0] if key not in ("met", "vectors_mb")]
    return {
        "benchmark": "memory of the embedding's vectors",
        "browser": f"{chromium_version()} headless, fresh profile per run",
        "measure": "renderer processes, as above; growth = after - before, peak = largest while loading and idle"
        " after, kept = after - before with the tab's garbage collected at both",
        "idle_s": idle_s,
        "runs": runs,
        "vectors_mb": measured[0]["vectors_mb"],
        "summary": {key: spread([run[key] for run in measured], 2) for key in figures},
        "target": f"kept growth of the {JUDGED} (garbage collected) ≤ the vectors' size",
        "met": statistics.median(run[f"kept_{JUDGED}"] for run in measured) <= measured[0]["vectors_mb"],
        "runs_met": f"{sum(run['met'] for run in measured)}/{runs}",
        "per_run": measured,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per page (default 3)")
    parser.add_argument(
        "--idle", type=float, default=IDLE_S, help=f"seconds left idle after ready (default {IDLE_S:g})"
    )
    parser.add_argument("--first-only", action="store_true", help="measure the first visit only")
    parser.add_argument(
        "--vectors", action="store_true", help="measure the workbench's growth from loading the embedding's vectors"
    )
    args = parser.parse_args(argv)
    if args.vectors:
        print(json.dumps(measure_vectors(args.runs, args.idle), indent=2, ensure_ascii=False))
        return 0
    if args.idle <= READING_S:
        parser.error(f"--idle must be more than the {READING_S:g} s at which the reading figure is taken")
    visits = ("first",) if args.first_only else ("first", "repeat")
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as scratch:
        root = Path(scratch)
        build_pages(root)
        with PagesServer(root) as server:
            for i in range(args.runs):
                run = {}
                for name in PAGES if i % 2 == 0 else PAGES[::-1]:
                    run[name] = one_page(server, name, visits, args.idle)
                    print(f"run {i + 1}/{args.runs} {name}: {json.dumps(run[name])}", file=sys.stderr)
                runs.append(run)
    summary = {
        name: {
            visit: {
                **{f: spread([run[name][visit][f] for run in runs], 2) for f in FIGURES},
                "service_worker_at_settled": f"{sum(run[name][visit]['service_worker_at_settled'] for run in runs)}/{len(runs)} runs",
            }
            for visit in visits
        }
        for name in PAGES
    }
    report = {
        "benchmark": "memory",
        "browser": f"{chromium_version()} headless, fresh profile per page and run",
        "measure": "renderer processes (page, its worker, service worker): footprint (RssAnon + VmSwap), private and rss summed over /proc, MB = 2^20 bytes, minus a blank tab",
        "idle_s": args.idle,
        "runs": args.runs,
        "summary": summary,
        "targets": targets(runs, visits),
        "per_run": runs,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

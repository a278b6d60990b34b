"""Benchmark: time to Python ready online and offline, and what a repeat visit fetches.

Builds the site, serves it locally (build.py's server: no compression, no cache
headers), and in headless Chromium with a fresh context per run: a first visit (the
service worker installs and precaches), a repeat visit online, then a reload with the
network off. Each visit reports the page's rw:engine-ready mark (from navigation
start), requests that reached the server, and requests that failed.

Run: python bench/offline_ready.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch
from harness.page_timing import wait_in_page
from harness.servers import StaticServer

READY = "() => performance.getEntriesByName('rw:engine-ready')[0].startTime"


def visit(page: Page, url: str | None) -> dict[str, Any]:
    failed: list[str] = []
    network: list[str] = []

    def finished(request: Any) -> None:
        response = request.response()
        if response is None or not response.from_service_worker:
            network.append(request.url)

    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("requestfinished", finished)
    if url:
        page.goto(url)
    else:
        page.reload()
    wait_in_page(page, "document.documentElement.dataset.engine === 'ready'")  # no Playwright script in the page
    return {"ready_ms": round(page.evaluate(READY), 1), "from_network": len(network), "failed": len(failed)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        out = Path(scratch) / "dist"
        build.build(out=out, quiet=True)
        with StaticServer(out) as server:
            browser = launch(playwright)
            for _ in range(args.runs):
                context = browser.new_context()
                page = context.new_page()
                first = visit(page, server.url)
                page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=120_000)
                page = context.new_page()
                repeat = visit(page, server.url)
                context.set_offline(True)
                offline = visit(page, None)
                context.close()
                runs.append({"first": first, "repeat_online": repeat, "offline_reload": offline})
                print(json.dumps(runs[-1]), file=sys.stderr)
            browser.close()
    summary = {
        visit_name: {
            "ready_ms_median": statistics.median(r[visit_name]["ready_ms"] for r in runs),
            "ready_ms_range": [
                min(r[visit_name]["ready_ms"] for r in runs),
                max(r[visit_name]["ready_ms"] for r in runs),
            ],
            "failed_requests": sum(r[visit_name]["failed"] for r in runs),
        }
        for visit_name in ("first", "repeat_online", "offline_reload")
    }
    print(json.dumps({"runs": runs, "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

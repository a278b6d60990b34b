"""Benchmark: moving the timeline's as-of line in the page.

Builds the site (or takes --site DIR, already built), serves it, opens it in headless
Chromium at 1280×900 and, once Python is ready, moves the as-of line position by position:
K presses of the arrow keys on the focused line (an hour each, out and back), then K
positions of a pointer drag along the axis (pressed once, moved from position to position,
let go at the end). Each position waits for the page to show its answer, and its time is
the page's own rw:update measure: from the key or pointer event to every view updated
(the worker's round trip, the engine's answer as of that hour, the table, tray, cards and
timeline drawn). With --records N the same on harness/generate.py's synthetic store of N
records, opened through "Open a store file" first.

Prints JSON: per series, median, p90 and max in ms, and the target, p90 within 50 ms per
position (issue #59), with whether it is met.

Run: python bench/timeline_drag.py [--site DIR] [--records N] [--positions K]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch
from harness.generate import synthetic_store
from harness.servers import StaticServer
from harness.stats import latencies, p90

TARGET_P90_MS = 50


def shown_at(page: Page, as_of: int) -> float:
    """Wait until the views show the answer as of that hour; the rw:update of that position."""
    expect(page.locator("#experiment")).to_have_attribute(
        "data-shown-policy", re.compile(rf"(^|&)as_of_hours={as_of}(&|$)"), timeout=30_000
    )
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
    page.wait_for_function("() => performance.getEntriesByName('rw:update').length > 0")
    duration: float = page.evaluate("() => performance.getEntriesByName('rw:update').at(-1).duration")
    page.evaluate("() => performance.clearMeasures('rw:update')")
    return duration


def by_keys(page: Page, positions: int) -> list[float]:
    """The line moved an hour at a time with the arrow keys, back then forward."""
    handle = page.get_by_role("slider", name="As-of line")
    handle.focus()
    times = []
    as_of = int(handle.get_attribute("aria-valuenow") or "0")
    span = int(handle.get_attribute("aria-valuemax") or "1")
    for step in range(positions):
        back = step < positions // 2
        key = "ArrowLeft" if back else "ArrowRight"
        as_of = min(span, as_of + 1) if back else max(0, as_of - 1)
        page.keyboard.press(key)
        times.append(shown_at(page, as_of))
    return times


def by_pointer(page: Page, positions: int) -> list[float]:
    """A drag along the axis: pressed near now, moved to each position in turn, let go."""
    area = page.locator("#timeline-area")
    area.scroll_into_view_if_needed()
    box = area.bounding_box()
    assert box is not None
    handle = page.get_by_role("slider", name="As-of line")
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] - 1, y)
    page.mouse.down()
    times = []
    last = handle.get_attribute("aria-valuenow")
    for step in range(1, positions + 1):
        page.mouse.move(box["x"] + box["width"] * (1 - step / (positions + 1)), y)
        now = handle.get_attribute("aria-valuenow")
        if now != last:  # a pointer move within the same hour asks nothing
            times.append(shown_at(page, int(now or "0")))
        last = now
    page.mouse.up()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site to serve instead of building one")
    parser.add_argument("--records", type=int, default=0, help="open a synthetic store of this many records first")
    parser.add_argument("--positions", type=int, default=40, help="positions per series")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        out = args.site
        if out is None:
            out = Path(scratch) / "dist"
            build.build(out=out, quiet=True)
        with StaticServer(out) as server:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(server.url)
            expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=60_000)
            page.wait_for_function("() => performance.getEntriesByName('rw:update').length > 0")
            if args.records:
                store_file = Path(scratch) / "big.json"
                store_file.write_text(json.dumps(synthetic_store(args.records)), encoding="utf-8")
                page.locator("#store-file").set_input_files(store_file)
                expect(page.locator("#pager-status")).to_have_text(re.compile(f"of {args.records}$"), timeout=60_000)
                expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
            page.evaluate("() => performance.clearMeasures('rw:update')")
            keys = by_keys(page, args.positions)
            pointer = by_pointer(page, args.positions)
            browser.close()
    both = keys + pointer
    print(
        json.dumps(
            {
                "records": args.records or "default store (10)",
                "keys_ms": latencies(keys),
                "pointer_ms": latencies(pointer),
                "positions": len(both),
                "target_p90_ms": TARGET_P90_MS,
                "met": p90(keys) <= TARGET_P90_MS and p90(pointer) <= TARGET_P90_MS,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The memory snapshot is made once the page is idle, and the next visit still restores it."""

from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, expect

from harness.page import wait_ready
from harness.snapshots import boot_of, saved_snapshots, snapshot_url, wait_snapshot_saved

BUSY_S = 3.0  # longer than the worker's idle wait (IDLE_MS in engine-worker.js, 2 s)
EVERY_MS = 250
# Past this gap between an answer and the next change, the worker may rightly have
# found the page idle: the check below would then prove nothing.
MAX_GAP_MS = 1500

# Each shown answer records an rw:update measure from the input to the views updated:
# the largest gap between one answer and the next change, since Python's first answer.
LARGEST_GAP = """() => {
  const updates = performance.getEntriesByName("rw:update");
  let largest = 0;
  for (let i = 1; i < updates.length; i++) {
    largest = Math.max(largest, updates[i].startTime - (updates[i - 1].startTime + updates[i - 1].duration));
  }
  return [updates.length, largest];
}"""


def test_the_snapshot_waits_while_the_learner_changes_controls_then_serves_the_next_visit(
    context: BrowserContext, site_url: str
) -> None:
    """While answers keep being asked for, no snapshot is made; once the page is left
    alone it is saved, and a reload restores Python from it."""
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    budget = page.get_by_label("Context word budget", exact=True)
    changes = int(BUSY_S * 1000 / EVERY_MS)
    for i in range(changes):
        value = str(30 + i % 2)
        budget.fill(value)
        expect(page.locator("#experiment")).to_have_attribute(
            "data-shown-policy", re.compile(rf"(^|&)budget_words={value}(&|$)")
        )
        page.wait_for_timeout(EVERY_MS)
    answers, largest_gap = page.evaluate(LARGEST_GAP)
    # Otherwise the worker may rightly have found the page idle, and the check proves nothing.
    assert answers >= changes and largest_gap <= MAX_GAP_MS, (
        f"the page could not be kept busy ({answers} answers, a {largest_gap:.0f} ms gap): a machine this slow "
        "cannot show when the snapshot is made"
    )
    assert snapshot_url(page) not in saved_snapshots(page), "the snapshot was made while answers were asked for"

    wait_snapshot_saved(page, snapshot_url(page))
    page.reload()
    wait_ready(page)
    assert boot_of(page) == "snapshot"

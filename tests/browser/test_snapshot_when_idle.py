"""The memory snapshot is made once the page is idle, and the next visit still restores it."""

from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, expect

from harness.page import wait_ready
from harness.snapshots import boot_of, saved_snapshots, snapshot_url, wait_snapshot_saved

IDLE_MS = 2000  # the worker's idle wait after an answer (worker-loop.js)

# The worker's idle waits, held: a timer of IDLE_MS is kept in self.__idleWaits until the
# test runs it, rather than firing after two seconds of the machine's own time. Whether the
# page was idle for two seconds then depends on what the test does, not on how fast the
# machine answers.
HOLD_IDLE_WAITS = """(idleMs) => {
    const waits = new Map();
    self.__idleWaits = waits;
    const [setTimer, clearTimer] = [self.setTimeout.bind(self), self.clearTimeout.bind(self)];
    let next = -1;
    self.setTimeout = (callback, ms, ...rest) => {
        if (ms !== idleMs || self.__idleNow) return setTimer(callback, ms === idleMs ? 0 : ms, ...rest);
        waits.set(next, callback);
        return next--;
    };
    self.clearTimeout = (id) => (waits.delete(id) ? undefined : clearTimer(id));
}"""
PENDING_IDLE_WAITS = "() => self.__idleWaits.size"
# The held waits once there is one (or after 30 s, however many): the worker arms its wait
# after posting the answer the page shows, so the page can be ready a moment before.
FIRST_IDLE_WAIT = """() => new Promise((resolve) => {
  const until = Date.now() + 30000;
  const check = () => (self.__idleWaits.size > 0 || Date.now() > until ? resolve(self.__idleWaits.size) : setTimeout(check, 20));
  check();
})"""
# From now on the page is left alone: the waits held and any still to come run at once.
RUN_IDLE_WAITS = """() => {
    self.__idleNow = true;
    for (const callback of self.__idleWaits.values()) callback();
    self.__idleWaits.clear();
}"""


def test_the_snapshot_waits_while_the_learner_changes_controls_then_serves_the_next_visit(
    context: BrowserContext, site_url: str
) -> None:
    """Each change the page asks for calls off the idle wait the answer before it started,
    so no snapshot is made while answers keep being asked for; once the page is left alone
    for the idle wait it is saved, and a reload restores Python from it."""
    page = context.new_page()
    with page.expect_worker() as started:
        page.goto(site_url)
    worker = started.value
    # Before Python's first answer, which comes only once the worker has booted Python.
    worker.evaluate(HOLD_IDLE_WAITS, IDLE_MS)
    wait_ready(page)
    assert worker.evaluate(FIRST_IDLE_WAIT) == 1, "the first answer starts the idle wait"
    budget = page.get_by_label("Context word budget", exact=True)
    for i in range(6):
        value = str(30 + i % 2)
        budget.fill(value)
        expect(page.locator("#experiment")).to_have_attribute(
            "data-shown-policy", re.compile(rf"(^|&)budget_words={value}(&|$)")
        )
        # One wait, or none while a request of the page's own is still being answered.
        assert worker.evaluate(PENDING_IDLE_WAITS) <= 1, "each change calls off the wait before it"
    assert snapshot_url(page) not in saved_snapshots(page), "the snapshot was made while answers were asked for"

    worker.evaluate(RUN_IDLE_WAITS)  # the page left alone for the idle wait
    wait_snapshot_saved(page, snapshot_url(page))
    page.reload()
    wait_ready(page)
    assert boot_of(page) == "snapshot"

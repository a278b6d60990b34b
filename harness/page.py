"""The workbench page under Playwright, as the browser tests drive it: waiting until it is
ready or has answered, watching its console, reading its views, and holding what they
show to CPython's result."""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, ConsoleMessage, Error, FilePayload, Page, Worker, expect

from harness.fixtures import STORE
from harness.results import result_of

READY_TIMEOUT_MS = 60_000
# The morning the page's clock is set to by tests that drive playback with Playwright's clock.
CLOCK_START = datetime.datetime(2026, 11, 29, 9, 0, tzinfo=datetime.UTC)


class ConsoleWatch:
    """Collects console errors and page exceptions from a context's pages."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def attach(self, page: Page) -> None:
        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.errors.append(f"console: {message.text}")

        def page_error(error: Error) -> None:
            self.errors.append(f"page error: {error}")

        page.on("console", console)
        page.on("pageerror", page_error)

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in self.allowed)]


@contextmanager
def shared_ready_page(browser: Browser, url: str, **options: Any) -> Iterator[Page]:
    """One ready page for a module's read-only checks, so Python boots once for all of them."""
    context = browser.new_context(**options)
    page = context.new_page()
    watch = ConsoleWatch()
    watch.attach(page)
    page.goto(url)
    wait_ready(page)
    yield page
    context.close()
    assert not watch.unexpected(), "\n".join(watch.unexpected())


def open_with_paused_clock(page: Page, url: str) -> Page:
    """A ready page whose clock stands still until the test advances it (page.clock.run_for)."""
    page.clock.install(time=CLOCK_START)
    page.goto(url)
    wait_ready(page)
    # Time flowed while Python booted; from here on it moves only by run_for.
    page.clock.pause_at(CLOCK_START + datetime.timedelta(hours=1))
    return page


def goto_python_worker(page: Page, url: str) -> Worker:
    """Open url in page; Python's worker. It is the page's first worker, and not always its
    only one: once the page has been idle after an answer, the worker starts the code-cache
    warmer, a worker of the same script."""
    with page.expect_worker() as python:
        page.goto(url)
    return python.value


def stage_is(page: Page, stage: int) -> None:
    expect(page.locator("#experiment")).to_have_attribute("data-stage", str(stage))


def wait_ready(page: Page) -> None:
    """Python has started and the views show what the controls ask for."""
    expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "", timeout=10_000)


def wait_answered(page: Page) -> None:
    """The views show Python's answer to the latest change of the controls, and the address carries it.

    The inspection replays when the new result arrives, so a test that moves a fake
    clock waits for the answer first. The page marks the policy it asked for last on
    #experiment (data-asked-policy) and writes the address once the answer is shown.
    """
    asked = page.locator("#experiment").get_attribute("data-asked-policy")
    if asked is None:  # no change since the page loaded: the views answer the link
        asked = page.evaluate("() => location.search.slice(1)")
        if not asked:
            return
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", asked)
    expect(page).to_have_url(re.compile(rf"\?{re.escape(asked)}(&|$)"))


def wait_offline_ready(page: Page) -> None:
    """The service worker controls the page and has precached every file."""
    page.wait_for_function(
        "() => navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=READY_TIMEOUT_MS
    )


def rows_on_page(page: Page) -> list[dict[str, Any]]:
    """The records table's rows as the page shows them: id, outcome, scores and ranks."""
    rows: list[dict[str, Any]] = page.locator("#records-body tr").evaluate_all(
        """rows => rows.map(r => ({id: r.dataset.recordId, outcome: r.dataset.outcome,
                                   cosine: Number(r.dataset.cosine), bm25: Number(r.dataset.bm25),
                                   score: r.dataset.score ? Number(r.dataset.score) : null,
                                   rank: r.dataset.rank ? Number(r.dataset.rank) : null,
                                   other_rank: r.dataset.otherRank ? Number(r.dataset.otherRank) : null}))"""
    )
    return rows


def tray_on_page(page: Page) -> list[str]:
    """The ids of the records in the tray, in its order."""
    tray: list[str] = (
        page.get_by_role("region", name="Selected context")
        .locator("li[data-record-id]")
        .evaluate_all("items => items.map(i => i.dataset.recordId)")
    )
    return tray


def open_store(page: Page, name: str, data: Any) -> None:
    """Open a store file (data: its JSON text, or what to write as JSON) through the page's file control."""
    text = data if isinstance(data, str) else json.dumps(data)
    file: FilePayload = {"name": name, "mimeType": "application/json", "buffer": text.encode()}
    page.locator("#store-file").set_input_files(files=[file])


def assert_page_matches_cpython(page: Page, policy: dict[str, Any]) -> None:
    """Outcomes, numbers, tray, words used and coverage on the page equal CPython's result."""
    expected = result_of({"store": STORE, "policy": policy})
    rows = rows_on_page(page)
    assert [r["id"] for r in rows] == [r["id"] for r in expected["records"]]
    for row, want in zip(rows, expected["records"], strict=True):
        assert row["outcome"] == want["outcome"], (policy, row["id"])
        assert math.isclose(row["cosine"], want["cosine"], rel_tol=1e-12, abs_tol=1e-15)
        if want["score"] is None:
            assert row["score"] is None, (policy, row["id"])
        else:
            assert math.isclose(row["score"], want["score"], rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(row["bm25"], want["bm25"], rel_tol=1e-12, abs_tol=1e-15)
        assert (row["rank"], row["other_rank"]) == (want["rank"], want["other_rank"]), (policy, row["id"])
    assert tray_on_page(page) == expected["selected"]
    tray = page.get_by_role("region", name="Selected context")
    expect(tray.locator("[data-words-used]")).to_have_attribute("data-words-used", str(expected["words_used"]))
    coverage = tray.locator(".coverage")
    expect(coverage).to_have_attribute("data-found", str(expected["coverage"]["found"]))
    expect(coverage).to_have_attribute("data-total", str(expected["coverage"]["total"]))
    counts = page.locator("#diagram .stage-count").evaluate_all("els => els.map(e => Number(e.dataset.count))")
    c = expected["counts"]
    assert counts == [c["stored"], c["in_scope"], c["ranked"], c["selected"]]
    # How the question was read, as CPython read it.
    question = expected["question"]
    expect(page.locator("#question-text")).to_have_text(question["text"])
    # How the question was read: CPython's reading claims, in order, in the words of its scorer.
    expect(page.locator("#question-reading .read-claim")).to_have_text([claim["text"] for claim in question["reading"]])


def assert_matches_engine(page: Page, store: Any, policy: dict[str, Any]) -> None:
    """The rows on the page (its first page of them) and the tray are CPython's for this store."""
    expected = result_of({"store": store, "policy": policy})
    rows = rows_on_page(page)
    shown = expected["records"][: len(rows)]
    assert [(r["id"], r["outcome"]) for r in rows] == [(r["id"], r["outcome"]) for r in shown]
    assert tray_on_page(page) == expected["selected"]

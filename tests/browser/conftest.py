"""Browser tier: Playwright for Python drives Debian's Chromium against the built site.

Chromium is found, never downloaded (harness/browser.py). Any console error or uncaught
exception on a page fails the test that produced it.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from harness import ROOT
from harness.browser import ChromiumNotFound, launch
from harness.servers import StaticServer

AXE_PATH = ROOT / "node_modules" / "axe-core" / "axe.min.js"

READY_TIMEOUT_MS = 60_000
# The morning the page's clock is set to by tests that drive playback with Playwright's clock.
CLOCK_START = datetime.datetime(2026, 11, 29, 9, 0, tzinfo=datetime.UTC)


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's script, from the npm package, for the accessibility checks."""
    if not AXE_PATH.exists():
        pytest.fail(
            f"{AXE_PATH.relative_to(ROOT)} is missing: run `npm ci` (axe-core is a devDependency).", pytrace=False
        )
    return AXE_PATH.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    server = StaticServer(built_site)
    yield server.url
    server.close()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    try:
        browser = launch(playwright_instance)
    except ChromiumNotFound as missing:  # its message alone says what to install
        raise pytest.fail.Exception(str(missing), pytrace=False) from None
    yield browser
    browser.close()


class ConsoleWatch:
    """Collects console errors and page exceptions from a context's pages."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def attach(self, page: Page) -> None:
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in self.allowed)]


@pytest.fixture
def console() -> ConsoleWatch:
    return ConsoleWatch()


@pytest.fixture
def context(browser: Browser, console: ConsoleWatch) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.on("page", console.attach)
    yield context
    context.close()
    assert not console.unexpected(), "\n".join(console.unexpected())


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


@pytest.fixture
def new_context(browser: Browser, console: ConsoleWatch) -> Iterator[Callable[..., BrowserContext]]:
    """Contexts with any options, closed at the end; console errors fail the test as above."""
    made: list[BrowserContext] = []

    def make(**options: Any) -> BrowserContext:
        context = browser.new_context(**options)
        context.on("page", console.attach)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()
    assert not console.unexpected(), "\n".join(console.unexpected())


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


def rows_on_page(page: Page) -> list[dict[str, Any]]:
    return page.locator("#records-body tr").evaluate_all(
        """rows => rows.map(r => ({id: r.dataset.recordId, outcome: r.dataset.outcome,
                                   cosine: Number(r.dataset.cosine), bm25: Number(r.dataset.bm25),
                                   score: Number(r.dataset.score),
                                   rank: r.dataset.rank ? Number(r.dataset.rank) : null,
                                   other_rank: r.dataset.otherRank ? Number(r.dataset.otherRank) : null}))"""
    )


def tray_on_page(page: Page) -> list[str]:
    return (
        page.get_by_role("region", name="Selected context")
        .locator("li[data-record-id]")
        .evaluate_all("items => items.map(i => i.dataset.recordId)")
    )

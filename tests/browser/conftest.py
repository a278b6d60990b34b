"""Browser tier: Playwright for Python drives Debian's Chromium against the built site.

Chromium is found, never downloaded (harness/browser.py). Any console error or uncaught
exception on a page fails the test that produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from harness import ROOT
from harness.browser import ChromiumNotFound, launch
from harness.load import throttle_new_pages
from harness.page import ConsoleWatch
from harness.servers import StaticServer

AXE_PATH = ROOT / "node_modules" / "axe-core" / "axe.min.js"


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
def browser(playwright_instance: Playwright, pytestconfig: pytest.Config) -> Iterator[Browser]:
    try:
        browser = launch(playwright_instance)
    except ChromiumNotFound as missing:  # its message alone says what to install
        raise pytest.fail.Exception(str(missing), pytrace=False) from None
    rate = pytestconfig.getoption("--cpu-throttle")
    if rate > 1:
        throttle_new_pages(browser, rate)
    yield browser
    browser.close()


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


@pytest.fixture(scope="session")
def agent_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A course site built around the agent-memory store (importance, near-copies) with `build.py --store`."""
    import build
    from harness.fixtures import AGENT_STORE

    out = tmp_path_factory.mktemp("agent") / "dist"
    build.build(out=out, store_path=AGENT_STORE, quiet=True)
    server = StaticServer(out)
    yield server.url
    server.close()


@pytest.fixture(scope="session")
def timeline_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site built around the timeline store (fixtures/timeline-store.json)."""
    import build
    from harness.fixtures import TIMELINE_STORE

    out = tmp_path_factory.mktemp("timeline") / "dist"
    build.build(out=out, store_path=TIMELINE_STORE, quiet=True)
    server = StaticServer(out)
    yield server.url
    server.close()


@pytest.fixture(scope="session")
def support_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A course site built around the support store with `build.py --store`."""
    import build
    from harness.fixtures import SUPPORT_STORE

    out = tmp_path_factory.mktemp("support") / "dist"
    build.build(out=out, store_path=SUPPORT_STORE, quiet=True)
    server = StaticServer(out)
    yield server.url
    server.close()

"""Hosting: offline after one visit, any sub-path, new deploys, embedding, lock-down."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

import build
from harness.controls import full_policy, query_of, set_policy
from harness.fixtures import FIXTURES
from harness.page import READY_TIMEOUT_MS, goto_python_worker, tray_on_page, wait_offline_ready, wait_ready
from harness.servers import StaticServer


def test_offline_after_the_first_visit(context: BrowserContext, site_url: str) -> None:
    """After one online visit, a reload with the network off gives the live page; no request fails."""
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    wait_offline_ready(page)
    expect(page.locator("#offline-status")).to_contain_text("works offline")
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    context.set_offline(True)
    page.reload()
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]
    context.set_offline(False)
    assert failed == []


RUNTIME_REQUESTS = """() => performance.getEntriesByType("resource")
  .map((entry) => new URL(entry.name).pathname)
  .filter((path) => /\\/(pyodide|wheels)\\//.test(path))"""


def test_a_first_visit_asks_for_each_python_file_once(context: BrowserContext, built_site: Path, site_url: str) -> None:
    """Until Python is ready, each runtime file is fetched exactly once (the worker starts
    the big downloads early and hands them to Pyodide: no second request), the package
    lock never, and nothing under pyodide/ or wheels/ that the build did not put there.
    Counted by the browser itself: Resource Timing in the page and in the worker."""
    page = context.new_page()
    worker = goto_python_worker(page, site_url)
    wait_ready(page)
    fetched = page.evaluate(RUNTIME_REQUESTS) + worker.evaluate(RUNTIME_REQUESTS)
    python_files = sorted(path.rsplit("/", 1)[1] for path in fetched)
    built = sorted(
        path.name for folder in ("pyodide", "wheels") for path in (built_site / folder).rglob("*") if path.is_file()
    )
    assert python_files == built, f"fetched {python_files}, built {built}"
    assert "pyodide-lock.json" not in python_files


def test_the_site_works_under_a_sub_path(browser: Browser, built_site: Path) -> None:
    """Served at /some/sub/path/, the page, its worker, runtime and service worker all resolve."""
    server = StaticServer(built_site, prefix="/some/sub/path/")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url + "?question=timeout-incident&budget_words=9")
        wait_ready(page)
        assert tray_on_page(page) == ["M5"]
        wait_offline_ready(page)
        scope = page.evaluate("() => navigator.serviceWorker.ready.then(r => r.scope)")
        assert urlparse(scope).path == "/some/sub/path/"
    finally:
        context.close()
        server.close()


def test_page_works_with_service_workers_blocked(browser: Browser, site_url: str) -> None:
    """With service workers blocked, the page still runs the engine online."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    set_policy(page, {"budget_words": 9, "question": "timeout-incident"})
    assert tray_on_page(page) == ["M5"]
    context.close()


class SwitchableServer(StaticServer):
    """Serves whichever build `root` points at, to simulate a new deploy."""

    def __init__(self, root: Path) -> None:
        self.root = root
        super().__init__(root)
        outer = self
        handler = self.server.RequestHandlerClass

        def factory(*args: Any, **kwargs: Any) -> Any:
            kwargs["directory"] = str(outer.root)
            return handler.func(*args, **kwargs)  # type: ignore[attr-defined]

        self.server.RequestHandlerClass = factory


def test_a_new_deploy_takes_over_and_is_announced(browser: Browser, built_site: Path, tmp_path: Path) -> None:
    """After a new deploy the page says a new version was downloaded, then that it is active."""
    store = json.loads((FIXTURES / "store.json").read_text())
    store["title"] = "Platform team agent memory, second edition"
    (tmp_path / "store.json").write_text(json.dumps(store))
    second = tmp_path / "second"
    build.build(out=second, store_path=tmp_path / "store.json", quiet=True)
    first = tmp_path / "first"
    shutil.copytree(built_site, first)
    server = SwitchableServer(first)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url)
        wait_ready(page)
        wait_offline_ready(page)
        server.root = second
        page.reload()
        expect(page.locator("#offline-status")).to_contain_text("new version", timeout=READY_TIMEOUT_MS)
        page.reload()
        expect(page).to_have_title("Retrieval Workbench · Platform team agent memory, second edition")
        expect(page.locator("#offline-status")).to_contain_text("new version of the workbench is active")
        wait_ready(page)
    finally:
        context.close()
        server.close()


PARENT = """<!doctype html><meta charset="utf-8"><title>Course page</title><link rel="icon" href="data:,">
<h1>Week 3: agent memory</h1>
<iframe id="wb" src="{src}" title="Retrieval Workbench" width="900" height="600" {allow}></iframe>
<script>
window.messages = [];
addEventListener("message", (e) => {{ if (e.data && e.data.type === "retrieval-workbench:resize") window.messages.push(e.data); }});
</script>"""


def course_page(folder: Path, src: str, allow: str, host: str) -> StaticServer:
    """A course page on another origin that embeds the workbench."""
    (folder / "course.html").write_text(PARENT.format(src=src, allow=allow))
    return StaticServer(folder, host=host)


def frame_ready(page: Page) -> Any:
    frame = page.frame_locator("#wb")
    expect(frame.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    return frame


@pytest.mark.parametrize("allow", ['allow="fullscreen"', ""], ids=["fullscreen-allowed", "no-permission"])
def test_embedded_from_another_origin(context: BrowserContext, site_url: str, tmp_path: Path, allow: str) -> None:
    """In an iframe on another origin: compact layout, engine, controls, notes, posted height, full screen."""
    server = course_page(tmp_path, site_url + "?embed=1", allow, host="127.0.0.1")
    try:
        page = context.new_page()
        page.goto(server.url + "course.html")
        frame = frame_ready(page)
        expect(frame.locator("html")).to_have_attribute("data-embed", "1")
        expect(frame.locator(".page-header")).to_be_hidden()
        frame.get_by_label("Question", exact=True).select_option("timeout-incident")
        frame.get_by_label("Context word budget", exact=True).fill("9")
        expect(frame.locator("#experiment")).to_have_attribute(
            "data-shown-policy", query_of(full_policy({"question": "timeout-incident", "budget_words": 9}))
        )
        frame.get_by_role("textbox", name="Notebook").fill("embedded note")
        page.wait_for_function("() => window.messages.length > 0 && window.messages.at(-1).height > 500")
        button = frame.locator("#fullscreen")
        if allow:
            button.click()
            expect(frame.get_by_role("button", name="Exit full screen")).to_be_visible()
            button.click()
            expect(frame.get_by_role("button", name="Expand experiment")).to_be_visible()
        else:
            expect(button).to_have_attribute("aria-disabled", "true")
            expect(frame.locator("#fullscreen-note")).to_be_visible()
            expect(frame.locator("#fullscreen-note")).to_contain_text("Full screen is not allowed here")
        page.reload()
        frame = frame_ready(page)
        expect(frame.get_by_role("textbox", name="Notebook")).to_have_value("embedded note")
    finally:
        server.close()


def test_embedded_cross_site_with_storage_refused(context: BrowserContext, site_url: str, tmp_path: Path) -> None:
    """Embedded by another site, where this Chromium refuses third-party storage: the page warns,
    keeps what is typed in the tab, and Export notes still saves it."""
    server = course_page(tmp_path, site_url + "?embed=1", "", host="localhost")
    try:
        page = context.new_page()
        page.goto(server.url + "course.html")
        frame = frame_ready(page)
        expect(frame.locator("#storage-warning")).to_contain_text("live only in this tab")
        frame.get_by_role("textbox", name="Notebook").fill("kept in this tab")
        frame.get_by_role("button", name="Add current observation").click()
        with page.expect_download() as info:
            frame.get_by_role("button", name="Export notes").click()
        saved = tmp_path / "notes.md"
        info.value.save_as(saved)
        assert "kept in this tab" in saved.read_text()
        expect(frame.get_by_role("textbox", name="Notebook")).to_have_value(re.compile("^kept in this tab"))
    finally:
        server.close()


CSP_PROBE = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def test_no_csp_violation_and_no_foreign_request_in_a_walkthrough(context: BrowserContext, site_url: str) -> None:
    """Across a full walkthrough, nothing breaks the Content-Security-Policy or leaves the site's origin."""
    context.add_init_script(CSP_PROBE)
    origins: set[str] = set()
    context.on("request", lambda r: origins.add(f"{urlparse(r.url).scheme}://{urlparse(r.url).netloc}"))
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    for index in range(3):
        page.locator(f'[data-guide-step="current-vs-historical:{index}"]').click()
    page.get_by_role("button", name="Next stage").click()
    page.get_by_role("button", name="Capture baseline").click()
    page.locator('[data-guide-step="scope-before-recall:1"]').click()
    page.locator("#play-pause").click()
    page.locator('[data-choose="M2"]').click()
    page.get_by_role("button", name="Add current observation").click()
    with page.expect_download():
        page.get_by_role("button", name="Export notes").click()
    wait_offline_ready(page)
    assert page.evaluate("() => window.__csp") == []
    site = f"{urlparse(site_url).scheme}://{urlparse(site_url).netloc}"
    # blob: is the exported notes file, made in the page itself.
    assert {o for o in origins if not o.startswith("blob:")} == {site}


PAYLOAD = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def test_text_from_users_and_stores_is_never_markup(browser: Browser, tmp_path: Path) -> None:
    """Markup in a record, the store title and a note is shown as text and never runs."""
    store = json.loads((FIXTURES / "store.json").read_text())
    store["title"] = "Evil " + PAYLOAD
    store["records"][4]["text"] = "Ticket INC-42: checkout timeout incident " + PAYLOAD
    store["tenants"][0]["label"] = "Team " + PAYLOAD
    # The guides' claims name M5's numbers, which the new text changes: the build would refuse them.
    del store["guides"]
    (tmp_path / "store.json").write_text(json.dumps(store))
    out = tmp_path / "site"
    build.build(out=out, store_path=tmp_path / "store.json", quiet=True)
    server = StaticServer(out)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url + "?store=all&previous_sessions=true")
        wait_ready(page)
        page.get_by_role("textbox", name="Notebook").fill(PAYLOAD)
        page.get_by_role("button", name="Add current observation").click()
        page.locator('[data-choose="M5"]').click()
        page.get_by_role("button", name="Capture baseline").click()
        expect(page.locator('#records-body tr[data-record-id="M5"] .text-cell')).to_contain_text("<img src=x onerror=")
        assert page.evaluate("() => window.__xss") is None
        assert page.locator("img").count() == 0
        assert page.locator("body script").count() == 1  # only the JSON boot block
        assert "Evil <img" in page.title()
    finally:
        context.close()
        server.close()


def test_works_in_a_sandboxed_iframe(context: BrowserContext, site_url: str, tmp_path: Path) -> None:
    """In an LMS-style sandbox (scripts, same origin, no popups or top navigation) the engine runs;
    registering the service worker there never blanks the page."""
    server = course_page(
        tmp_path, site_url + "?embed=1", 'sandbox="allow-scripts allow-same-origin allow-downloads"', "127.0.0.1"
    )
    try:
        page = context.new_page()
        page.goto(server.url + "course.html")
        frame = frame_ready(page)
        frame.get_by_label("Context word budget", exact=True).fill("9")
        frame.get_by_label("Question", exact=True).select_option("timeout-incident")
        expect(frame.locator("#experiment")).to_have_attribute(
            "data-shown-policy", re.compile("question=timeout-incident.*budget_words=9")
        )
        expect(frame.locator("#tray-body li[data-record-id]")).to_have_count(1)
    finally:
        server.close()

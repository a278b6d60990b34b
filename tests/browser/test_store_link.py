"""A store carried by a link, kept as a draft across a reload, exported as its own file,
and a second tab on the same draft told and able to take it over."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from harness.fixtures import FIXTURES, SUPPORT_STORE, load_json
from harness.page import assert_matches_engine, open_store, wait_ready


def link_to(page_url: str, store: Any) -> str:
    """A store link written here, apart from the page's code: deflate-raw, then base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(json.dumps(store).encode()) + packer.flush()
    return f"{page_url}#store={base64.urlsafe_b64encode(packed).rstrip(b'=').decode()}"


def exported(page: Page, tmp_path: Path) -> str:
    """Click Export store and read the file the browser downloads."""
    with page.expect_download() as download:
        page.get_by_role("button", name="Export store").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    return path.read_text(encoding="utf-8")


def test_store_links_drafts_and_export_in_the_page(new_context: Any, site_url: str, tmp_path: Path) -> None:
    """A link opens its store through the engine's parser (damaged or invalid ones refused
    with its messages, markup shown as text); the store is then a draft a reload restores;
    Export writes opened files back as they were; a second tab is told and can take over."""
    context: BrowserContext = new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    problems = page.locator("#store-problems")
    title = page.locator("#store-title")
    records = page.locator("#records-body tr")

    # The site's own store exports as the fixture it was built from, byte for byte.
    assert exported(page, tmp_path) == (FIXTURES / "store.json").read_text(encoding="utf-8")

    # A file opened unchanged exports as that file; its link is copied for later.
    support = load_json(SUPPORT_STORE)
    open_store(page, "support-store.json", SUPPORT_STORE.read_text(encoding="utf-8"))
    expect(title).to_have_text(support["title"])
    assert exported(page, tmp_path) == SUPPORT_STORE.read_text(encoding="utf-8")
    page.get_by_role("button", name="Copy link to this store").click()
    expect(page.locator("#store-link-status")).to_contain_text("Link copied")
    link = page.locator("#store-link-text").input_value()
    assert "#store=" in link and len(link) <= 8000
    assert page.evaluate("() => navigator.clipboard.readText()") == link

    # Damaged and invalid links, pasted into this tab's address: refused, the store stays.
    base = page.evaluate("() => location.href.split('#')[0]")
    page.evaluate("(hash) => { location.hash = hash }", "store=not*base64")
    expect(problems).to_contain_text("This link's store was not opened: 1 problem. The current store stays.")
    expect(problems).to_contain_text("link: is damaged")
    invalid = load_json(SUPPORT_STORE)
    invalid["records"][0]["session"] = "later"
    invalid["records"][1]["age_hours"] = -3
    page.evaluate("(hash) => { location.hash = hash }", link_to(base, invalid).split("#")[1])
    expect(problems.locator("li")).to_have_count(2)
    expect(problems).to_contain_text("records[0].session")
    expect(problems).to_contain_text("records[1].age_hours: must not be negative")
    expect(title).to_have_text(support["title"])
    expect(records).to_have_count(len(support["records"]))
    assert "#store=" not in page.url, "the address drops a store link once read"

    # Markup in a link's store is text on the page, never elements.
    markup = load_json(FIXTURES / "store.json")
    markup["title"] = '<img src="x" onerror="window.pwned = 1">Course <b>memory</b>'
    markup["records"][0]["text"] = "<script>window.pwned = 2</script> " + markup["records"][0]["text"]
    page.evaluate("(hash) => { location.hash = hash }", link_to(base, markup).split("#")[1])
    expect(title).to_have_text(markup["title"])
    expect(problems).to_be_hidden()
    assert page.locator("#store-panel img, #records-body script, #records-body img").count() == 0
    assert page.evaluate("() => window.pwned") is None

    # The copied link, opened in a fresh load, shows its store; a real reload restores it as the draft.
    page.goto("about:blank")
    page.goto(link)
    wait_ready(page)
    expect(title).to_have_text(support["title"])
    expect(records).to_have_count(len(support["records"]))
    assert_matches_engine(page, support, {})
    assert "#store=" not in page.url
    expect(page.locator("#draft-status-text")).to_contain_text("Draft saved in this browser")
    page.reload()
    wait_ready(page)
    expect(page.locator("#store-hint")).to_contain_text(f"Restored your draft “{support['title']}”")
    # The address's policy names the draft's question and tenant: read against the draft's store, not the site's.
    assert "tenant=harbor-coffee" in page.url
    expect(page.locator("#notices")).to_be_hidden()
    expect(title).to_have_text(support["title"])
    expect(records).to_have_count(len(support["records"]))
    assert_matches_engine(page, support, {})
    # The draft came from a link, not a file: it exports in the fixtures' layout.
    assert exported(page, tmp_path) == SUPPORT_STORE.read_text(encoding="utf-8")

    # A second tab on the same draft (window.open copies the tab's session): told, not writing; it takes over.
    with context.expect_page() as opened:
        page.evaluate("() => { window.open(location.href) }")
    second = opened.value
    wait_ready(second)
    expect(second.locator("#store-title")).to_have_text(support["title"])
    expect(second.locator("#draft-status-text")).to_contain_text("This draft is open in another tab")
    expect(second.locator("#notices")).to_be_hidden()
    expect(page.locator("#draft-status-text")).to_contain_text("This draft is also open in another tab")
    second.get_by_role("button", name="Take it over here").click()
    expect(second.locator("#draft-status-text")).to_have_text(re.compile(r"^Draft (kept|saved) in this browser"))
    expect(page.locator("#draft-status-text")).to_contain_text("Another tab took this draft over")
    expect(page.get_by_role("button", name="Open a copy")).to_be_visible()
    # A reload that finds no copy of the store for the tab (too large to keep there) opens the draft's own.
    page.evaluate("() => sessionStorage.removeItem('retrieval-workbench:store')")
    page.reload()
    wait_ready(page)
    expect(page.locator("#store-hint")).to_contain_text(f"Restored your draft “{support['title']}”")
    expect(records).to_have_count(len(support["records"]))
    assert_matches_engine(page, support, {})
    expect(page.locator("#draft-status-text")).to_contain_text("This draft is open in another tab")


def test_a_browser_that_refuses_storage_says_so_and_still_exports(
    new_context: Any, site_url: str, tmp_path: Path
) -> None:
    """With IndexedDB refused (as in some private windows), the page says edits are not kept and Export still works."""
    context: BrowserContext = new_context(viewport={"width": 375, "height": 667})
    context.add_init_script(
        "IDBFactory.prototype.open = function () { throw new DOMException('The operation is insecure.', 'SecurityError') }"
    )
    page = context.new_page()
    support = load_json(SUPPORT_STORE)
    page.goto(link_to(site_url, support))
    wait_ready(page)
    expect(page.locator("#store-title")).to_have_text(support["title"])
    expect(page.locator("#draft-status-text")).to_have_text(
        "This browser does not let the page keep drafts (SecurityError: The operation is insecure.), as in a private "
        "window or with site storage turned off: edits are lost on reload. Export store keeps your work as a file."
    )
    assert exported(page, tmp_path) == SUPPORT_STORE.read_text(encoding="utf-8")

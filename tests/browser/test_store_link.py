"""A store carried by a link: opened through the engine's parser into the workbench, its
markup shown as text, damaged and invalid links refused with the engine's words; kept as
a draft across a real reload; exported as the file it came from; and a browser that
refuses storage says so while Export still works."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from harness.fixtures import FIXTURES, SUPPORT_STORE, load_json
from harness.page import assert_matches_engine, open_store, wait_ready

MARKUP = '<img src="x" onerror="window.pwned = 1">'


def link_to(page_url: str, store: Any) -> str:
    """A store link written here, apart from the page's code: deflate-raw, then base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(json.dumps(store).encode()) + packer.flush()
    return f"{page_url}#store={base64.urlsafe_b64encode(packed).rstrip(b'=').decode()}"


def file_text(store: Any) -> str:
    """A store in the fixtures' layout (fixtures/*.json are written so)."""
    return json.dumps(store, indent=2, ensure_ascii=False) + "\n"


def exported(page: Page, tmp_path: Path) -> str:
    """Click the editor's Export store and read the file the browser downloads."""
    with page.expect_download() as download:
        page.get_by_role("button", name="Export store").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    return path.read_text(encoding="utf-8")


def edit(page: Page) -> None:
    page.get_by_role("button", name="Edit this store").click()
    expect(page.locator("#editor")).to_be_visible()


def shows_store(page: Page, store: Any) -> None:
    """The workbench answers from this store: its title (as text), its records, CPython's answer."""
    expect(page.locator("#store-title")).to_have_text(store["title"])
    expect(page.locator("#records-body tr")).to_have_count(len(store["records"]))
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
    assert_matches_engine(page, store, {})
    assert "#store=" not in page.url, "the address drops a store link once read"


def test_store_links_open_in_the_workbench_and_survive_a_reload(
    new_context: Any, site_url: str, tmp_path: Path
) -> None:
    """A copied link opens its store (markup as text) and a reload restores it as the draft;
    Export writes the fixtures' layout; damaged and invalid links are refused with the engine's words."""
    context: BrowserContext = new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)

    # The site's own store exports as the fixture it was built from, byte for byte.
    edit(page)
    assert exported(page, tmp_path) == (FIXTURES / "store.json").read_text(encoding="utf-8")

    # A store with markup in its texts, opened from a file: exported as that file, then copied as a link.
    store = load_json(SUPPORT_STORE)
    store["title"] = f"{MARKUP}Support <b>memory</b>"
    store["records"][0]["text"] = f"<script>window.pwned = 2</script>{MARKUP} {store['records'][0]['text']}"
    page.get_by_role("button", name="Close the editor").click()
    open_store(page, "support.json", file_text(store))
    expect(page.locator("#store-title")).to_have_text(store["title"])
    edit(page)
    assert exported(page, tmp_path) == file_text(store)
    page.get_by_role("button", name="Copy link to this store").click()
    expect(page.locator("#editor-link-status")).to_contain_text("Link copied")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert "#store=" in link and len(link) <= 8000

    # The link, opened in a new tab (as a learner would), shows its store, its markup as text and nothing run.
    page.close()
    page = context.new_page()
    page.goto(link)
    wait_ready(page)
    shows_store(page, store)
    assert page.locator("main img[src='x'], #editor img[src='x'], main script, #editor script").count() == 0
    assert page.evaluate("() => window.pwned") is None
    expect(page.locator("#notices")).to_be_hidden()

    # A real reload restores the draft, the address's policy read against its store.
    page.reload()
    wait_ready(page)
    shows_store(page, store)
    expect(page.locator("#notices")).to_be_hidden()

    # Damaged and invalid links, each in a new tab: refused with the engine's paths and words, the site's store kept.
    page.close()
    default = load_json(FIXTURES / "store.json")
    invalid = load_json(SUPPORT_STORE)
    invalid["records"][0]["session"] = MARKUP
    invalid["records"][1]["age_hours"] = -3
    for hash_link, said in [
        (f"{site_url}#store=not*base64", ["link: is damaged"]),
        (link_to(site_url, invalid), [f'"{MARKUP}" is not one of current, previous', "must not be negative, not -3"]),
    ]:
        page = context.new_page()
        page.goto(hash_link)
        wait_ready(page)
        for words in said:
            expect(page.locator("#editor")).to_contain_text(words)
        expect(page.locator("#store-title")).to_have_text(default["title"])
        assert page.locator("#editor img[src='x']").count() == 0
        assert page.evaluate("() => window.pwned") is None
        page.close()


def test_a_learner_opens_a_store_link_in_a_new_tab_and_reloads(new_context: Any, site_url: str) -> None:
    """A new tab holds no store of its own: the link's store is the one the engine answers from, and
    after a reload the address's policy (its question and tenant) is read against the draft's store."""
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    support = load_json(SUPPORT_STORE)
    page.goto(link_to(site_url, support))
    wait_ready(page)
    shows_store(page, support)
    expect(page.locator("#notices")).to_be_hidden()
    page.reload()
    wait_ready(page)
    shows_store(page, support)
    expect(page.locator("#notices")).to_be_hidden()


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
    expect(page.locator("#editor")).to_contain_text(
        "This browser does not let the page keep drafts (SecurityError: The operation is insecure.), as in a private "
        "window or with site storage turned off: edits are lost on reload. Export store keeps your work as a file."
    )
    assert exported(page, tmp_path) == SUPPORT_STORE.read_text(encoding="utf-8")

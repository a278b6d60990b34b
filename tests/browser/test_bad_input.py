"""Things that go wrong: runtime files that fail, a worker that dies, unreadable saved notes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

import build
from harness.controls import set_policy
from harness.page import READY_TIMEOUT_MS, goto_python_worker, tray_on_page, wait_offline_ready, wait_ready
from harness.snapshots import SNAPSHOT_CACHE, kept_wasm_url, snapshot_url, wait_snapshot_saved


def open_with_a_404(context: BrowserContext, site_url: str, console: Any, pattern: str) -> tuple[Page, dict[str, bool]]:
    """Open the page while requests matching pattern get a 404, and wait for the failed
    load. The 404s go on until the returned switch's "on" is set False."""
    console.allowed.append("Failed to load resource")
    broken = {"on": True}
    context.route(
        pattern,
        lambda route: route.fulfill(status=404, body="gone") if broken["on"] else route.continue_(),
    )
    page = context.new_page()
    page.goto(site_url)
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    return page, broken


def test_wheel_that_fails_to_load_leaves_the_page_and_offers_retry(
    context: BrowserContext, site_url: str, console: Any
) -> None:
    """A 404 for the engine wheel: data-engine=failed, the prerendered page stays, Retry recovers."""
    page, broken = open_with_a_404(context, site_url, console, "**/wheels/**")
    expect(page.locator("#engine-status")).to_contain_text("the engine wheel failed to load (HTTP 404)")
    assert tray_on_page(page) == ["M10", "M5"]
    page.get_by_label("Context word budget", exact=True).fill("9")  # typed while broken: kept, applied after Retry
    broken["on"] = False
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", re.compile("budget_words=9"))


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("**/pyodide.asm-*.wasm.zst", "Python's WebAssembly module failed to load (HTTP 404)"),
        ("**/stdlib-*.zip.zst", "Python's standard library failed to load (HTTP 404)"),
        ("**/zstd-decoder-*.wasm", "the zstd decoder failed to load (HTTP 404)"),
    ],
    ids=["webassembly", "stdlib", "decoder"],
)
def test_runtime_file_404_fails_visibly_and_retry_recovers(
    context: BrowserContext, site_url: str, console: Any, pattern: str, message: str
) -> None:
    """A 404 for a compressed runtime file or its decoder (Pyodide alone would wait for
    the WebAssembly forever): a failed load that names the file, and Retry recovers once
    it is back."""
    # Pyodide reports a standard library that did not arrive on the console itself.
    console.allowed += ["Error occurred while installing the standard library", message]
    page, broken = open_with_a_404(context, site_url, console, pattern)
    expect(page.locator("#engine-status")).to_contain_text(message)
    broken["on"] = False
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]


# Resolves once Python's WebAssembly module is instantiated in the worker (worker-boot.js
# marks it): Pyodide asks for the standard library before it instantiates the module.
MODULE_INSTANTIATED = """() => new Promise((done) => {
    new PerformanceObserver((marks, observer) => {
        if (marks.getEntriesByName("rw:w-instantiated").length) { observer.disconnect(); done(true); }
    }).observe({ type: "mark", buffered: true });
})"""


def test_standard_library_404_after_pyodide_asked_for_it_names_the_file(
    context: BrowserContext, site_url: str, console: Any
) -> None:
    """The standard library's 404 held back until Pyodide has asked for the file (and so
    handles the failure and exits): the page still names the file and the status, not
    Pyodide's exit, and Retry recovers."""
    message = "Python's standard library failed to load (HTTP 404)"
    console.allowed += ["Failed to load resource", "Error occurred while installing the standard library", message]
    held: list[Any] = []
    context.route("**/stdlib-*.zip.zst", lambda route: held.append(route) if not held else route.continue_())
    page = context.new_page()
    with page.expect_request("**/stdlib-*.zip.zst"):
        page.goto(site_url)
    (worker,) = page.workers
    worker.evaluate(MODULE_INSTANTIATED)
    held[0].fulfill(status=404, body="gone")
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#engine-status")).to_contain_text(message)
    expect(page.locator("#engine-status")).not_to_contain_text("exit")
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_damaged_webassembly_download_fails_visibly_and_retry_recovers(
    context: BrowserContext, site_url: str, built_site: Path, damage: str
) -> None:
    """A compressed WebAssembly module cut short, or with one byte changed on its way (the
    zstd checksum catches it): a failed load that says so, not a page waiting forever;
    Retry recovers once the file arrives whole."""
    (wasm,) = built_site.glob("pyodide/*/pyodide.asm-*.wasm.zst")
    data = wasm.read_bytes()
    bad = data[: len(data) // 2] if damage == "truncated" else data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:]
    broken = {"on": True}
    context.route(
        "**/pyodide.asm-*.wasm.zst",
        lambda route: route.fulfill(status=200, body=bad) if broken["on"] else route.continue_(),
    )
    page = context.new_page()
    page.goto(site_url)
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#engine-status")).to_contain_text("Python's WebAssembly module could not be decompressed")
    assert tray_on_page(page) == ["M10", "M5"]  # the prerendered result stays
    broken["on"] = False
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 8})
    assert tray_on_page(page) == []


def test_retry_replaces_a_damaged_copy_in_the_offline_cache(
    context: BrowserContext, site_url: str, built_site: Path
) -> None:
    """The service worker's copy of the compressed module gone bad (and no decoded copy
    kept): the next visit fails visibly; Retry fetches past every cache, works, and the
    offline copy is whole again."""
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    wait_offline_ready(page)
    # The worker's own copies land in the background; clear them once they have.
    wait_snapshot_saved(page, snapshot_url(page))
    wait_snapshot_saved(page, kept_wasm_url(page), (build.PYODIDE_PACKAGE / "pyodide.asm.wasm").stat().st_size)
    (wasm,) = built_site.glob("pyodide/*/pyodide.asm-*.wasm.zst")
    url = site_url + wasm.relative_to(built_site).as_posix()
    sizes_in_offline_cache = """async ([url, workerCache]) => {
        const sizes = [];
        for (const name of await caches.keys()) {
            if (name === workerCache) continue;
            const hit = await (await caches.open(name)).match(url);
            if (hit) sizes.push((await hit.arrayBuffer()).byteLength);
        }
        return sizes;
    }"""
    assert page.evaluate(sizes_in_offline_cache, [url, SNAPSHOT_CACHE]) == [wasm.stat().st_size]
    page.evaluate(
        """async ([url, workerCache]) => {
            for (const name of await caches.keys()) {
                const cache = await caches.open(name);
                if (name === workerCache) {
                    for (const key of await cache.keys()) await cache.delete(key);  // boot from the download
                } else if (await cache.match(url)) {
                    await cache.put(url, new Response(new Uint8Array(5000).fill(1)));
                }
            }
        }""",
        [url, SNAPSHOT_CACHE],
    )
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#engine-status")).to_contain_text("Python's WebAssembly module could not be decompressed")
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]
    assert page.evaluate(sizes_in_offline_cache, [url, SNAPSHOT_CACHE]) == [wasm.stat().st_size]


# Every text the engine's status shows from now on, in window.__statuses.
KEEP_STATUSES = """() => {
    const status = document.getElementById("engine-status");
    window.__statuses = [];
    new MutationObserver(() => window.__statuses.push(status.textContent)).observe(status, {
        childList: true, subtree: true, characterData: true,
    });
}"""


def test_worker_crash_mid_session_restarts_and_recomputes(page: Page, site_url: str, console: Any) -> None:
    """An uncaught error kills the worker: a new one starts and the current view is recomputed."""
    console.allowed.append("simulated crash")
    worker = goto_python_worker(page, site_url)
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    # The restart's status lasts until the new worker's first progress: kept here, so that
    # a slow poll cannot miss it.
    page.evaluate(KEEP_STATUSES)
    worker.evaluate("() => { setTimeout(() => { throw new Error('simulated crash'); }, 0); }")
    page.wait_for_function("() => window.__statuses.some((text) => text.includes('restarting'))")
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 8})
    assert tray_on_page(page) == []
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]


def test_silently_closed_worker_is_replaced(page: Page, site_url: str) -> None:
    """A worker that stops answering is replaced after a few seconds and the change still applies."""
    worker = goto_python_worker(page, site_url)
    wait_ready(page)
    worker.evaluate("() => { self.close(); }")
    page.get_by_label("Context word budget", exact=True).fill("9")
    page.get_by_label("Question", exact=True).select_option("timeout-incident")
    expect(page.locator("#experiment")).to_have_attribute(
        "data-shown-policy", re.compile("question=timeout-incident.*budget_words=9"), timeout=READY_TIMEOUT_MS
    )
    assert tray_on_page(page) == ["M5"]


def test_unreadable_saved_notes_are_kept_and_exported(context: BrowserContext, site_url: str, tmp_path: Path) -> None:
    """Corrupt saved notes are not dropped: a warning says so, export includes them, new notes work."""
    context.add_init_script(
        """try {
             if (location.protocol === 'http:' && !sessionStorage.getItem('seeded')) {
               sessionStorage.setItem('seeded', '1');
               localStorage.setItem('retrieval-workbench:notebook:v1', '{"text": "old notes from v0", broken');
             }
           } catch (e) { /* documents without storage (downloads) */ }"""
    )
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    warning = page.locator("#storage-warning")
    expect(warning).to_contain_text("could not be read")
    page.get_by_role("textbox", name="Notebook").fill("new notes")
    page.reload()
    wait_ready(page)
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value("new notes")
    expect(warning).to_contain_text("could not be read")  # still kept after saving new notes
    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    path = tmp_path / "notes.md"
    info.value.save_as(path)
    text = path.read_text()
    assert "new notes" in text and '{"text": "old notes from v0", broken' in text
    page.get_by_role("button", name="Discard the unreadable notes").click()
    expect(warning).to_be_hidden()
    page.reload()
    wait_ready(page)
    expect(page.locator("#storage-warning")).to_be_hidden()

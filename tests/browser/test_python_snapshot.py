"""Later visits restore Python from the memory snapshot the worker saved in Cache Storage."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import BrowserContext, expect

import build
from harness.controls import full_policy, set_policy
from harness.fixtures import STORE
from harness.generate import random_policy
from harness.page import READY_TIMEOUT_MS, assert_page_matches_cpython, wait_ready
from harness.snapshots import (
    SNAPSHOT_CACHE,
    boot_of,
    kept_wasm_url,
    saved_copies,
    saved_snapshots,
    snapshot_url,
    wait_snapshot_saved,
)


def test_a_repeat_visit_restores_python_and_computes_the_same(context: BrowserContext, site_url: str) -> None:
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    assert boot_of(page) == "fresh"
    wait_snapshot_saved(page, snapshot_url(page))
    sizes = saved_copies(page)
    assert sorted(sizes) == sorted([snapshot_url(page), kept_wasm_url(page)])
    # Python's memory, less its zero pages (snapshot-pages.js), not a stub.
    assert sizes[snapshot_url(page)] > 10_000_000
    # The module exactly as decoded, for the next visit to compile from Cache Storage.
    assert sizes[kept_wasm_url(page)] == (build.PYODIDE_PACKAGE / "pyodide.asm.wasm").stat().st_size

    page.reload()
    wait_ready(page)
    assert boot_of(page) == "snapshot"
    expect(page.locator("#engine-status")).to_contain_text("restored from this browser's saved copy")
    assert_page_matches_cpython(page, full_policy({}))
    rng = random.Random(7)
    for _ in range(8):
        assert_page_matches_cpython(page, set_policy(page, random_policy(STORE, rng, on_steps=True)))


def test_a_damaged_or_old_copy_is_replaced_by_a_fresh_boot(context: BrowserContext, site_url: str) -> None:
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    mine = snapshot_url(page)
    old = mine.rsplit("/", 1)[0] + "/python-snapshot-000000000000.bin"
    other_site = mine.rsplit("/", 1)[0] + "/another-course/python-snapshot-000000000000.bin"
    wait_snapshot_saved(page, mine)
    # A truncated copy of this build, a copy from an older build of this site, and one of another site.
    page.evaluate(
        """async ([name, entries]) => {
            const cache = await caches.open(name);
            for (const [url, size] of entries) await cache.put(url, new Response(new Uint8Array(size).fill(7)));
        }""",
        [SNAPSHOT_CACHE, [[mine, 4096], [old, 64], [other_site, 64]]],
    )
    page.reload()
    wait_ready(page)
    assert boot_of(page) == "fresh"  # the damaged copy was not used
    assert_page_matches_cpython(page, set_policy(page, {"question": "timeout-incident", "budget_words": 9}))
    wait_snapshot_saved(page, mine)
    assert sorted(saved_snapshots(page)) == sorted([mine, other_site])  # the old build's copy is gone

    page.reload()
    wait_ready(page)
    assert boot_of(page) == "snapshot"
    assert_page_matches_cpython(page, set_policy(page, {"question": "timeout-incident", "budget_words": 9}))

    # This build's own copy, cut short in its pages: its header is whole, so the restore
    # starts, and the pages, read once Python's module is compiled, come up short.
    page.evaluate(
        """async ([name, url]) => {
            const cache = await caches.open(name);
            const bytes = new Uint8Array(await (await cache.match(url)).arrayBuffer());
            await cache.put(url, new Response(bytes.subarray(0, bytes.byteLength - 4096)));
        }""",
        [SNAPSHOT_CACHE, mine],
    )
    page.reload()
    wait_ready(page)
    assert boot_of(page) == "fresh"
    assert_page_matches_cpython(page, set_policy(page, {"question": "timeout-incident", "budget_words": 9}))


def test_a_damaged_kept_webassembly_module_fails_visibly_and_retry_downloads_it(
    context: BrowserContext, site_url: str, console: Any
) -> None:
    """This browser's decoded copy of the module replaced by garbage: the next visit
    reports a failed load (rather than waiting forever inside Pyodide), forgets the copy,
    and Retry downloads the module again and computes as before."""
    console.allowed.append("wasm")  # Pyodide's own warning about the failed compile
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    wait_snapshot_saved(page, snapshot_url(page))
    page.evaluate(
        """async ([name, url]) => {
            const cache = await caches.open(name);
            await cache.put(url, new Response(new Uint8Array(4096).fill(7), { headers: { "Content-Type": "application/wasm" } }));
        }""",
        [SNAPSHOT_CACHE, kept_wasm_url(page)],
    )
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#engine-status")).to_contain_text("Python's WebAssembly module could not be compiled")
    assert kept_wasm_url(page) not in saved_copies(page)
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    assert_page_matches_cpython(page, set_policy(page, {"question": "timeout-incident", "budget_words": 9}))

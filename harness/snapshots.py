"""The copies the worker keeps in Cache Storage (Python's memory snapshot and the decoded
WebAssembly module): where they are, reading them, waiting for one, and how Python booted."""

from __future__ import annotations

import time

from playwright.sync_api import Page

SNAPSHOT_CACHE = "retrieval-workbench:python-snapshots"
SAVE_TIMEOUT_S = 60.0


def saved_copies(page: Page) -> dict[str, int]:
    """URL → size in bytes of every copy the worker keeps in the page's Cache Storage.

    The worker may delete a copy between listing the keys and reading one (it replaces a
    damaged or older copy while the test polls): such a copy is no longer kept."""
    sizes: dict[str, int] = page.evaluate(
        """async (name) => {
            const cache = await caches.open(name);
            const sizes = {};
            for (const key of await cache.keys()) {
                const copy = await cache.match(key);
                if (copy) sizes[key.url] = (await copy.arrayBuffer()).byteLength;
            }
            return sizes;
        }""",
        SNAPSHOT_CACHE,
    )
    return sizes


def saved_snapshots(page: Page) -> dict[str, int]:
    """The same, memory snapshots only (not the decoded WebAssembly module)."""
    return {url: size for url, size in saved_copies(page).items() if not url.endswith(".wasm")}


def saved_size(page: Page, url: str) -> int:
    """The size in bytes of the copy kept at url, 0 when none is."""
    size: int = page.evaluate(
        """async ([name, url]) => {
            const copy = await (await caches.open(name)).match(url);
            return copy ? (await copy.arrayBuffer()).byteLength : 0;
        }""",
        [SNAPSHOT_CACHE, url],
    )
    return size


def kept_wasm_url(page: Page) -> str:
    """Where the worker keeps the decoded WebAssembly module: the .zst file's URL without .zst."""
    url: str = page.evaluate(
        "() => new URL(JSON.parse(document.getElementById('runtime').textContent).wasmURL, document.baseURI).href"
    )
    return url.removesuffix(".zst")


def snapshot_url(page: Page) -> str:
    """Where the worker keeps this build's memory snapshot."""
    url: str = page.evaluate(
        "() => new URL(JSON.parse(document.getElementById('runtime').textContent).snapshotURL, document.baseURI).href"
    )
    return url


def wait_snapshot_saved(page: Page, url: str | None = None, min_bytes: int = 10_000_000) -> None:
    """Wait until url (by default this build's snapshot) holds a copy of min_bytes or more:
    the worker saves its copies in the background (the snapshot once the page is idle
    after its first answer, the decoded module as it arrives).

    Polled from Python: wait_for_function would take an async predicate's promise
    itself as a truthy answer.
    """
    url = url or snapshot_url(page)
    deadline = time.monotonic() + SAVE_TIMEOUT_S
    while saved_size(page, url) < min_bytes:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no copy of {min_bytes}+ bytes saved at {url} in {SAVE_TIMEOUT_S:g} s")
        page.wait_for_timeout(100)


def boot_of(page: Page) -> str | None:
    """How Python started in this page: "fresh", or "snapshot" when restored from a saved copy."""
    return page.get_attribute("html", "data-python-boot")

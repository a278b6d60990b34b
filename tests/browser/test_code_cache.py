"""A first visit leaves the page's modules compiled for the next one (V8's code cache)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Page, Playwright

from harness.browser import launch_persistent
from harness.page import READY_TIMEOUT_MS, ConsoleWatch, wait_ready
from harness.snapshots import snapshot_url, wait_snapshot_saved

# Chromium keeps no compiled code for a script shorter than this (V8CodeCache's minimum).
CACHED_FROM_CHARS = 1024

# Runs in every document of the page: counts the hidden frames added and removed, so the
# test knows when page-code-cache.js has loaded the page's modules once more.
FRAMES_WATCH = """
if (window.top === window) {
  window.__frames = { added: 0, removed: 0 };
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) if (node.nodeName === "IFRAME") window.__frames.added++;
      for (const node of change.removedNodes) if (node.nodeName === "IFRAME") window.__frames.removed++;
    }
  }).observe(document, { subtree: true, childList: true });
}
"""


def traced(page: Page, categories: list[str], action: Callable[[], None]) -> bytes:
    """Chromium's trace (through CDP: a persistent context has no Browser to trace with)
    of what the page's renderer did during action."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Tracing.start", {"traceConfig": {"includedCategories": categories}, "transferMode": "ReturnAsStream"})
    action()
    done: dict[str, str] = {}
    cdp.on("Tracing.tracingComplete", lambda event: done.update(event))
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(50)
    chunks = []
    while True:
        read = cdp.send("IO.read", {"handle": done["stream"]})
        chunks.append(read["data"])
        if read.get("eof"):
            return "".join(chunks).encode("utf-8")


def main_thread_compiles(trace: bytes) -> dict[str, int]:
    """Module path → bytes of compiled code it was given, for each module the page's own
    thread compiled (0: compiled from its source)."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    compiled: dict[str, int] = {}
    for e in events:
        if e.get("name") == "v8.compileModule" and (e["pid"], e["tid"]) in main:
            data = e.get("args", {}).get("data", {})
            path = urlsplit(data.get("url", "")).path
            if "/js/" in path:
                compiled[path] = max(compiled.get(path, 0), data.get("consumedCacheSize") or 0)
    return compiled


def test_the_first_repeat_visit_finds_the_pages_modules_compiled(
    playwright_instance: Playwright, site_url: str, built_site: Path, tmp_path: Path, console: ConsoleWatch
) -> None:
    """Once the first visit has saved its snapshot, Python's worker loads the modules a
    second time and the page then loads its own once more, in a frame that goes: the
    next visit's page compiles them from the code cache, not from their source. In a
    browser profile on disk, as a learner's is (a private window keeps less)."""
    context = launch_persistent(playwright_instance, tmp_path / "profile", viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(FRAMES_WATCH)
        page = context.pages[0]
        console.attach(page)
        page.goto(site_url)
        wait_ready(page)
        wait_snapshot_saved(page, snapshot_url(page))
        deadline = time.monotonic() + READY_TIMEOUT_MS / 1000
        while page.evaluate("() => window.__frames.added === 0 || window.__frames.removed < window.__frames.added"):
            assert time.monotonic() < deadline, "the page never loaded its modules once more in a frame of its own"
            page.wait_for_timeout(100)
        assert page.locator("iframe").count() == 0

        warmed = {
            "/" + path
            for path in page.evaluate("() => JSON.parse(document.getElementById('runtime').textContent).warmModules")
            if len((built_site / path).read_text(encoding="utf-8")) >= CACHED_FROM_CHARS
        }

        def reload_until_ready() -> None:
            page.reload()
            wait_ready(page)

        compiled = main_thread_compiles(traced(page, ["devtools.timeline", "v8"], reload_until_ready))
    finally:
        context.close()
    assert not console.unexpected(), "\n".join(console.unexpected())

    # The page's thread compiled most of its script files on this visit (the rest it only
    # preloads later), the page's code among them, and took nearly all of it, by size,
    # from the cache, which only the page's second load fills.
    chars = {path: len((built_site / path.lstrip("/")).read_text(encoding="utf-8")) for path in warmed}
    mine = {path: size for path, size in compiled.items() if path in warmed}
    assert len(mine) >= len(warmed) // 2 and max(warmed, key=chars.__getitem__) in mine, sorted(compiled)
    from_source = sorted(path for path, size in mine.items() if size == 0)
    assert sum(chars[path] for path in from_source) <= sum(chars[path] for path in mine) // 10, (from_source, compiled)

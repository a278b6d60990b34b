"""A busy machine on demand, for running the tests the way a slow computer or a shared CI
runner would: processes that keep every core busy, and Chromium's own CPU throttling."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Each one spins a core at full speed until it is stopped; one more than there are cores,
# so the tests never have a core to themselves.
SPIN = "while True: pass"


def busy_count() -> int:
    """N + 1 for N cores (what this process may run on, where the system says)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


@contextmanager
def busy_cores(count: int) -> Iterator[list[int]]:
    """count processes, each spinning one core, for the duration of the block; their ids."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
    try:
        yield [p.pid for p in spinners]
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def throttle_page(page: Any, rate: float) -> None:
    """Chromium runs this page's main thread rate times slower (DevTools' CPU throttling)."""
    session = page.context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": rate})


def throttle_new_pages(browser: Any, rate: float) -> None:
    """Every page of every context the browser makes from now on runs rate times slower:
    its contexts come from new_context, wrapped here, so tests need not ask for it."""
    new_context = browser.new_context

    def throttled_context(**options: Any) -> Any:
        context = new_context(**options)
        context.on("page", lambda page: throttle_page(page, rate))
        return context

    browser.new_context = throttled_context

"""Chromium for the browser tests and the page benchmarks: where it is, the flags it runs
with, and launching it. Debian's build is found, never downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class ChromiumNotFound(RuntimeError):
    """No Chromium binary where chromium_executable() looks; the message says how to get one."""


def chromium_executable() -> str:
    """$CHROMIUM_PATH, else `chromium` on PATH, else /usr/bin/chromium; ChromiumNotFound if none exists."""
    candidate = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(candidate).exists():
        raise ChromiumNotFound(
            "Chromium was not found (looked at $CHROMIUM_PATH, `chromium` on PATH and /usr/bin/chromium).\n"
            "Install Debian's build with `apt-get install chromium` (the README's test command does this); "
            "`playwright install` cannot download browsers here."
        )
    return candidate


def chromium_version() -> str:
    """What the Chromium binary says it is ("Chromium 1xx.0.… built on Debian …")."""
    return subprocess.run(
        [chromium_executable(), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def launch(playwright: Playwright, **options: Any) -> Browser:
    """A headless Chromium with the shared flags; options go to Playwright's launch()."""
    return playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS, **options)


def launch_persistent(playwright: Playwright, user_data_dir: str | Path, **options: Any) -> BrowserContext:
    """A headless Chromium on a profile folder of its own (real disk and code caches)."""
    return playwright.chromium.launch_persistent_context(
        user_data_dir, executable_path=chromium_executable(), args=CHROMIUM_ARGS, headless=True, **options
    )

"""A headless Chromium driven through its DevTools pipe, attached to its one tab and nothing else.

Playwright attaches DevTools to every worker of a page, the service worker included, and
Chromium never stops a service worker while DevTools is attached to it: a learner's
browser stops it once it has been idle for 30 s. A memory figure taken under Playwright
therefore counts a service worker that would be gone. This client speaks the DevTools
protocol over --remote-debugging-pipe (JSON messages ending in a NUL byte, the browser
reading fd 3 and writing fd 4) and attaches to the tab's page only: no worker is
attached, no domain is enabled, nothing is recorded in the page.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from harness.browser import CHROMIUM_ARGS, chromium_executable

TIMEOUT_S = 120.0


class CdpError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


class PipeBrowser:
    """Chromium on the profile folder user_data_dir, showing about:blank in one tab."""

    def __init__(self, user_data_dir: str | Path, width: int, height: int) -> None:
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # Copies numbered 10 and up, so that setting fds 3 and 4 cannot overwrite one of them.
        child_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD_CLOEXEC, 10)
        child_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_read)
        os.close(from_browser_write)

        def on_fds_3_and_4() -> None:  # runs in the child, just before Chromium starts
            os.dup2(child_read, 3)  # dup2's copies stay open across exec; the rest close there
            os.dup2(child_write, 4)

        self.process = subprocess.Popen(
            [
                chromium_executable(),
                *CHROMIUM_ARGS,
                "--headless",
                "--remote-debugging-pipe",
                f"--user-data-dir={user_data_dir}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # else fds 3 and 4 would be closed after on_fds_3_and_4 set them
            preexec_fn=on_fds_3_and_4,
        )
        os.close(child_read)
        os.close(child_write)
        self._next_id = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self._answered = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._session = self.send("Target.attachToTarget", {"targetId": self._tab(), "flatten": True})["sessionId"]

    def _tab(self) -> str:
        """The id of the browser's tab, once it has opened one."""
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            for target in self.send("Target.getTargets")["targetInfos"]:
                if target["type"] == "page":
                    return str(target["targetId"])
            time.sleep(0.05)
        raise CdpError(f"the browser opened no tab in {TIMEOUT_S:g} s")

    def _read(self) -> None:
        pending = b""
        while chunk := os.read(self._from_browser, 1 << 16):
            pending += chunk
            *messages, pending = pending.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:  # events are not listened to
                    with self._answered:
                        self._answers[message["id"]] = message
                        self._answered.notify_all()
        with self._answered:  # the browser has gone: no answer will come
            self._answered.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = False) -> dict[str, Any]:
        """Send a command to the browser (or, with page=True, to the tab) and wait for its answer."""
        with self._answered:
            self._next_id += 1
            ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if page:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        with self._answered:
            if not self._answered.wait_for(
                lambda: ident in self._answers or not self._reader.is_alive(), timeout=TIMEOUT_S
            ):
                raise CdpError(f"{method}: no answer in {TIMEOUT_S:g} s")
            answer = self._answers.pop(ident, None)
        if answer is None:
            raise CdpError(f"{method}: the browser closed")
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error'].get('message')}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def navigate(self, url: str) -> None:
        result = self.send("Page.navigate", {"url": url}, page=True)
        if result.get("errorText"):
            raise CdpError(f"{url}: {result['errorText']}")

    def reload(self) -> None:
        self.send("Page.reload", page=True)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the tab, promises awaited."""
        answer = self.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, page=True
        )
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise CdpError(details.get("exception", {}).get("description") or details.get("text", "evaluation failed"))
        return answer["result"].get("value")

    def close(self) -> None:
        with contextlib.suppress(CdpError):  # it may be gone already
            self.send("Browser.close")
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        self._reader.join(timeout=5)
        os.close(self._from_browser)

    def __enter__(self) -> PipeBrowser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

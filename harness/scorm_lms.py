"""The SCORM 1.2 test LMS: pages around scorm-again's runtime (npm, pinned), under its strict
validation at debug log level, that launch the package's SCO in five ways (an iframe, a
nested iframe, a popup from the LMS window, a popup from a frame of the LMS, and a player
popup that frames the SCO), and the LMS's server (ScormLms), which serves them and the
extracted package (in a folder of its own, PACKAGE_FOLDER, as an LMS hosts it: the
package's service worker then answers only for the package) and stores the data model
scorm-again posts at each commit.

The runtime commits to that server as a real LMS would: autocommit off, synchronous
requests (SCORM's own contract: LMSCommit answers only once the server has) or scorm-again's
asynchronous ones (LMSCommit answers "true" at once). The server can be told to answer
commits with an error, or to drop them as an unreachable LMS would.
"""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import build
from harness import ROOT

SCORM_RUNTIME = ROOT / "node_modules" / "scorm-again" / "dist" / "scorm12.js"

LAUNCH_MODES = ("iframe", "nested", "popup", "frame-popup", "player")
COMMIT_MODES = ("sync", "async")
COMMIT_PATH = "lms/commit"
PACKAGE_FOLDER = "sco"

# scorm-again's LogLevelEnum: DEBUG is 1, ERROR is 4. Every API call is wrapped so the
# test sees what each returned, LMSCommit's "true" or "false" above all.
RUNTIME_JS = """
// The test LMS: scorm-again's SCORM 1.2 runtime as window.API, strict, logging at debug
// level; every message kept, every error also sent to the console (which fails a test).
window.lmsLog = [];
window.lmsErrors = [];
window.lmsCalls = [];
window.lmsFinal = null;
window.startRuntime = (saved, commits = "sync") => {
  const api = new Scorm12API({
    logLevel: 1,
    strict_errors: true,
    autocommit: false,
    lmsCommitUrl: new URL("lms/commit", location.href).href,
    useAsynchronousCommits: commits === "async",
    onLogMessage(level, message) {
      lmsLog.push([Number(level), String(message)]);
      if (Number(level) >= 4 || level === "ERROR") {
        lmsErrors.push(String(message));
        console.error(`SCORM runtime error: ${message}`);
      }
    },
  });
  if (saved) api.loadFromJSON(saved);
  for (const name of ["LMSInitialize", "LMSSetValue", "LMSCommit", "LMSFinish"]) {
    const call = api[name].bind(api);
    api[name] = (element, value) => {
      const returned = call(element, value);
      lmsCalls.push([name, element ?? null, value ?? null, String(returned)]);
      return returned;
    };
  }
  api.on("LMSFinish", () => { window.lmsFinal = api.renderCommitCMI(true); });
  window.API = api;
};
window.launch = (mode) => {
  const slot = document.getElementById("slot");
  const frame = (src) => `<iframe id="frame" src="${src}" title="Course" width="1200" height="900"></iframe>`;
  if (mode === "iframe") slot.innerHTML = frame("sco/index.html");
  else if (mode === "nested") slot.innerHTML = frame("lms-wrapper.html?depth=3");
  else if (mode === "popup") window.open("sco/index.html", "sco", "width=1200,height=900");
  else if (mode === "frame-popup") slot.innerHTML = frame("lms-course-frame.html");
  else if (mode === "player") window.open("lms-player.html", "player", "width=1200,height=900");
  else throw new Error(`no launch mode ${mode}`);
};
window.closeFrames = () => { document.getElementById("slot").innerHTML = ""; };
"""

_LMS_HTML = """<!doctype html><meta charset="utf-8"><title>Test LMS</title><link rel="icon" href="data:,">
<script src="lms-scorm12.js"></script>
<script src="lms-runtime.js"></script>
<h1>Test LMS</h1>
<div id="slot"></div>
"""

# Frames between the LMS and the SCO: each holds the next, `depth` in all.
_WRAPPER_HTML = """<!doctype html><meta charset="utf-8"><title>Frame</title><link rel="icon" href="data:,">
<body><script src="lms-wrapper.js"></script>
"""
_WRAPPER_JS = """
const depth = Number(new URLSearchParams(location.search).get("depth"));
const frame = document.createElement("iframe");
frame.title = "Course";
frame.width = "1180";
frame.height = "880";
frame.src = depth > 1 ? `lms-wrapper.html?depth=${depth - 1}` : "sco/index.html";
document.body.append(frame);
"""

# A frame of the LMS page that opens the SCO in a popup (its opener is this frame).
_COURSE_FRAME_HTML = """<!doctype html><meta charset="utf-8"><title>Course menu</title><link rel="icon" href="data:,">
<script src="lms-course-frame.js"></script>
"""
_COURSE_FRAME_JS = """window.open("sco/index.html", "sco", "width=1200,height=900");"""

# A popup the LMS opens, which frames the SCO (the SCO's top window's opener is the LMS).
_PLAYER_HTML = """<!doctype html><meta charset="utf-8"><title>Player</title><link rel="icon" href="data:,">
<iframe id="frame" src="sco/index.html" title="Course" width="1180" height="880"></iframe>
"""


# Every page of the test LMS but scorm-again's own script, by file name.
LMS_PAGES = {
    "lms-runtime.js": RUNTIME_JS,
    "lms.html": _LMS_HTML,
    "lms-wrapper.html": _WRAPPER_HTML,
    "lms-wrapper.js": _WRAPPER_JS,
    "lms-course-frame.html": _COURSE_FRAME_HTML,
    "lms-course-frame.js": _COURSE_FRAME_JS,
    "lms-player.html": _PLAYER_HTML,
}


def write_scorm_lms(directory: Path) -> str:
    """Write the test LMS's pages in the folder that holds the extracted package's folder; returns the LMS page's name."""
    shutil.copyfile(SCORM_RUNTIME, directory / "lms-scorm12.js")
    for name, text in LMS_PAGES.items():
        (directory / name).write_text(text, encoding="utf-8")
    return "lms.html"


Answer = Literal["ok", "error", "drop"]


class ScormLms:
    """The test LMS's server: its pages, the package extracted in ``directory / PACKAGE_FOLDER``, and the commit endpoint.

    Every commit that reached the server is kept in arrival order (``commits``, scorm-again's
    JSON rendering of the data model, ``{"cmi": ...}``); ``answer`` says how the next ones
    are answered: "ok" (stored), "error" (HTTP 500 with SCORM error 101, not stored) or
    "drop" (the connection closed unanswered, as when the LMS is unreachable; not stored).
    """

    def __init__(self, directory: Path) -> None:
        self.page = write_scorm_lms(directory)
        self.commits: list[dict[str, Any]] = []
        self.refused = 0  # commits answered with an error or dropped
        self.answer: Answer = "ok"
        self.lock = threading.Lock()
        handler = type("Handler", (_ScormHandler,), {"lms": self})
        self.server = _Server(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(directory)))
        self.server.verbose = False  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def reset(self) -> None:
        """A new learner: no commits kept, every commit answered."""
        with self.lock:
            self.commits.clear()
            self.refused = 0
            self.answer = "ok"

    @property
    def stored(self) -> dict[str, Any]:
        """The data model as the server last stored it ({} before any commit)."""
        with self.lock:
            return self.commits[-1]["cmi"] if self.commits else {}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ScormLms:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


class _ScormHandler(build.StaticHandler):
    """The LMS's files, and POST /lms/commit storing the data model it carries."""

    lms: ScormLms

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/" + COMMIT_PATH:
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.lms.lock:
            answer = self.lms.answer
            if answer == "ok":
                self.lms.commits.append(json.loads(body))
            else:
                self.lms.refused += 1
        if answer == "drop":
            self.close_connection = True
            return
        reply = {"result": "true", "errorCode": 0} if answer == "ok" else {"result": "false", "errorCode": 101}
        data = json.dumps(reply).encode()
        self.send_response(200 if answer == "ok" else 500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass

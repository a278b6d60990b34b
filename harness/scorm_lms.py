"""The SCORM 1.2 test LMS: pages around scorm-again's runtime (npm, pinned), under its strict
validation at debug log level, that launch the package's SCO in five ways: an iframe, a
nested iframe, a popup from the LMS window, a popup from a frame of the LMS, and a player
popup that frames the SCO.

Each page is one entry of LMS_PAGES, written beside the extracted package by
write_scorm_lms; the runtime's settings (where it commits, if anywhere) are in
RUNTIME_JS's startRuntime.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from harness import ROOT

SCORM_RUNTIME = ROOT / "node_modules" / "scorm-again" / "dist" / "scorm12.js"

LAUNCH_MODES = ("iframe", "nested", "popup", "frame-popup", "player")

# scorm-again's LogLevelEnum: DEBUG is 1, ERROR is 4.
RUNTIME_JS = """
// The test LMS: scorm-again's SCORM 1.2 runtime as window.API, strict, logging at debug
// level; every message kept, every error also sent to the console (which fails a test).
window.lmsLog = [];
window.lmsErrors = [];
window.lmsCalls = [];
window.lmsFinal = null;
window.startRuntime = (saved) => {
  const api = new Scorm12API({
    logLevel: 1,
    strict_errors: true,
    autocommit: false,
    lmsCommitUrl: false,
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
    api.on(name, (element, value) => lmsCalls.push([name, element ?? null, value ?? null]));
  }
  api.on("LMSFinish", () => { window.lmsFinal = api.renderCommitCMI(true); });
  window.API = api;
};
window.launch = (mode) => {
  const slot = document.getElementById("slot");
  const frame = (src) => `<iframe id="frame" src="${src}" title="Course" width="1200" height="900"></iframe>`;
  if (mode === "iframe") slot.innerHTML = frame("index.html");
  else if (mode === "nested") slot.innerHTML = frame("lms-wrapper.html?depth=3");
  else if (mode === "popup") window.open("index.html", "sco", "width=1200,height=900");
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
frame.src = depth > 1 ? `lms-wrapper.html?depth=${depth - 1}` : "index.html";
document.body.append(frame);
"""

# A frame of the LMS page that opens the SCO in a popup (its opener is this frame).
_COURSE_FRAME_HTML = """<!doctype html><meta charset="utf-8"><title>Course menu</title><link rel="icon" href="data:,">
<script src="lms-course-frame.js"></script>
"""
_COURSE_FRAME_JS = """window.open("index.html", "sco", "width=1200,height=900");"""

# A popup the LMS opens, which frames the SCO (the SCO's top window's opener is the LMS).
_PLAYER_HTML = """<!doctype html><meta charset="utf-8"><title>Player</title><link rel="icon" href="data:,">
<iframe id="frame" src="index.html" title="Course" width="1180" height="880"></iframe>
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
    """Write the test LMS's pages beside an extracted SCORM package; returns the LMS page's name."""
    shutil.copyfile(SCORM_RUNTIME, directory / "lms-scorm12.js")
    for name, text in LMS_PAGES.items():
        (directory / name).write_text(text, encoding="utf-8")
    return "lms.html"

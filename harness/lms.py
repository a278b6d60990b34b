"""The learning management systems of the LMS tests.

* SCORM 1.2: pages around scorm-again's runtime (npm, pinned), its strict validation
  at debug log level, that launch the package's SCO in five ways: an iframe, a nested
  iframe, a popup from the LMS window, a popup from a frame of the LMS, and a player
  popup that frames the SCO (write_scorm_lms).
* cmi5: an LMS and its learning record store on one local server (Cmi5Lms). It plays
  the LMS's part of the launch contract (the auth token, LMS.LaunchData, the launched
  statement, the launch URL) and checks every statement it receives with npm's
  xapi-validation, under Node, and against cmi5's rules (check_cmi5_session).
"""

from __future__ import annotations

import base64
import http.server
import json
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import build
from harness import ROOT

SCORM_RUNTIME = ROOT / "node_modules" / "scorm-again" / "dist" / "scorm12.js"
VALIDATOR_SCRIPT = Path(__file__).with_name("lms_xapi_validate.mjs")

LAUNCH_MODES = ("iframe", "nested", "popup", "frame-popup", "player")

# scorm-again's LogLevelEnum: DEBUG is 1, ERROR is 4.
_RUNTIME_JS = """
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


def write_scorm_lms(directory: Path) -> str:
    """Write the test LMS's pages beside an extracted SCORM package; returns the LMS page's name."""
    shutil.copyfile(SCORM_RUNTIME, directory / "lms-scorm12.js")
    files = {
        "lms-runtime.js": _RUNTIME_JS,
        "lms.html": _LMS_HTML,
        "lms-wrapper.html": _WRAPPER_HTML,
        "lms-wrapper.js": _WRAPPER_JS,
        "lms-course-frame.html": _COURSE_FRAME_HTML,
        "lms-course-frame.js": _COURSE_FRAME_JS,
        "lms-player.html": _PLAYER_HTML,
    }
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return "lms.html"


class XapiValidator:
    """npm's xapi-validation in one long-running Node process: a statement in, its problems out."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(VALIDATOR_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lock = threading.Lock()

    def problems(self, statement: Any) -> list[str]:
        assert self.process.stdin and self.process.stdout
        with self.lock:
            self.process.stdin.write(json.dumps(statement) + "\n")
            self.process.stdin.flush()
            answer: list[str] = json.loads(self.process.stdout.readline())
        return answer

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=10)


CMI5_CATEGORY = "https://w3id.org/xapi/cmi5/context/categories/cmi5"
MOVEON_CATEGORY = "https://w3id.org/xapi/cmi5/context/categories/moveon"
SESSION_EXTENSION = "https://w3id.org/xapi/cmi5/context/extensions/sessionid"
MASTERY_EXTENSION = "https://w3id.org/xapi/cmi5/context/extensions/masteryscore"
VERBS = {
    name: f"http://adlnet.gov/expapi/verbs/{name}"
    for name in ("launched", "initialized", "completed", "passed", "failed", "terminated")
}
# cmi5 "allowed" statements the AU may send between initialized and terminated.
ANSWERED = "http://adlnet.gov/expapi/verbs/answered"
VERB_NAMES = {**{iri: name for name, iri in VERBS.items()}, ANSWERED: "answered"}


class Cmi5Lms:
    """An LMS and its LRS on one origin, serving an extracted cmi5 package beside them.

    Statements are kept in arrival order with the problems found in each; the one launch
    it prepares (launch_url) is a normal-mode registration with a session id.
    """

    def __init__(self, directory: Path, *, mastery_score: float | None = None) -> None:
        self.directory = directory
        self.validator = XapiValidator()
        self.statements: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.token = base64.b64encode(f"au:{uuid.uuid4()}".encode()).decode()
        self.token_fetches = 0
        self.registration = str(uuid.uuid4())
        self.session = str(uuid.uuid4())
        self.actor = {
            "objectType": "Agent",
            "name": "Test Learner",
            "account": {"homePage": "https://lms.test", "name": "learner-1"},
        }
        self.activity = ""
        self.mastery_score = mastery_score
        self.states: dict[str, Any] = {}  # the AU's own state documents, by stateId
        self.closing = threading.Event()
        handler = type("Handler", (_LmsHandler,), {"lms": self})
        self.server = _Server(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(directory)))
        self.server.verbose = False  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def relaunch(self) -> None:
        """A new session of the same registration: a new session id and a new auth token."""
        self.session = str(uuid.uuid4())
        self.token = base64.b64encode(f"au:{uuid.uuid4()}".encode()).decode()
        self.token_fetches = 0

    def context_template(self) -> dict[str, Any]:
        return {
            "contextActivities": {"grouping": [{"objectType": "Activity", "id": f"{self.activity}/course"}]},
            "extensions": {SESSION_EXTENSION: self.session},
        }

    def launch_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "contextTemplate": self.context_template(),
            "launchMode": "Normal",
            "moveOn": "Completed",
            "returnURL": f"{self.url}lms-return.html",
        }
        if self.mastery_score is not None:
            data["masteryScore"] = self.mastery_score
        return data

    def launch_url(self, au_id: str, url: str = "index.html", *, fetch_path: str = "lms/fetch") -> str:
        """Send the launched statement, as the LMS does, and give the AU's launch address."""
        self.activity = au_id
        context = self.context_template()
        context["registration"] = self.registration
        context["contextActivities"]["category"] = [{"objectType": "Activity", "id": CMI5_CATEGORY}]
        context["extensions"] = {
            **context["extensions"],
            "https://w3id.org/xapi/cmi5/context/extensions/launchmode": "Normal",
            "https://w3id.org/xapi/cmi5/context/extensions/moveon": "Completed",
            "https://w3id.org/xapi/cmi5/context/extensions/launchurl": f"{self.url}{url}",
        }
        self.receive(
            {
                "id": str(uuid.uuid4()),
                "actor": self.actor,
                "verb": {"id": VERBS["launched"], "display": {"en-US": "launched"}},
                "object": {"objectType": "Activity", "id": au_id},
                "context": context,
                "timestamp": _now(),
            }
        )
        query = {
            "endpoint": f"{self.url}lrs/",
            "fetch": f"{self.url}{fetch_path}",
            "actor": json.dumps(self.actor),
            "registration": self.registration,
            "activityId": au_id,
        }
        return f"{self.url}{url}?{urlencode(query)}"

    def receive(self, statement: dict[str, Any]) -> None:
        """Keep a statement with every problem xapi-validation and the single-statement cmi5 rules find."""
        found = [f"xapi-validation: {p}" for p in self.validator.problems(statement)]
        found += statement_problems(statement, self)
        verb = VERB_NAMES.get(statement.get("verb", {}).get("id", ""), statement.get("verb", {}).get("id"))
        self.problems += [f"{verb}: {p}" for p in found]
        self.statements.append(statement)

    def verbs(self, session: str | None = None) -> list[str]:
        """The statements' verbs in arrival order; of one session, if given."""
        return [
            VERB_NAMES.get(s["verb"]["id"], s["verb"]["id"])
            for s in self.statements
            if session is None or s.get("context", {}).get("extensions", {}).get(SESSION_EXTENSION) == session
        ]

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"the LRS never received {what}; it has {self.verbs()}")
            time.sleep(0.05)

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()
        self.validator.close()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


def statement_problems(statement: dict[str, Any], lms: Cmi5Lms) -> list[str]:
    """cmi5's rules for one statement of this registration (cmi5 spec, section 9)."""
    problems: list[str] = []
    verb = VERB_NAMES.get(statement.get("verb", {}).get("id", ""))
    if verb is None:
        return [f"verb {statement.get('verb')} is neither cmi5 defined nor expected"]
    if statement.get("actor") != lms.actor:
        problems.append(f"actor {statement.get('actor')} is not the launch's actor")
    object_id = statement.get("object", {}).get("id", "")
    if verb == "answered" and not object_id.startswith(f"{lms.activity}/"):
        problems.append(f"answered object {object_id} is not under the AU")
    if verb != "answered" and object_id != lms.activity:
        problems.append(f"object {statement.get('object')} is not the AU")
    if not statement.get("id") or not statement.get("timestamp"):
        problems.append("no id or no timestamp")
    context = statement.get("context", {})
    if context.get("registration") != lms.registration:
        problems.append(f"registration {context.get('registration')} is not the launch's")
    template = lms.context_template()
    for key, value in template["extensions"].items():
        if context.get("extensions", {}).get(key) != value:
            problems.append(f"context extension {key} missing from the context template")
    grouping = context.get("contextActivities", {}).get("grouping", [])
    for activity in template["contextActivities"]["grouping"]:
        if activity["id"] not in [g.get("id") for g in grouping]:
            problems.append(f"grouping {activity['id']} of the context template is missing")
    categories = [c.get("id") for c in context.get("contextActivities", {}).get("category", [])]
    if verb == "answered":  # an allowed statement: the template, never the cmi5 category
        if CMI5_CATEGORY in categories or MOVEON_CATEGORY in categories:
            problems.append("an allowed statement carries a cmi5 category")
        return problems
    if CMI5_CATEGORY not in categories:
        problems.append("no cmi5 category")
    if verb in ("completed", "passed", "failed") and MOVEON_CATEGORY not in categories:
        problems.append("no moveOn category")
    result = statement.get("result", {})
    if verb in ("completed", "passed", "failed", "terminated") and not result.get("duration"):
        problems.append("no result.duration")
    if verb == "completed" and result.get("completion") is not True:
        problems.append("completed without result.completion true")
    if verb in ("passed", "failed"):
        scaled = result.get("score", {}).get("scaled")
        if result.get("success") is not (verb == "passed"):
            problems.append(f"{verb} with result.success {result.get('success')}")
        if not isinstance(scaled, int | float) or not 0 <= scaled <= 1:
            problems.append(f"{verb} without a scaled score in [0, 1]")
        elif lms.mastery_score is not None:
            if (scaled >= lms.mastery_score) != (verb == "passed"):
                problems.append(f"{verb} with scaled score {scaled} against mastery score {lms.mastery_score}")
            if context.get("extensions", {}).get(MASTERY_EXTENSION) != lms.mastery_score:
                problems.append("no masteryscore extension")
    return problems


def session_problems(verbs: list[str]) -> list[str]:
    """cmi5's order for one session: launched, initialized, at most one completed and one
    passed or failed (allowed statements anywhere between), then exactly one terminated,
    and nothing after it."""
    problems: list[str] = []
    if verbs[:2] != ["launched", "initialized"]:
        problems.append(f"the session does not start launched, initialized: {verbs}")
    if verbs.count("initialized") != 1:
        problems.append(f"{verbs.count('initialized')} initialized statements")
    if verbs.count("terminated") != 1 or verbs[-1] != "terminated":
        problems.append(f"not exactly one terminated, last: {verbs}")
    if verbs.count("completed") > 1 or verbs.count("passed") + verbs.count("failed") > 1:
        problems.append(f"completed, passed or failed more than once: {verbs}")
    return problems


class _Server(http.server.ThreadingHTTPServer):
    # A request left hanging on purpose (/lms/hang) must not hold up closing the server.
    daemon_threads = True
    block_on_close = False


class _LmsHandler(build.StaticHandler):
    """The package's files, plus the LMS's fetch URL and the LRS's resources under /lrs/."""

    lms: Cmi5Lms

    def _reply(self, status: int, body: Any = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("X-Experience-API-Version", "1.0.3")
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        if self.headers.get("Authorization") != f"Basic {self.lms.token}":
            self.lms.problems.append(f"{self.command} {self.path} without the AU's auth token")
            self._reply(401, {"error": "unauthorised"})
            return False
        if not self.headers.get("X-Experience-API-Version", "").startswith("1.0"):
            self.lms.problems.append(f"{self.command} {self.path} without X-Experience-API-Version")
        return True

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if path == "/lms/fetch":
            self.lms.token_fetches += 1
            if self.lms.token_fetches > 1:  # cmi5: the fetch URL gives the token once
                self._reply(200, {"error-code": "1", "error-text": "already used"})
                return
            self._reply(200, {"auth-token": self.lms.token})
            return
        if path == "/lms/hang":  # an LMS that never answers: the request is dropped when the LMS closes
            self.lms.closing.wait(60)
            self.close_connection = True
            return
        if self._state(body):
            return
        if path == "/lrs/statements" and self._authorised():
            data = json.loads(body)
            statements = data if isinstance(data, list) else [data]
            for statement in statements:
                statement.setdefault("id", str(uuid.uuid4()))
                self.lms.receive(statement)
            self._reply(200, [s["id"] for s in statements])
            return
        if not path.startswith("/lrs/"):
            self._reply(404)

    def _state(self, body: bytes) -> bool:
        """The AU writes its own state document (never the LMS's launch data)."""
        parts = urlsplit(self.path)
        if parts.path != "/lrs/activities/state":
            return False
        if not self._authorised():
            return True
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        state_id = query.get("stateId", "")
        if state_id == "LMS.LaunchData" or query.get("registration") != self.lms.registration:
            self.lms.problems.append(f"the AU wrote state {state_id} for registration {query.get('registration')}")
        else:
            self.lms.states[state_id] = json.loads(body)
        self._reply(204)
        return True

    def do_PUT(self) -> None:
        path = urlsplit(self.path).path
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self._state(body):
            return
        if path == "/lrs/statements" and self._authorised():
            statement = json.loads(body)
            statement.setdefault("id", parse_qs(urlsplit(self.path).query).get("statementId", [""])[0])
            self.lms.receive(statement)
            self._reply(204)
            return
        self._reply(404)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if not parts.path.startswith("/lrs/"):
            super().do_GET()
            return
        if not self._authorised():
            return
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/lrs/activities/state":
            if (
                json.loads(query.get("agent", "null")) != self.lms.actor
                or query.get("registration") != self.lms.registration
            ):
                self.lms.problems.append(f"state asked for another agent or registration: {query}")
            state_id = query.get("stateId")
            if state_id == "LMS.LaunchData":
                self._reply(200, self.lms.launch_data())
            elif state_id is None:  # the ids of the documents held
                self._reply(200, ["LMS.LaunchData", *self.lms.states])
            elif state_id in self.lms.states:
                self._reply(200, self.lms.states[state_id])
            else:
                self.lms.problems.append(f"the AU asked for state {state_id}, which it never wrote")
                self._reply(404)
            return
        if parts.path == "/lrs/agents/profile" and query.get("profileId") == "cmi5LearnerPreferences":
            self._reply(200, {"languagePreference": "en-US", "audioPreference": "off"})
            return
        self.lms.problems.append(f"unexpected LRS request GET {self.path}")
        self._reply(404)

    def log_message(self, format: str, *args: Any) -> None:
        pass

"""The cmi5 test LMS and its learning record store on one local server (Cmi5Lms): it plays
the LMS's part of the launch contract (the auth token, LMS.LaunchData, the launched
statement, the launch URL), serves the LRS's resources, and keeps every statement with
the problems harness/cmi5_rules.py finds in it."""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import build
from harness.cmi5_rules import (
    CMI5_CATEGORY,
    SESSION_EXTENSION,
    VERB_NAMES,
    VERBS,
    XapiValidator,
    statement_problems,
)


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

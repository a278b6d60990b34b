"""What the test LRS holds each cmi5 statement and session to: xAPI's rules, checked by
npm's xapi-validation under Node, and cmi5's rules for one statement of a launch and for
the order of a session's statements (cmi5 spec, section 9)."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any, Protocol

VALIDATOR_SCRIPT = Path(__file__).with_name("lms_xapi_validate.mjs")


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


class Launch(Protocol):
    """What a statement is checked against: the launch the LMS prepared."""

    actor: dict[str, Any]
    activity: str
    registration: str
    mastery_score: float | None

    def context_template(self) -> dict[str, Any]: ...


def statement_problems(statement: dict[str, Any], lms: Launch) -> list[str]:
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

"""LMS packages in real runtimes: the SCORM 1.2 package under scorm-again (strict, debug
log level, committing to a local LMS server synchronously or asynchronously) in five
launch arrangements, with predictions, score, completion, session time and resume, what
the server holds when the learner closes the LMS, and commits it refuses; the cmi5
package against a local LRS that checks every statement, closed mid-activity too; and a
page that never waits for an LMS that is absent or silent."""

from __future__ import annotations

import json
import math
import re
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from playwright.sync_api import Browser, BrowserContext, Frame, Page, expect

import build
from harness.cmi5_lms import Cmi5Lms
from harness.cmi5_rules import session_problems
from harness.fixtures import FIXTURES, load_json
from harness.page import READY_TIMEOUT_MS, ConsoleWatch
from harness.scorm_lms import COMMIT_MODES, LAUNCH_MODES, PACKAGE_FOLDER, ScormLms

GUIDE = "current-vs-historical"
RESUME_STATE_ID = "retrieval-workbench-resume"  # cmi5-reporter.js's state document
GUIDED_STEPS = sum(len(g["steps"]) for g in load_json(FIXTURES / "store.json")["guides"])
TIMESPAN = re.compile(r"^\d{4}:[0-5]\d:[0-5]\d\.\d\d$")  # SCORM 1.2's HHHH:MM:SS.SS


def raw_score(matched: int) -> int:
    """The score for `matched` steps predicted right, rounded as the page's Math.round does (halves up)."""
    return math.floor(100 * matched / GUIDED_STEPS + 0.5)


CSP_WATCH = """addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));"""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build with both packages, scored, as `build.py --scorm --cmi5` writes them."""
    out = tmp_path_factory.mktemp("lms") / "dist"
    build.build(out=out, scorm=True, cmi5=True, quiet=True)
    return out


def extract(package: Path, directory: Path) -> set[str]:
    with zipfile.ZipFile(package) as archive:
        archive.extractall(directory)
        return set(archive.namelist())


@pytest.fixture(scope="module")
def lms_server(packages: Path) -> Iterator[ScormLms]:
    """The SCORM package unpacked beside the test LMS's pages, on the LMS's server."""
    directory = packages.parent / "scorm-lms"
    extract(build.scorm_package_path(packages), directory / PACKAGE_FOLDER)
    with ScormLms(directory) as server:
        yield server


@pytest.fixture
def scorm_lms(lms_server: ScormLms) -> ScormLms:
    """The LMS's server for one test: no commit kept yet, every commit answered."""
    lms_server.reset()
    return lms_server


@pytest.fixture(scope="module")
def watch() -> ConsoleWatch:
    return ConsoleWatch()


@pytest.fixture(scope="module")
def lms_context(browser: Browser, watch: ConsoleWatch) -> Iterator[BrowserContext]:
    """One context for the SCORM launches, so the runtime files download once."""
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    context.add_init_script(CSP_WATCH)
    context.on("page", watch.attach)
    yield context
    context.close()


@pytest.fixture
def clean(watch: ConsoleWatch) -> Iterator[ConsoleWatch]:
    """No console error, CSP violation or page error during the test (the LMS's pages included)."""
    watch.errors.clear()
    watch.allowed.clear()
    yield watch
    assert not watch.unexpected(), "\n".join(watch.unexpected())


def open_lms(context: BrowserContext, server: ScormLms, saved: Any = None, commits: str = "sync") -> Page:
    """The LMS's page, its runtime started (from `saved` data, committing `commits`ly)."""
    page = context.new_page()
    page.goto(server.url + server.page)
    page.evaluate("([saved, commits]) => startRuntime(saved, commits)", [saved, commits])
    return page


def wait_stored(server: ScormLms, holds: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """The data model the server last stored, once it holds what is asked (asynchronous commits land a moment later)."""
    deadline = time.monotonic() + 10
    while not holds(server.stored):
        if time.monotonic() > deadline:
            raise AssertionError(f"the LMS's server never stored {what}; it holds {server.stored}")
        time.sleep(0.05)
    return server.stored


def stored_interactions(cmi: dict[str, Any]) -> list[dict[str, Any]]:
    """The interactions of a stored data model, in order."""
    found = cmi.get("interactions") or {}
    return [found[k] for k in sorted(found, key=int)] if isinstance(found, dict) else list(found)


def stored_resume(cmi: dict[str, Any]) -> dict[str, Any]:
    text = cmi.get("suspend_data") or ""
    resume: dict[str, Any] = json.loads(text) if text else {}
    return resume


def find_sco(pages: list[Page]) -> Frame:
    """The frame showing the package's index.html, in whichever window and frame it was launched."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for page in pages:
            for frame in page.frames:
                if frame.url.split("?")[0].endswith("/index.html"):
                    return frame
        pages[0].wait_for_timeout(50)  # lets Playwright take in the frames' events
    raise AssertionError(f"the SCO never opened: {[f.url for p in pages for f in p.frames]}")


def launch(context: BrowserContext, lms: Page, mode: str) -> tuple[Frame, Page | None]:
    """Launch the SCO as `mode`; returns its frame and the popup window, if one was opened."""
    if mode in ("popup", "frame-popup", "player"):
        with context.expect_page() as opened:
            lms.evaluate("(mode) => launch(mode)", mode)
        popup = opened.value
        return find_sco([popup]), popup
    lms.evaluate("(mode) => launch(mode)", mode)
    return find_sco([lms]), None


def leave(lms: Page, popup: Page | None) -> dict[str, Any]:
    """The learner leaves (the LMS removes the frame, or the popup closes); the runtime's final data."""
    if popup is None:
        lms.evaluate("() => closeFrames()")
    else:
        popup.close(run_before_unload=True)
    lms.wait_for_function("() => window.lmsFinal !== null", timeout=10_000)
    final: dict[str, Any] = lms.evaluate("() => window.lmsFinal.cmi")
    return final


def calls(lms: Page) -> list[list[Any]]:
    result: list[list[Any]] = lms.evaluate("() => window.lmsCalls")
    return result


def set_values(lms: Page, prefix: str) -> list[tuple[str, str]]:
    return [(c[1], c[2]) for c in calls(lms) if c[0] == "LMSSetValue" and c[1].startswith(prefix)]


def assert_runtime_content(lms: Page) -> None:
    """scorm-again reported no error, saw LMSInitialize once, first, and every LMSCommit returned "true"."""
    assert lms.evaluate("() => window.lmsErrors") == []
    made = calls(lms)
    names = [c[0] for c in made]
    assert names[0] == "LMSInitialize" and names.count("LMSInitialize") == 1
    assert "LMSCommit" in names
    assert [c[3] for c in made if c[0] == "LMSCommit"] == ["true"] * names.count("LMSCommit")


@pytest.mark.parametrize("mode", LAUNCH_MODES)
def test_every_launch_finds_the_runtime_and_reports_time(
    lms_context: BrowserContext, scorm_lms: ScormLms, clean: ConsoleWatch, mode: str
) -> None:
    """iframe, nested iframe, popup from the LMS, popup from an LMS frame, player popup: the API is found, time is reported before LMSFinish, the last call, and the LMS's server keeps it."""
    lms = open_lms(lms_context, scorm_lms)
    sco, popup = launch(lms_context, lms, mode)
    # The page sets its LMS panel up after its first frames, without waiting for Python.
    expect(sco.locator("html")).to_have_attribute("data-lms", "scorm", timeout=READY_TIMEOUT_MS)
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[1] === 'cmi.core.lesson_status')")
    assert ("cmi.core.lesson_status", "incomplete") in set_values(lms, "cmi.core.lesson_status")
    wait_stored(scorm_lms, lambda cmi: cmi.get("core", {}).get("lesson_status") == "incomplete", "incomplete")
    lms.wait_for_timeout(300)  # some time on task
    final = leave(lms, popup)
    assert_runtime_content(lms)
    made = calls(lms)
    assert made[-1][0] == "LMSFinish" and [c[0] for c in made].count("LMSFinish") == 1
    session = [i for i, c in enumerate(made) if c[0] == "LMSSetValue" and c[1] == "cmi.core.session_time"]
    assert session and session[-1] < len(made) - 1
    reported = made[session[-1]][2]
    assert TIMESPAN.match(reported), reported
    assert 0.3 <= seconds_of(reported) < 120
    assert final["core"]["lesson_status"] == "incomplete"
    assert final["core"]["exit"] == "suspend"
    # LMSFinish's own request (a beacon, as the page goes) carries the session's end to the server.
    stored = wait_stored(scorm_lms, lambda cmi: cmi.get("core", {}).get("exit") == "suspend", "the session's end")
    # scorm-again writes the time with two-digit hours: the same duration.
    assert seconds_of(stored["core"]["session_time"]) == seconds_of(reported)
    lms.close()


def seconds_of(timespan: str) -> float:
    hours, minutes, seconds = timespan.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def close_lms(lms: Page, popup: Page | None) -> None:
    """The learner closes the LMS's tab; a course window it opened is then closed too."""
    lms.close(run_before_unload=True)
    if popup is not None and not popup.is_closed():
        popup.close(run_before_unload=True)


@pytest.mark.parametrize("commits", COMMIT_MODES)
@pytest.mark.parametrize("mode", LAUNCH_MODES)
def test_what_counts_is_committed_as_it_changes_and_closing_the_lms_loses_none_of_it(
    lms_context: BrowserContext, scorm_lms: ScormLms, clean: ConsoleWatch, mode: str, commits: str
) -> None:
    """Each checked step is on the LMS's server once its tray shows (interaction, score, progress), the notes once the learner pauses; every LMSCommit returns "true"; closing the LMS's tab right after a step keeps every prediction, incomplete or completed as earned."""
    finishing = (LAUNCH_MODES.index(mode) + COMMIT_MODES.index(commits)) % 2 == 0
    lms = open_lms(lms_context, scorm_lms, commits=commits)
    sco, popup = launch(lms_context, lms, mode)
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    run_step(sco, 0, ["M5"])
    stored = wait_stored(scorm_lms, lambda cmi: len(stored_interactions(cmi)) == 1, "the checked prediction")
    assert stored_interactions(stored)[0]["student_response"] == "M5"
    assert stored["core"]["score"]["raw"] == str(raw_score(1))
    assert stored_resume(stored)["p"]["reached"] == [f"{GUIDE}:0"]
    assert stored["core"]["lesson_status"] == "incomplete"
    sco.locator("#notebook").fill("Kept by the LMS.")
    wait_stored(scorm_lms, lambda cmi: stored_resume(cmi).get("n") == "Kept by the LMS.", "the notes")
    assert_runtime_content(lms)
    # Then one more step (the guide's last two when finishing), and the LMS closes at once.
    plan: list[list[str]] = [[], []] if finishing else [[]]
    for index, predict in enumerate(plan, start=1):
        run_step(sco, index, predict)
    if commits == "sync":
        assert_runtime_content(lms)
    close_lms(lms, popup)
    stored = wait_stored(
        scorm_lms, lambda cmi: len(stored_interactions(cmi)) == 1 + len(plan), "every checked prediction"
    )
    assert [i["student_response"] for i in stored_interactions(stored)] == ["M5"] + [""] * len(plan)
    assert [i["result"] for i in stored_interactions(stored)] == ["correct"] * (1 + len(plan))
    assert stored["core"]["lesson_status"] == ("completed" if finishing else "incomplete")
    assert stored["core"]["score"]["raw"] == str(raw_score(1 + len(plan)))
    assert stored_resume(stored)["n"] == "Kept by the LMS."


def test_a_refused_commit_is_said_and_goes_again_with_the_next_change(
    lms_context: BrowserContext, scorm_lms: ScormLms, clean: ConsoleWatch
) -> None:
    """An LMS that answers a commit with an error, or cannot be reached: LMSCommit returns "false", the status line says progress is not saved yet, and the next change's commit brings everything made meanwhile."""
    # What the browser and scorm-again say about the refused requests, and only that.
    clean.allowed += ["status of 500", "ERR_EMPTY_RESPONSE", "SCORM runtime error"]
    lms = open_lms(lms_context, scorm_lms)
    sco, _ = launch(lms_context, lms, "iframe")
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    wait_stored(scorm_lms, lambda cmi: bool(cmi), "the first commit")
    status = sco.locator("#lms-status")
    expect(status).to_be_hidden()
    unsaved = "Your progress is not saved in the LMS yet; it is sent again with your next change."

    def refused() -> None:
        expect(status).to_have_text(unsaved)
        last = calls(lms)[-1]
        assert last[0] == "LMSCommit" and last[3] == "false", last

    # An error answered: the checked step stays with the LMS's runtime and goes with the next one.
    scorm_lms.answer = "error"
    run_step(sco, 0, ["M5"])
    refused()
    assert stored_interactions(scorm_lms.stored) == []
    scorm_lms.answer = "ok"
    run_step(sco, 1, [])
    expect(status).to_be_hidden()
    assert [i["student_response"] for i in stored_interactions(scorm_lms.stored)] == ["M5", ""]
    # Unreachable: the guide's last step, completing it, goes with the notes once typing pauses.
    scorm_lms.answer = "drop"
    run_step(sco, 2, [])
    refused()
    assert scorm_lms.stored["core"]["lesson_status"] == "incomplete"
    scorm_lms.answer = "ok"
    sco.locator("#notebook").fill("Sent once the LMS answers.")
    expect(status).to_be_hidden()
    stored = scorm_lms.stored
    assert [i["student_response"] for i in stored_interactions(stored)] == ["M5", "", ""]
    assert stored["core"]["lesson_status"] == "completed"
    assert stored_resume(stored)["n"] == "Sent once the LMS answers."
    assert scorm_lms.refused >= 2  # a pause's commit may have tried again meanwhile
    errors = lms.evaluate("() => window.lmsErrors")
    assert errors and all("ommit" in e or "101" in e or "391" in e for e in errors), errors
    leave(lms, None)
    assert calls(lms)[-1][0] == "LMSFinish"
    lms.close()


def wait_shown(sco: Frame) -> None:
    """The SCO shows Python's answer to the configuration asked for last."""
    experiment = sco.locator("#experiment")
    expect(experiment).not_to_have_attribute("data-pending", "")
    asked = experiment.get_attribute("data-asked-policy")
    if asked is not None:
        expect(experiment).to_have_attribute("data-shown-policy", asked)


def run_step(sco: Frame, index: int, predict: list[str] | None, opens_at: int = 3) -> None:
    """Apply a step of the guide, set the prediction (None: leave it), go to stage 4.

    A step whose prediction the LMS has not checked yet opens one stage before its tray and
    asks for it; once checked, it opens at the tray, and a new prediction starts from a replay.
    """
    sco.locator(f'[data-guide-step="{GUIDE}:{index}"]', has_text="Apply step").click()
    wait_shown(sco)
    expect(sco.locator("#experiment")).to_have_attribute("data-stage", str(opens_at))
    if opens_at == 3:
        # "Predict first", or a prediction still standing from the step before.
        expect(sco.locator("#prediction-verdict")).to_contain_text(re.compile(r"^(Predict first|Prediction recorded)"))
    elif predict is not None:
        sco.get_by_role("button", name="Restart inspection").click()
        expect(sco.locator("#experiment")).to_have_attribute("data-stage", "1")
    if predict is not None:
        for box in sco.locator('input[name="predict"]').all():
            box.set_checked(box.get_attribute("value") in predict)
    look_for = sco.locator("#guide-bar .look-for")
    if opens_at == 3:
        # The bar holds back what the tray holds until the prediction is checked; the button
        # under the choices goes to the tray, as Next stage does.
        expect(look_for).to_have_attribute("data-held", "")
        sco.locator("#prediction-verdict").get_by_role("button", name="Check and show the tray").click()
        expect(look_for).not_to_have_attribute("data-held", "")
    for _ in range(3):
        if sco.locator("#experiment").get_attribute("data-stage") == "4":
            break
        sco.get_by_role("button", name="Next stage").click()
    expect(sco.locator("#experiment")).to_have_attribute("data-stage", "4")


def interactions(lms: Page) -> list[dict[str, str]]:
    """The interactions the SCO set, one dict per index, by element name."""
    found: dict[int, dict[str, str]] = {}
    for element, value in set_values(lms, "cmi.interactions."):
        _, _, index, *rest = element.split(".")
        found.setdefault(int(index), {})[".".join(rest)] = value
    return [found[i] for i in sorted(found)]


def test_checking_with_nothing_marked_predicts_an_empty_tray(
    lms_context: BrowserContext, scorm_lms: ScormLms, clean: ConsoleWatch
) -> None:
    """The first step of a session, nothing marked, "Check and show the tray": an empty prediction is checked and reported."""
    lms = open_lms(lms_context, scorm_lms)
    sco, _ = launch(lms_context, lms, "iframe")
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    run_step(sco, 1, None)  # the budget of eight words: the tray is empty
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[1] === 'cmi.interactions.0.result')")
    made = interactions(lms)
    assert [(i["student_response"], i["correct_responses.0.pattern"], i["result"]) for i in made] == [
        ("", "", "correct")
    ]
    leave(lms, None)
    lms.close()


def test_predictions_score_completion_and_resume(
    browser: Browser, lms_context: BrowserContext, scorm_lms: ScormLms, clean: ConsoleWatch
) -> None:
    """Each checked prediction is an interaction; completed only once every step of the guide reached stage 4; score; a relaunch resumes stage, baseline and notes."""
    lms = open_lms(lms_context, scorm_lms)
    sco, _ = launch(lms_context, lms, "iframe")
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    # Step 1: M5 predicted, M5 selected. Step 2: M5 still predicted, the tray is empty. Step 3: empty, empty.
    run_step(sco, 0, ["M5"])
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[1] === 'cmi.core.score.raw')")
    assert ("cmi.core.score.raw", str(raw_score(1))) in set_values(lms, "cmi.core.score")
    run_step(sco, 1, None)
    assert ("cmi.core.lesson_status", "completed") not in set_values(lms, "cmi.core.lesson_status")
    run_step(sco, 2, [])
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[2] === 'completed')")
    assert set_values(lms, "cmi.core.score.")[-3:] == [
        ("cmi.core.score.min", "0"),
        ("cmi.core.score.max", "100"),
        ("cmi.core.score.raw", str(raw_score(2))),
    ]
    made = interactions(lms)
    assert [(i["type"], i["student_response"], i["correct_responses.0.pattern"], i["result"]) for i in made] == [
        ("choice", "M5", "M5", "correct"),
        ("choice", "M5", "", "wrong"),
        ("choice", "", "", "correct"),
    ]
    assert [i["id"] for i in made] == [f"prediction-{n + 1}-step-{GUIDE}-{n}" for n in range(3)]
    for entry in made:
        assert TIMESPAN.match(entry["latency"]) and re.match(r"^\d\d:\d\d:\d\d$", entry["time"]), entry
    # Notes, a baseline, and the inspection left at stage 2.
    sco.locator("#notebook").fill("M5 fits exactly; at eight words the tray is empty.")
    sco.get_by_role("button", name="Capture baseline").click()
    sco.locator('[data-jump="2"]').click()
    expect(sco.locator("#experiment")).to_have_attribute("data-stage", "2")
    final = leave(lms, None)
    assert_runtime_content(lms)
    assert final["core"]["lesson_status"] == "completed"
    assert final["core"]["score"]["raw"] == str(raw_score(2))
    assert len(final["interactions"]) == 3
    saved = json.loads(final["suspend_data"])
    assert (saved["s"], saved["n"], saved["st"]) == (
        2,
        "M5 fits exactly; at eight words the tray is empty.",
        {"guide": GUIDE, "index": 2},
    )
    assert saved["b"]["policy"]["recency_weight"] == 1
    lms.close()
    scorm_lms.reset()

    # A relaunch on another computer (a fresh browser profile): the LMS's data alone.
    relaunch = browser.new_context(viewport={"width": 1300, "height": 1000})
    relaunch.add_init_script(CSP_WATCH)
    relaunch.on("page", clean.attach)
    try:
        kept = {"core": {"lesson_status": "completed", "entry": "resume"}, "suspend_data": final["suspend_data"]}
        lms = open_lms(relaunch, scorm_lms, kept)
        sco, _ = launch(relaunch, lms, "iframe")
        expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
        wait_shown(sco)
        expect(sco.locator("#notebook")).to_have_value("M5 fits exactly; at eight words the tray is empty.")
        expect(sco.get_by_role("button", name="Replace baseline")).to_be_visible()
        expect(sco.get_by_label("Context word budget", exact=True)).to_have_value("8")
        expect(sco.locator("#experiment")).to_have_attribute("data-stage", "2")
        assert ("cmi.core.lesson_status", "incomplete") not in set_values(lms, "cmi.core.lesson_status")
        # More notes than suspend_data holds: the page says so, and the rest is still kept.
        sco.locator("#notebook").fill("A long note. " * 400)
        expect(sco.locator("#lms-status")).to_contain_text("4,096 characters")
        # A relaunched completed lesson has nothing to commit at launch: the resume data goes
        # with the commit the learner's pause brings (RESUME_PAUSE_MS), which a quick
        # machine would otherwise leave before.
        lms.wait_for_function("() => window.lmsCalls.some((c) => c[0] === 'LMSCommit')", timeout=10_000)
        final = leave(lms, None)
        assert_runtime_content(lms)
        assert len(final["suspend_data"]) <= 4096
        saved = json.loads(final["suspend_data"])
        assert (saved["s"], saved["n"], saved["st"]) == (2, None, {"guide": GUIDE, "index": 2})
        assert saved["b"] is not None
    finally:
        relaunch.close()


def test_no_score_package_reports_completion_without_a_score(
    browser: Browser, tmp_path: Path, console: ConsoleWatch
) -> None:
    """build.py --scorm --no-score: interactions and completion, never cmi.core.score."""
    out = tmp_path / "dist"
    build.build(out=out, scorm=True, score=False, quiet=True)
    extract(build.scorm_package_path(out), tmp_path / "lms" / PACKAGE_FOLDER)
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    context.add_init_script(CSP_WATCH)
    context.on("page", console.attach)
    try:
        with ScormLms(tmp_path / "lms") as server:
            lms = open_lms(context, server)
            sco, _ = launch(context, lms, "iframe")
            expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
            for index, predict in enumerate([["M5"], [], []]):
                run_step(sco, index, predict)
            lms.wait_for_function("() => window.lmsCalls.some((c) => c[2] === 'completed')")
            final = leave(lms, None)
            assert_runtime_content(lms)
            assert set_values(lms, "cmi.core.score") == []
            assert final["core"]["score"]["raw"] == ""
            assert len(interactions(lms)) == 3
    finally:
        context.close()
    assert not console.unexpected(), "\n".join(console.unexpected())


def test_packages_list_every_file(packages: Path, tmp_path: Path) -> None:
    """The SCORM manifest names every file of the site; the cmi5 package is cmi5.xml beside the site with the
    cmi5 library added, which the plain site (the build's folder) does not carry."""
    site = {p.relative_to(packages).as_posix() for p in packages.rglob("*") if p.is_file()}
    cmi5_library = {"js/vendor/cmi5.js", "licenses/xapi-cmi5.txt"}
    assert not cmi5_library & site
    names = extract(build.scorm_package_path(packages), tmp_path / "scorm")
    manifest = ElementTree.parse(tmp_path / "scorm" / "imsmanifest.xml").getroot()
    ns = {"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2"}
    listed = {f.attrib["href"] for f in manifest.iterfind(".//cp:file", ns)}
    assert listed == names - {"imsmanifest.xml"} == site
    assert manifest.find(".//cp:schemaversion", ns).text == "1.2"  # type: ignore[union-attr]
    names = extract(build.cmi5_package_path(packages), tmp_path / "cmi5")
    assert names - {"cmi5.xml"} == site | cmi5_library
    structure = ElementTree.parse(tmp_path / "cmi5" / "cmi5.xml").getroot()
    cmi5 = {"c": "https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd"}
    (au,) = structure.iterfind("c:au", cmi5)
    assert au.find("c:url", cmi5).text == "index.html"  # type: ignore[union-attr]
    assert au.attrib["moveOn"] == "Completed" and au.attrib["id"].startswith("urn:uuid:")


@pytest.fixture(scope="module")
def cmi5_dir(packages: Path) -> Path:
    """The LMS's folder: the cmi5 package unpacked in au/ (so its service worker's scope
    is au/, as on an LMS that hosts packages), and the page the learner returns to."""
    directory = packages.parent / "cmi5-lms"
    extract(build.cmi5_package_path(packages), directory / "au")
    (directory / "lms-return.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>Back in the LMS</title><link rel="icon" href="data:,"><h1>Back in the LMS</h1>'
    )
    return directory


def au_id(directory: Path) -> str:
    structure = ElementTree.parse(directory / "au" / "cmi5.xml").getroot()
    (au,) = structure.iterfind("{https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd}au")
    return au.attrib["id"]


def test_cmi5_launch_sends_every_statement_in_order_and_a_relaunch_resumes(cmi5_dir: Path, new_context: Any) -> None:
    """Launched (by the LMS), initialized, completed, passed, terminated, each valid xAPI and by cmi5's rules; a relaunch resumes from the LRS and never completes twice, and closing it at once after a checked prediction loses no statement."""
    lms = Cmi5Lms(cmi5_dir, mastery_score=0.1)
    au = au_id(cmi5_dir)
    try:
        context = new_context(viewport={"width": 1300, "height": 1000})
        context.add_init_script(CSP_WATCH)
        page = context.new_page()
        page.goto(lms.launch_url(au, "au/index.html"))
        expect(page.locator("html")).to_have_attribute("data-lms", "cmi5")
        lms.wait_for(lambda: "initialized" in lms.verbs(), "initialized")
        expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
        for index, predict in enumerate([["M5"], ["M5"], []]):
            run_step(page.main_frame, index, predict)
        lms.wait_for(lambda: "passed" in lms.verbs(), "passed")
        page.locator("#notebook").fill("Kept by the LRS.")
        page.get_by_role("button", name="Exit activity").click()
        expect(page).to_have_title("Back in the LMS")  # the LMS's returnURL, after terminated
        first = lms.session
        assert lms.verbs(first) == [
            "launched",
            "initialized",
            "answered",
            "answered",
            "answered",
            "completed",
            "passed",
            "terminated",
        ]
        answers = [s for s in lms.statements if s["verb"]["id"].endswith("/answered")]
        assert [(a["result"]["response"], a["result"]["success"]) for a in answers] == [
            ("M5", True),
            ("M5", False),
            ("", True),
        ]
        assert [a["object"]["definition"]["correctResponsesPattern"] for a in answers] == [["M5"], [""], [""]]
        assert answers[0]["object"]["id"] == f"{au}/test/predictions/question/step-{GUIDE}-0"
        passed = next(s for s in lms.statements if s["verb"]["id"].endswith("/passed"))
        assert passed["result"]["score"] == {
            "scaled": 2 / GUIDED_STEPS,
            "raw": raw_score(2),
            "min": 0,
            "max": 100,
        }
        page.close()
        assert lms.verbs(first).count("terminated") == 1
        assert lms.problems == []
        assert session_problems(lms.verbs(first)) == []
        assert lms.token_fetches == 1

        # A relaunch in another browser: the LRS's state document brings the notes and progress back.
        lms.relaunch()
        page = new_context(viewport={"width": 1300, "height": 1000}).new_page()
        page.goto(lms.launch_url(au, "au/index.html"))
        expect(page.locator("#notebook")).to_have_value("Kept by the LRS.", timeout=READY_TIMEOUT_MS)
        expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
        # The guide again, a prediction checked at its last step, and the learner closes the page at once.
        relaunch_plan: list[list[str] | None] = [None, None, ["M5"]]
        for index, guess in enumerate(relaunch_plan):
            run_step(page.main_frame, index, guess, opens_at=4)
        page.close()
        lms.wait_for(lambda: "terminated" in lms.verbs(lms.session), "terminated, sent as the page went")
        assert lms.verbs(lms.session) == ["launched", "initialized", "answered", "terminated"]
        assert lms.statements[-2]["result"]["response"] == "M5"
        assert lms.verbs().count("completed") == 1  # once per registration
        assert session_problems(lms.verbs(lms.session)) == []
        assert lms.problems == []
        lms.wait_for(
            lambda: lms.states.get(RESUME_STATE_ID, {}).get("st", {}).get("index") == 2, "the last resume data"
        )
        assert lms.states[RESUME_STATE_ID]["n"] == "Kept by the LRS."
    finally:
        lms.close()


def test_the_page_never_waits_for_an_lms(cmi5_dir: Path, new_context: Any) -> None:
    """No LMS at all: nothing is loaded for one. A cmi5 LMS that never answers: the page and its guides work all the same."""
    lms = Cmi5Lms(cmi5_dir)
    try:
        context = new_context(viewport={"width": 1300, "height": 1000})
        context.add_init_script(CSP_WATCH)
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url))
        page.goto(lms.url + "au/index.html")
        expect(page.locator("html")).to_have_attribute("data-lms", "none")
        expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
        assert not [u for u in requested if "vendor/cmi5" in u or "/lrs/" in u or "/lms/" in u]
        # An LMS whose token endpoint never answers.
        page.goto(lms.launch_url(au_id(cmi5_dir), "au/index.html", fetch_path="lms/hang"))
        expect(page.locator("html")).to_have_attribute("data-lms", "cmi5")
        expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
        run_step(page.main_frame, 0, ["M5"])
        tray = page.get_by_role("region", name="Selected context").locator("li[data-record-id]")
        expect(tray).to_have_count(1)
        assert lms.verbs() == ["launched"]
        page.close()  # the request still waiting goes with the page
    finally:
        lms.close()

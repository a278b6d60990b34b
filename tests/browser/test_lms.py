"""LMS packages in real runtimes: the SCORM 1.2 package under scorm-again (strict, debug
log level) in five launch arrangements, with predictions, score, completion, session time
and resume; the cmi5 package against a local LRS that checks every statement; and a page
that never waits for an LMS that is absent or silent."""

from __future__ import annotations

import json
import re
import time
import zipfile
from collections.abc import Iterator
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
from harness.scorm_lms import LAUNCH_MODES, write_scorm_lms
from harness.servers import StaticServer

GUIDE = "current-vs-historical"
GUIDED_STEPS = sum(len(g["steps"]) for g in load_json(FIXTURES / "store.json")["guides"])
TIMESPAN = re.compile(r"^\d{4}:[0-5]\d:[0-5]\d\.\d\d$")  # SCORM 1.2's HHHH:MM:SS.SS
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
def scorm_lms(packages: Path) -> Iterator[str]:
    """The SCORM package unpacked beside the test LMS's pages, served; the LMS page's URL."""
    directory = packages.parent / "scorm-lms"
    extract(build.scorm_package_path(packages), directory)
    page = write_scorm_lms(directory)
    with StaticServer(directory) as server:
        yield server.url + page


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
    yield watch
    assert not watch.unexpected(), "\n".join(watch.unexpected())


def open_lms(context: BrowserContext, url: str, saved: Any = None) -> Page:
    page = context.new_page()
    page.goto(url)
    page.evaluate("(saved) => startRuntime(saved)", saved)
    return page


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
    """scorm-again reported no error, and saw LMSInitialize once, first."""
    assert lms.evaluate("() => window.lmsErrors") == []
    names = [c[0] for c in calls(lms)]
    assert names[0] == "LMSInitialize" and names.count("LMSInitialize") == 1


@pytest.mark.parametrize("mode", LAUNCH_MODES)
def test_every_launch_finds_the_runtime_and_reports_time(
    lms_context: BrowserContext, scorm_lms: str, clean: ConsoleWatch, mode: str
) -> None:
    """iframe, nested iframe, popup from the LMS, popup from an LMS frame, player popup: the API is found, time is reported before LMSFinish."""
    lms = open_lms(lms_context, scorm_lms)
    sco, popup = launch(lms_context, lms, mode)
    expect(sco.locator("html")).to_have_attribute("data-lms", "scorm")
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[1] === 'cmi.core.lesson_status')")
    assert ("cmi.core.lesson_status", "incomplete") in set_values(lms, "cmi.core.lesson_status")
    lms.wait_for_timeout(300)  # some time on task
    final = leave(lms, popup)
    assert_runtime_content(lms)
    made = calls(lms)
    finish = next(i for i, c in enumerate(made) if c[0] == "LMSFinish")
    session = [i for i, c in enumerate(made) if c[0] == "LMSSetValue" and c[1] == "cmi.core.session_time"]
    assert session and session[-1] < finish
    reported = made[session[-1]][2]
    assert TIMESPAN.match(reported), reported
    hours, minutes, seconds = reported.split(":")
    assert 0.3 <= int(hours) * 3600 + int(minutes) * 60 + float(seconds) < 120
    assert final["core"]["lesson_status"] == "incomplete"
    assert final["core"]["exit"] == "suspend"
    lms.close()


def wait_shown(sco: Frame) -> None:
    """The SCO shows Python's answer to the configuration asked for last."""
    experiment = sco.locator("#experiment")
    expect(experiment).not_to_have_attribute("data-pending", "")
    asked = experiment.get_attribute("data-asked-policy")
    if asked is not None:
        expect(experiment).to_have_attribute("data-shown-policy", asked)


def run_step(sco: Frame, index: int, predict: list[str] | None) -> None:
    """Apply a step of the guide, set the prediction (None: leave it), go to stage 4."""
    sco.locator(f'[data-guide-step="{GUIDE}:{index}"]').click()
    wait_shown(sco)
    expect(sco.locator("#experiment")).to_have_attribute("data-stage", "1")
    if predict is not None:
        for box in sco.locator('input[name="predict"]').all():
            box.set_checked(box.get_attribute("value") in predict)
    for _ in range(3):
        sco.get_by_role("button", name="Next stage").click()
    expect(sco.locator("#experiment")).to_have_attribute("data-stage", "4")


def interactions(lms: Page) -> list[dict[str, str]]:
    """The interactions the SCO set, one dict per index, by element name."""
    found: dict[int, dict[str, str]] = {}
    for element, value in set_values(lms, "cmi.interactions."):
        _, _, index, *rest = element.split(".")
        found.setdefault(int(index), {})[".".join(rest)] = value
    return [found[i] for i in sorted(found)]


def test_predictions_score_completion_and_resume(
    browser: Browser, lms_context: BrowserContext, scorm_lms: str, clean: ConsoleWatch
) -> None:
    """Each checked prediction is an interaction; completed only once every step of the guide reached stage 4; score; a relaunch resumes stage, baseline and notes."""
    lms = open_lms(lms_context, scorm_lms)
    sco, _ = launch(lms_context, lms, "iframe")
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    # Step 1: M5 predicted, M5 selected. Step 2: M5 still predicted, the tray is empty. Step 3: empty, empty.
    run_step(sco, 0, ["M5"])
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[1] === 'cmi.core.score.raw')")
    assert ("cmi.core.score.raw", str(round(100 / GUIDED_STEPS))) in set_values(lms, "cmi.core.score")
    run_step(sco, 1, None)
    assert ("cmi.core.lesson_status", "completed") not in set_values(lms, "cmi.core.lesson_status")
    run_step(sco, 2, [])
    lms.wait_for_function("() => window.lmsCalls.some((c) => c[2] === 'completed')")
    assert set_values(lms, "cmi.core.score.")[-3:] == [
        ("cmi.core.score.min", "0"),
        ("cmi.core.score.max", "100"),
        ("cmi.core.score.raw", str(round(200 / GUIDED_STEPS))),
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
    assert final["core"]["score"]["raw"] == str(round(200 / GUIDED_STEPS))
    assert len(final["interactions"]) == 3
    saved = json.loads(final["suspend_data"])
    assert (saved["s"], saved["n"], saved["st"]) == (
        2,
        "M5 fits exactly; at eight words the tray is empty.",
        {"guide": GUIDE, "index": 2},
    )
    assert saved["b"]["policy"]["recency_weight"] == 1
    lms.close()

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
    extract(build.scorm_package_path(out), tmp_path / "lms")
    page_name = write_scorm_lms(tmp_path / "lms")
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    context.add_init_script(CSP_WATCH)
    context.on("page", console.attach)
    try:
        with StaticServer(tmp_path / "lms") as server:
            lms = open_lms(context, server.url + page_name)
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
    """The SCORM manifest names every file of the site; the cmi5 package is cmi5.xml beside the site, with the cmi5 library."""
    site = {p.relative_to(packages).as_posix() for p in packages.rglob("*") if p.is_file()}
    assert "js/vendor/cmi5.js" in site and "licenses/xapi-cmi5.txt" in site
    names = extract(build.scorm_package_path(packages), tmp_path / "scorm")
    manifest = ElementTree.parse(tmp_path / "scorm" / "imsmanifest.xml").getroot()
    ns = {"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2"}
    listed = {f.attrib["href"] for f in manifest.iterfind(".//cp:file", ns)}
    assert listed == names - {"imsmanifest.xml"} == site
    assert manifest.find(".//cp:schemaversion", ns).text == "1.2"  # type: ignore[union-attr]
    names = extract(build.cmi5_package_path(packages), tmp_path / "cmi5")
    assert names - {"cmi5.xml"} == site
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
    """Launched (by the LMS), initialized, completed, passed, terminated, each valid xAPI and by cmi5's rules; a relaunch resumes from the LRS and never completes twice."""
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
            "raw": round(200 / GUIDED_STEPS),
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
        for index in range(3):
            run_step(page.main_frame, index, None)
        page.get_by_role("button", name="Exit activity").click()
        expect(page).to_have_title("Back in the LMS")
        assert lms.verbs(lms.session) == ["launched", "initialized", "terminated"]
        assert lms.verbs().count("completed") == 1  # once per registration
        assert session_problems(lms.verbs(lms.session)) == []
        assert lms.problems == []
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

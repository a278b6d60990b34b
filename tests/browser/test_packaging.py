"""Packages made in the page: the SCORM 1.2, cmi5 and site zips downloaded at 1280 and 375 px
(one page load each), for the default store, the support store and a generated one opened
from a file, each equal byte for byte to build.py's (or, for another store, to what
build.py's one path makes of it, tests/test_build.py showing the two are the same); its
progress and size said; nothing of it loaded before it is asked for; made offline and on
a Python restored from its snapshot; and the SCORM zip made in the page launched in the
test LMS, where it reports a checked prediction and its score."""

from __future__ import annotations

import json
import re
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

import build
from harness.fixtures import FIXTURES, SUPPORT_STORE, load_json
from harness.generate import synthetic_store
from harness.packaging import cpython_package, members, tree
from harness.page import ConsoleWatch, open_store, wait_ready
from harness.results import result_of
from harness.scorm_lms import PACKAGE_FOLDER, ScormLms
from harness.servers import StaticServer
from harness.snapshots import boot_of, wait_snapshot_saved

SHOTS = Path("/work/shots")
# The page's status line as it packages, in order (the first package also loads the code).
STEPS = ["Loading the packaging code…", "Checking the store…", "Drawing the page…", "Making the zip…"]
RECORD_STATUS = """() => {
  window.packageWatch?.disconnect();
  const steps = (window.packageSteps = []);
  const status = document.getElementById("package-status");
  window.packageWatch = new MutationObserver(() => steps.push(status.textContent));
  packageWatch.observe(status, {childList: true, characterData: true, subtree: true});
}"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packaging") / "dist"
    build.build(out=out, scorm=True, cmi5=True, quiet=True)
    return out


@pytest.fixture(scope="module")
def site(built: Path) -> Iterator[str]:
    server = StaticServer(built)
    yield server.url
    server.close()


def on_request_chunks(built: Path) -> list[str]:
    """The script files holding the modules loaded only for a package (sitebuild/bundle.py, ON_REQUEST)."""
    headers = ("// python/worker-package.js", "// panels/packaging-flow.js", "// views/prerender.js")
    found = [p.name for p in (built / "js").glob("*.js") if any(h in p.read_text(encoding="utf-8") for h in headers)]
    assert found, "no script holds the packaging's modules"
    return found


def download(page: Page, kind: str, target: Path) -> bytes:
    """Click a download button; the zip the browser saves, once the status says it is ready."""
    page.evaluate(RECORD_STATUS)
    names = {"scorm": "Download SCORM 1.2 package", "cmi5": "Download cmi5 package", "site": "Download site"}
    with page.expect_download(timeout=60_000) as saved:
        page.get_by_role("button", name=names[kind]).click()
    saved.value.save_as(target)
    data = target.read_bytes()
    name = {"scorm": "dist-scorm.zip", "cmi5": "dist-cmi5.zip", "site": "dist.zip"}[kind]
    assert saved.value.suggested_filename == name
    # The size said is the zip's, in megabytes with one decimal.
    expect(page.locator("#package-status")).to_contain_text(f"{name} is ready: {len(data) / 1e6:.1f} MB, made in ")
    steps: list[str] = page.evaluate("() => packageSteps")
    gathering = [s for s in steps if s.startswith("Gathering the site's files")]
    assert gathering and re.fullmatch(r"Gathering the site's files \(\d+\.\d MB\): (\d+) of \1 files…", gathering[-1])
    assert [s for s in steps if s in STEPS] == [s for s in STEPS if s in steps] and set(STEPS[1:]) <= set(steps)
    return data


@pytest.fixture(scope="module")
def made(
    browser: Browser, site: str, built: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """Every download, at 1280 px and then at 375 px in a second visit (its Python restored from the snapshot,
    offline): each zip's path and what it must equal."""
    folder = tmp_path_factory.mktemp("downloads")
    watch = ConsoleWatch()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    context.on("page", watch.attach)
    asked: list[str] = []
    context.on("request", lambda request: asked.append(request.url))
    found: dict[str, Any] = {"zips": [], "asked_before": None}
    default_text = (FIXTURES / "store.json").read_text(encoding="utf-8")
    support_text = SUPPORT_STORE.read_text(encoding="utf-8")
    generated = json.dumps(synthetic_store(18, seed=5757) | {"title": "A generated store"}, indent=1)

    page = context.new_page()
    page.goto(site)
    wait_ready(page)
    wait_snapshot_saved(page)
    found["asked_before"] = list(asked)
    panel = page.locator("#packages")
    panel.locator("summary").click()
    expect(page.locator("#package-store")).to_have_text(json.loads(default_text)["title"])
    page.locator("#packages").screenshot(path=SHOTS / "package-1280.png")
    for kind in ("scorm", "cmi5", "site"):
        found["zips"].append((1280, "default", kind, True, download(page, kind, folder / f"1280-default-{kind}.zip")))
    open_store(page, "support-store.json", support_text)
    expect(page.locator("#store-hint")).to_contain_text("Opened support-store.json")
    page.locator("#package-no-score").check()
    found["zips"].append((1280, "support", "scorm", False, download(page, "scorm", folder / "1280-support-scorm.zip")))
    page.locator("#package-no-score").uncheck()
    expect(page.locator("#package-store")).to_have_text(json.loads(support_text)["title"])
    for kind in ("cmi5", "site"):
        found["zips"].append((1280, "support", kind, True, download(page, kind, folder / f"1280-support-{kind}.zip")))
    open_store(page, "generated.json", generated)
    expect(page.locator("#store-hint")).to_contain_text("Opened generated.json")
    found["zips"].append(
        (1280, "generated", "scorm", True, download(page, "scorm", folder / "1280-generated-scorm.zip"))
    )
    page.close()

    page = context.new_page()
    page.set_viewport_size({"width": 375, "height": 667})
    page.goto(site)
    wait_ready(page)
    found["boot_375"] = boot_of(page)
    context.set_offline(True)
    page.locator("#packages summary").click()
    page.locator("#packages").screenshot(path=SHOTS / "package-375.png")
    for kind in ("scorm", "cmi5", "site"):
        found["zips"].append((375, "default", kind, True, download(page, kind, folder / f"375-default-{kind}.zip")))
    context.set_offline(False)
    page.locator("#package-progress").evaluate("(bar) => bar.hidden = false")  # shown as it is while building
    page.locator("#packages").screenshot(path=SHOTS / "package-375-progress.png")
    context.close()
    found["console"] = watch.unexpected()
    found["expected"] = {
        ("default", "scorm", True): build.scorm_package_path(built).read_bytes(),
        ("default", "cmi5", True): build.cmi5_package_path(built).read_bytes(),
        ("support", "scorm", False): cpython_package("scorm", support_text, built, score=False),
        ("support", "cmi5", True): cpython_package("cmi5", support_text, built),
        ("support", "site", True): cpython_package("site", support_text, built),
        ("generated", "scorm", True): cpython_package("scorm", generated, built),
    }
    found["default_text"] = default_text
    yield found


def test_each_download_equals_what_build_py_writes(made: dict[str, Any], built: Path) -> None:
    """Every zip made in the page, at both widths, online and offline, fresh and restored, equals build.py's."""
    assert not made["console"], made["console"]
    assert made["boot_375"] == "snapshot"
    assert len(made["zips"]) == 10
    for width, store, kind, score, data in made["zips"]:
        if kind == "site" and store == "default":
            assert members(data) == tree(built), (width, store, kind)
        else:
            assert data == made["expected"][(store, kind, score)], (width, store, kind, score)


def test_nothing_of_the_packaging_loads_before_a_package_is_asked_for(made: dict[str, Any], built: Path) -> None:
    """Before the first click: no request for the packaging zip, nor for the scripts only a package needs
    (the page's first visit, Python ready and its snapshot kept)."""
    before = made["asked_before"]
    assert any(url.endswith("/index.html") or url.endswith("/") for url in before)
    assert not [u for u in before if "/packaging/" in u]
    assert not [u for u in before if any(u.endswith(f"/js/{chunk}") for chunk in on_request_chunks(built))]


@pytest.fixture(scope="module")
def lms_from_page(made: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScormLms]:
    """The SCORM zip made in the page (at 375 px, offline, on a restored Python), unpacked in the test LMS."""
    data = next(d for w, s, k, _score, d in made["zips"] if (w, s, k) == (375, "default", "scorm"))
    directory = tmp_path_factory.mktemp("page-made-lms")
    zipped = directory / "page-made-scorm.zip"
    zipped.write_bytes(data)
    with zipfile.ZipFile(zipped) as archive:
        archive.extractall(directory / PACKAGE_FOLDER)
    with ScormLms(directory) as server:
        yield server


def stored_when(server: ScormLms, holds: Any, what: str) -> dict[str, Any]:
    """The data model the LMS's server holds once it holds what is asked (a commit lands a moment later)."""
    deadline = time.monotonic() + 15
    while not holds(server.stored):
        assert time.monotonic() < deadline, f"the LMS's server never stored {what}; it holds {server.stored}"
        time.sleep(0.05)
    return server.stored


def test_the_scorm_package_made_in_the_page_launches_and_reports_in_the_lms(
    browser: Browser, lms_from_page: ScormLms
) -> None:
    """Launched in an iframe under scorm-again (strict, every call recorded): the API is found and the attempt
    is incomplete; the first guided step's prediction, checked, reaches the LMS's server as an interaction with
    its score; scorm-again reports no error and every LMSCommit returns "true"."""
    watch = ConsoleWatch()
    context: BrowserContext = browser.new_context(viewport={"width": 1300, "height": 1000})
    context.on("page", watch.attach)
    lms = context.new_page()
    lms.goto(lms_from_page.url + lms_from_page.page)
    lms.evaluate("() => startRuntime(null, 'sync')")
    lms.evaluate("() => launch('iframe')")
    sco = lms.frame_locator("#frame")
    expect(sco.locator("html")).to_have_attribute("data-lms", "scorm", timeout=60_000)
    expect(sco.locator("html")).to_have_attribute("data-engine", "ready", timeout=60_000)
    stored_when(lms_from_page, lambda cmi: cmi.get("core", {}).get("lesson_status") == "incomplete", "incomplete")
    store = load_json(FIXTURES / "store.json")
    guide = store["guides"][0]
    sco.locator(f'[data-guide-step="{guide["id"]}:0"]', has_text="Apply step").click()
    expect(sco.locator("#prediction-verdict")).to_contain_text("Predict first")
    tray = result_of({"store": store, "policy": guide["steps"][0]["policy"]})["selected"]
    for box in sco.locator('input[name="predict"]').all():
        box.set_checked(box.get_attribute("value") in tray)
    sco.locator("#prediction-verdict").get_by_role("button", name="Check and show the tray").click()
    stored = stored_when(lms_from_page, lambda cmi: cmi.get("interactions"), "the checked prediction")
    (interaction,) = (
        stored["interactions"].values() if isinstance(stored["interactions"], dict) else stored["interactions"]
    )
    assert interaction["student_response"] == ",".join(tray) and interaction["result"] == "correct"
    steps = sum(len(g["steps"]) for g in store["guides"])
    assert stored["core"]["score"]["raw"] == str(round(100 / steps))
    assert lms.evaluate("() => window.lmsErrors") == []
    commits = [c[3] for c in lms.evaluate("() => window.lmsCalls") if c[0] == "LMSCommit"]
    assert commits and commits == ["true"] * len(commits)
    context.close()
    assert not watch.unexpected(), "\n".join(watch.unexpected())

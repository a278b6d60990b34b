"""The page in Chromium: the live engine agrees with CPython, controls, URL state, failure."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

import engine
from harness.controls import full_policy, query_of, set_policy
from harness.fixtures import FIXTURES, GOLDEN_FILES, STORE, load_json
from harness.generate import random_policy
from harness.page import (
    READY_TIMEOUT_MS,
    assert_page_matches_cpython,
    rows_on_page,
    shared_ready_page,
    tray_on_page,
    wait_answered,
    wait_ready,
)
from harness.results import result_of


@pytest.fixture
def ready_page(page: Page, site_url: str) -> Page:
    page.goto(site_url)
    wait_ready(page)
    return page


def test_prerendered_html_equals_the_live_result(ready_page: Page, site_url: str) -> None:
    """The default result baked into index.html is what Python computes once it is ready."""
    html = urllib.request.urlopen(site_url).read().decode()
    baked = re.findall(
        r'<tr data-record-id="([^"]+)" data-outcome="([^"]+)" data-decided="\d"\s+'
        r'data-cosine="([^"]+)" data-score="([^"]+)"',
        html,
    )
    assert len(baked) == 10
    live = rows_on_page(ready_page)
    for (rid, outcome, cosine, score), row in zip(baked, live, strict=True):
        assert (rid, outcome) == (row["id"], row["outcome"])
        assert math.isclose(float(cosine), row["cosine"], rel_tol=1e-12)
        assert math.isclose(float(score), row["score"], rel_tol=1e-12)
    assert_page_matches_cpython(ready_page, {})


def test_prerendered_page_is_complete_before_python(context: BrowserContext, site_url: str) -> None:
    """With the runtime unreachable, the default cards, table, tray and coverage are still there."""
    context.route("**/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(site_url)
    expect(page.locator("#cards li[data-record-id]")).to_have_count(10)
    expect(page.locator("#records-body tr[data-record-id]")).to_have_count(10)
    assert tray_on_page(page) == ["M10", "M5"]
    expect(page.locator(".coverage")).to_contain_text("0 of 1")


# Added before the page's own scripts: once the body is parsed, keeps the prerendered
# result views' elements and counts every change to those views' children from then on,
# and keeps each card that a change reached.
WATCH_VIEWS = """
const VIEWS = ["cards", "diagram", "records-body", "tray-body", "chart", "score-breakdown", "question-reading"];
window.__viewChanges = 0;
window.__cardsChanged = new Set();
document.addEventListener("DOMContentLoaded", () => {
  window.__prerendered = VIEWS.flatMap((id) => [...document.getElementById(id).children]);
  const observer = new MutationObserver((changes) => {
    window.__viewChanges += changes.length;
    for (const change of changes) {
      const element = change.target instanceof Element ? change.target : change.target.parentElement;
      const card = element?.closest("#cards > *");
      if (card) window.__cardsChanged.add(card);
    }
  });
  for (const id of VIEWS) observer.observe(document.getElementById(id), { childList: true, subtree: true, characterData: true, attributes: true });
});
"""


def test_the_first_answer_leaves_the_prerendered_views_as_they_are(context: BrowserContext, site_url: str) -> None:
    """Python's first answer is the prerendered result: no view is rebuilt or touched. The
    next change then writes only into the cards that differ, each card staying the element
    it was, and shows CPython's result."""
    context.add_init_script(WATCH_VIEWS)
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    page.wait_for_function("() => performance.getEntriesByName('rw:update').length > 0")
    assert page.evaluate("() => window.__prerendered.length") > 10
    assert page.evaluate("() => window.__prerendered.every((element) => element.isConnected)")
    assert page.evaluate("() => window.__viewChanges") == 0

    cards_before = page.evaluate("() => [...document.getElementById('cards').children].map((card) => card.outerHTML)")
    budget = page.get_by_label("Context word budget", exact=True)
    lower = int(budget.input_value()) - 20
    budget.fill(str(lower))
    expect(page.locator("#experiment")).to_have_attribute(
        "data-shown-policy", re.compile(rf"(^|&)budget_words={lower}(&|$)"), timeout=10_000
    )
    kept = page.evaluate(
        "() => [...document.getElementById('cards').children].map((card) => window.__prerendered.includes(card))"
    )
    changed = page.evaluate(
        "() => [...document.getElementById('cards').children].map((card) => window.__cardsChanged.has(card))"
    )
    cards_after = page.evaluate("() => [...document.getElementById('cards').children].map((card) => card.outerHTML)")
    assert all(kept)
    assert changed == [a != b for a, b in zip(cards_before, cards_after, strict=True)]
    assert any(changed) and not all(changed)
    assert_page_matches_cpython(page, {"budget_words": lower})


# Each result view as a tree of (name, sorted attributes, children) and (type, text): two
# views are the same document content whatever order their attributes were written in.
VIEW_TREES = """() => {
  const tree = (node) => node.nodeType === Node.ELEMENT_NODE
    ? [node.nodeName, node.getAttributeNames().sort().map((name) => [name, node.getAttribute(name)]), [...node.childNodes].map(tree)]
    : [node.nodeType, node.nodeValue];
  const views = ["cards", "records-head", "diagram", "records-body", "tray-body", "chart", "score-breakdown", "question-reading"];
  return Object.fromEntries(views.map((id) => [id, tree(document.getElementById(id))]));
}"""


def test_views_changed_in_place_equal_a_fresh_page_of_the_same_link(context: BrowserContext, ready_page: Page) -> None:
    """The views are rewritten in place, change after change (only what differs is written):
    after a run of changes that reshape them (the scorer's columns, another tenant, an
    empty tray, all stores), they hold exactly what a page opened at the same link shows."""
    for partial in (
        {"budget_words": 20},
        {"scorer": "bm25", "store": "all", "previous_sessions": True},
        {"tenant": "team-b", "store": "all", "previous_sessions": True, "max_records": 5},
        {"question": "rollback-steps", "budget_words": 0, "scorer": "bm25"},
        {"question_text": "checkout deployment", "store": "all", "recency_weight": 0.5, "max_age_hours": 500},
        {"tenant": "team-a", "store": "semantic", "latest_per_key": False, "previous_sessions": True},
    ):
        assert_page_matches_cpython(ready_page, set_policy(ready_page, partial))
    wait_answered(ready_page)
    fresh = context.new_page()
    fresh.goto(ready_page.url)
    wait_ready(fresh)
    wait_answered(fresh)
    assert ready_page.evaluate(VIEW_TREES) == fresh.evaluate(VIEW_TREES)


# Where each first-frames step ends (site/js/first-frames.js): the step lasts until a
# frame has drawn its content whole, that is, until this element is parsed.
STEP_ENDS = {"header": "main", "form": ".pipeline", "controls": "#cards-title", "pipeline": "#experiment + *"}

# Added before the page's own scripts: at the start of every frame, before the page's
# requestAnimationFrame callbacks, notes which first-frames step the page is on (that is,
# what the previous frame drew), how <main> is drawn and which steps' ends are parsed
# (the parser never runs inside a frame: that is what this frame holds); keeps the time
# of every layout shift, and of the offline notice (the page's one late addition).
FRAME_LOG = """
window.__frames = [];
window.__shifts = [];
window.__offlineAt = null;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__shifts.push(entry.startTime);
}).observe({ type: "layout-shift", buffered: true });
const note = () => {
  const main = document.querySelector("main"); // not parsed yet in a very early frame
  window.__frames.push([
    document.documentElement.dataset.firstFrames ?? "whole",
    main ? getComputedStyle(main).contentVisibility : null,
    Object.fromEntries(Object.entries(STEP_ENDS).map(([step, end]) => [step, document.querySelector(end) !== null])),
  ]);
  if (window.__frames.length < 12) requestAnimationFrame(note);
};
requestAnimationFrame(note);
new MutationObserver((changes, observer) => {
  if (!document.getElementById("offline-status")?.textContent) return;
  window.__offlineAt = performance.now();
  observer.disconnect();
}).observe(document, { childList: true, subtree: true, characterData: true });
""".replace("STEP_ENDS", json.dumps(STEP_ENDS))


def frames_drawn(page: Page) -> list[tuple[str, str | None, dict[str, bool]]]:
    """The page's first frames: the step each drew, how <main> was drawn (None: not
    parsed yet) and, by step, whether the element ending it was parsed."""
    page.wait_for_function("() => window.__frames.length >= 12")
    notes: list[list[Any]] = page.evaluate("() => window.__frames")
    # A note tells the step the frame before it drew, and what was parsed for its own.
    return [(after[0], before[1], before[2]) for before, after in itertools.pairwise(notes)]


@pytest.mark.parametrize("width", [1280, 768, 375])
def test_a_fresh_visit_is_drawn_in_steps_and_nothing_moves_while_python_starts(
    new_context: Callable[..., BrowserContext], site_url: str, width: int
) -> None:
    """The header alone, then the experiment's text and controls, then its playback, then
    its pipeline diagram, then the whole page, each drawn whole in one frame and adding
    content below or beside what is drawn; the status line keeps its room as its text
    changes, and so does the line saying the page is saved for offline use. A reload and
    a link to a #fragment are drawn whole at once (the browser restores the scroll
    position or scrolls to the fragment)."""
    context = new_context(viewport={"width": width, "height": 720})
    context.add_init_script(FRAME_LOG)
    page = context.new_page()
    page.goto(site_url)
    frames = frames_drawn(page)
    steps = [step for step, _, _ in frames]
    assert [step for i, step in enumerate(steps) if i == 0 or step != steps[i - 1]] == [*STEP_ENDS, "whole"]
    # A step lasts until one frame has drawn its content whole (the parser can yield
    # before the body: such a frame holds nothing yet), and <main> is hidden meanwhile.
    header = [main for step, main, _ in frames if step == "header"]
    assert header[-1] == "hidden" and header.count(None) == len(header) - 1
    for name in STEP_ENDS:
        ended = [parsed[name] for step, _, parsed in frames if step == name]
        assert ended[-1] and not any(ended[:-1]), (name, frames)
    wait_ready(page)
    page.wait_for_function("() => window.__offlineAt !== null")  # saved for offline use
    page.evaluate("() => new Promise((drawn) => requestAnimationFrame(() => setTimeout(drawn)))")
    assert page.evaluate("() => window.__shifts") == [], "the page moved"
    expect(page.locator("#records-body tr[data-record-id]").first).to_be_attached()
    expect(page.locator(".page-footer")).to_be_visible()

    page.reload()
    assert {step for step, _, _ in frames_drawn(page)} == {"whole"}
    page.goto(f"{site_url}#records")
    assert {step for step, _, _ in frames_drawn(page)} == {"whole"}
    assert page.evaluate("() => document.getElementById('records').getBoundingClientRect().top") == pytest.approx(
        0, abs=2
    )


@pytest.fixture(scope="module")
def shared_page(browser: Browser, site_url: str) -> Iterator[Page]:
    with shared_ready_page(browser, site_url) as page:
        yield page


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_case_in_the_browser(shared_page: Page, path: Path) -> None:
    """Each golden case, set through the controls, shows exactly CPython's result."""
    policy = set_policy(shared_page, load_json(path)["policy"])
    assert_page_matches_cpython(shared_page, policy)
    case = load_json(path)["expected"]
    assert tray_on_page(shared_page) == case["selected"]


def test_fifty_random_policies_match_cpython(shared_page: Page) -> None:
    """For 50 random policies, the page's outcomes, numbers and tray equal CPython's."""
    ready_page = shared_page
    rng = random.Random(20261129)
    for _ in range(50):
        policy = set_policy(ready_page, random_policy(STORE, rng, on_steps=True))
        assert_page_matches_cpython(ready_page, policy)


def test_seed_walkthroughs_through_the_controls(ready_page: Page) -> None:
    """The two guided experiments of the brief give the promised trays and coverage."""
    page = ready_page
    set_policy(
        page,
        {
            "question": "timeout-incident",
            "store": "working",
            "budget_words": 9,
            "max_records": 3,
            "max_age_hours": 168,
            "recency_weight": 0,
        },
    )
    assert tray_on_page(page) == ["M5"]
    expect(page.locator('#records-body tr[data-record-id="M10"]')).to_have_attribute("data-outcome", "no_shared_terms")
    set_policy(page, {"question": "timeout-incident", "budget_words": 8})
    assert tray_on_page(page) == []
    expect(page.locator('#records-body tr[data-record-id="M5"]')).to_have_attribute("data-outcome", "over_budget")
    expect(page.locator('#records-body tr[data-record-id="M5"] .reason')).to_contain_text("needs 9 words")

    set_policy(page, {"question": "deployment-region", "store": "working", "budget_words": 40})
    assert tray_on_page(page) == ["M10", "M5"]
    expect(page.locator(".coverage")).to_contain_text("0 of 1 supporting fact")
    set_policy(page, {"store": "semantic", "previous_sessions": True})
    assert tray_on_page(page) == ["M2"]
    expect(page.get_by_role("region", name="Selected context")).to_contain_text("Mumbai")
    set_policy(page, {"store": "semantic", "previous_sessions": False})
    assert tray_on_page(page) == []
    set_policy(page, {"tenant": "team-b", "store": "semantic", "previous_sessions": True})
    assert tray_on_page(page) == ["M9"]
    expect(page.get_by_role("region", name="Selected context")).to_contain_text("London")


def test_url_round_trips_the_policy(page: Page, site_url: str) -> None:
    """A link sets every control; a change rewrites the URL without reloading; reload restores it."""
    policy = full_policy(
        {
            "question": "timeout-incident",
            "budget_words": 9,
            "recency_weight": 0.25,
            "previous_sessions": True,
            "store": "all",
        }
    )
    page.goto(f"{site_url}?{query_of(policy)}")
    wait_ready(page)
    expect(page.get_by_label("Question", exact=True)).to_have_value("timeout-incident")
    expect(page.get_by_label("Context word budget", exact=True)).to_have_value("9")
    expect(page.get_by_label("Include previous sessions", exact=True)).to_be_checked()
    assert_page_matches_cpython(page, policy)
    page.evaluate("window.__sameDocument = true")
    page.get_by_label("Context word budget", exact=True).fill("30")
    expect(page).to_have_url(re.compile(r"budget_words=30"))
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    page.reload()
    wait_ready(page)
    expect(page.get_by_label("Context word budget", exact=True)).to_have_value("30")
    assert_page_matches_cpython(page, {**policy, "budget_words": 30})


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("budget_words=900", "budget_words"),
        ("budget_words=abc", "budget_words"),
        ("max_records=0", "max_records"),
        ("recency_weight=2", "recency_weight"),
        ("store=semntic", "store"),
        ("tenant=team-z", "tenant"),
        ("previous_sessions=yes", "previous_sessions"),
        ("budget_words=9&budget_words=8", "budget_words"),
        ("colour=blue", "colour"),
        ("question=" + "x" * 5000, "question"),
    ],
)
def test_bad_url_value_falls_back_with_a_notice(page: Page, site_url: str, query: str, named: str) -> None:
    """An unknown, malformed, repeated or out-of-range value names the parameter and uses the default."""
    page.goto(f"{site_url}?{query}")
    wait_ready(page)
    notice = page.locator("#notices")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(named)
    assert_page_matches_cpython(page, {})


def test_typed_out_of_range_value_is_kept_and_explained(ready_page: Page) -> None:
    """Typing 900 words shows the rule beside the box, keeps the text, and keeps the last result."""
    page = ready_page
    budget = page.get_by_label("Context word budget", exact=True)
    budget.fill("900")
    expect(page.locator("#f-budget-words-error")).to_have_text(
        "Context word budget must be a whole number from 0 to 500."
    )
    expect(budget).to_have_value("900")
    expect(budget).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", query_of(full_policy({})))
    budget.fill("9")
    expect(page.locator("#f-budget-words-error")).to_be_hidden()


def test_choosing_a_record_explains_its_score(ready_page: Page) -> None:
    """The breakdown lists shared terms whose contributions add up to the record's cosine."""
    page = ready_page
    page.locator('[data-choose="M5"]').click()
    expect(page.locator('[data-choose="M5"]')).to_have_attribute("aria-pressed", "true")
    breakdown = page.locator("#score-breakdown")
    expect(breakdown.locator("h3")).to_contain_text("M5: cosine 0.110")
    contributions = breakdown.locator("table.terms tbody tr.contribution td:last-child").all_inner_texts()
    m5 = next(r for r in result_of({"store": STORE})["records"] if r["id"] == "M5")
    assert len(contributions) == len(m5["terms"]) == 1
    assert math.isclose(sum(float(c) for c in contributions), m5["cosine"], abs_tol=1e-4)
    cos, recency = f"{m5['cosine']:.4f}", f"{m5['recency']:.4f}"
    expect(breakdown).to_contain_text(f"Score = (1 − 0) × {cos} + 0 × {recency} = {cos}")
    expect(page.locator("#chart svg g.chart-row")).to_have_count(10)


def test_engine_failure_shows_message_and_retry_recovers(context: BrowserContext, site_url: str, console: Any) -> None:
    """A runtime file that fails to load gives data-engine=failed, a message and Retry; Retry works."""
    console.allowed.append("Failed to load resource")
    console.allowed.append("net::ERR_FAILED")
    blocked = {"on": True}

    def maybe_block(route: Any) -> None:
        if blocked["on"]:
            route.abort()
        else:
            route.continue_()

    context.route("**/*.wasm", maybe_block)
    page = context.new_page()
    page.goto(site_url)
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#engine-status")).to_contain_text("Python could not start")
    expect(page.locator("#records-body tr")).to_have_count(10)  # the prerendered page stays
    # Without Python the views cannot follow a change: where the result is, the page says so,
    # and the control and the link stay on the settings shown.
    budget = page.get_by_label("Context word budget", exact=True)
    budget.fill("12")
    expect(page.locator("#refusal")).to_contain_text("These settings cannot be computed: Python is not running.")
    expect(budget).to_have_value("40")
    expect(page).to_have_url(re.compile(r"budget_words=40(&|$)"))
    retry = page.get_by_role("button", name="Retry", exact=True)
    expect(retry).to_be_visible()
    blocked["on"] = False
    # Python started again computes the settings it could not.
    page.get_by_role("button", name="Start Python again").click()
    wait_ready(page)
    expect(budget).to_have_value("12")
    expect(page).to_have_url(re.compile(r"budget_words=12(&|$)"))
    expect(page.locator("#refusal")).to_be_hidden()
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    assert tray_on_page(page) == ["M5"]


def test_a_python_that_failed_before_the_page_set_up_gets_its_store_after_retry(
    context: BrowserContext, site_url: str, console: Any
) -> None:
    """Python's worker starts before the page's own scripts: when it fails first, the
    store the page sends meanwhile is refused, and the Python a Retry starts opens it
    before its first run (without, it answered "no store is open")."""
    console.allowed.append("Failed to load resource")
    console.allowed.append("net::ERR_FAILED")
    blocked = {"on": True, "aborted": False}

    def maybe_block(route: Any) -> None:
        if blocked["on"]:
            blocked["aborted"] = True
            route.abort()
        else:
            route.continue_()

    held: list[Any] = []
    context.route("**/*.wasm", maybe_block)
    context.route("**/js/main.js", lambda route: held.append(route))  # the page sets itself up once let through
    page = context.new_page()
    page.goto(site_url, wait_until="commit")
    page.wait_for_function("() => performance.getEntriesByName('rw:python-worker').length > 0")
    for _ in range(200):  # route handlers run while Playwright waits
        if blocked["aborted"]:
            break
        page.wait_for_timeout(50)
    assert blocked["aborted"], "the worker never asked for the WebAssembly module"
    page.wait_for_timeout(300)  # the worker's failure reaches the page
    held[0].continue_()
    expect(page.locator("html")).to_have_attribute("data-engine", "failed", timeout=READY_TIMEOUT_MS)
    page.get_by_label("Context word budget", exact=True).fill("12")
    blocked["on"] = False
    page.get_by_role("button", name="Retry").click()
    wait_ready(page)
    expect(page.locator("#notices")).to_be_hidden()
    assert_page_matches_cpython(page, {"budget_words": 12})


def test_copy_link_copies_the_configuration(context: BrowserContext, site_url: str) -> None:
    """Copy link puts a URL with all nine policy fields on the clipboard."""
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    policy = set_policy(page, {"budget_words": 12})
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#copy-link-status")).to_contain_text("Link copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith("?" + query_of(policy))


def test_cards_scroll_with_the_keyboard(ready_page: Page) -> None:
    """The memory cards region takes focus and scrolls sideways with the arrow keys."""
    page = ready_page
    region = page.get_by_role("region", name="Memory cards")
    region.focus()
    before = region.evaluate("el => el.scrollLeft")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('.cards-scroll').scrollLeft > 0")
    assert region.evaluate("el => el.scrollLeft") > before


def test_every_control_has_its_accessible_name(ready_page: Page) -> None:
    """The controls named in the brief are found by those names."""
    for name in (
        "Question",
        "Active tenant",
        "Memory store",
        "Include previous sessions",
        "Maximum age",
        "Keep latest fact per key",
        "Recency weight",
        "Context word budget",
        "Maximum retrieved records",
    ):
        expect(ready_page.get_by_label(name, exact=True)).to_have_count(1)
    expect(ready_page.get_by_role("region", name="Selected context")).to_have_count(1)


def test_page_runs_the_built_engine_in_python_3_14(ready_page: Page) -> None:
    """The worker reports the Python and engine versions it actually loaded: Pyodide's 3.14, this engine."""
    text = ready_page.locator("#engine-status-text").inner_text()
    assert "Python 3.14" in text
    assert f"engine {engine.__version__} " in text
    assert json.loads(Path(FIXTURES / "store.json").read_text())["title"] in ready_page.title()

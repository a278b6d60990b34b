"""Accessibility in Chromium: axe-core at every stage, keyboard-only use, scroll regions, live regions.

axe-core comes from node_modules/axe-core (a devDependency; `npm ci` installs it). It is put
into the page with ``BrowserContext.add_init_script``. That goes through the DevTools protocol
(Page.addScriptToEvaluateOnNewDocument), which the page's Content-Security-Policy meta tag
(no 'unsafe-inline') does not govern, so these tests run under the page's real CSP: no
``bypass_csp``. ``test_axe_is_injected_under_the_page_csp`` checks that this stays true.

axe schedules its own work with ``setTimeout``. Under Playwright's clock with the time paused,
that timer never fires and ``axe.run`` would hang, so an init script added before
``page.clock.install`` keeps the browser's real timers, and ``run_axe`` swaps them in for the
duration of ``axe.run`` only.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from harness.accessibility import assert_focus_visible, describe, run_axe, tab_to, with_axe
from harness.controls import shows_policy
from harness.page import (
    CLOCK_START,
    ConsoleWatch,
    open_with_paused_clock,
    shared_ready_page,
    stage_is,
    tray_on_page,
    wait_answered,
    wait_ready,
)


@pytest.fixture
def new_context(new_context: Callable[..., BrowserContext], axe_source: str) -> Callable[..., BrowserContext]:
    return with_axe(new_context, axe_source)


# ------------------------------------------------------------------ axe


def test_axe_is_injected_under_the_page_csp(
    new_context: Callable[..., BrowserContext], site_url: str, console: ConsoleWatch
) -> None:
    """The CSP meta tag is in force (an inline script is refused), and axe is still there."""
    console.allowed.append("Executing inline script violates the following Content Security Policy")
    page = new_context().new_page()
    page.goto(site_url)
    csp = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content") or ""
    assert "script-src" in csp and "unsafe-inline" not in csp
    page.evaluate(
        """() => { const s = document.createElement('script'); s.textContent = 'window.__inlineRan = true';
                   document.head.append(s); }"""
    )
    assert page.evaluate("() => window.__inlineRan === true") is False  # the CSP blocks inline script
    assert page.evaluate("() => typeof axe === 'object' && typeof axe.run === 'function'")


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_wcag_violations_at_each_stage(
    new_context: Callable[..., BrowserContext], site_url: str, scheme: str, stage: int
) -> None:
    """axe (WCAG 2.0/2.1 A and AA) finds nothing, with a baseline, notes and a prediction on the page."""
    page = open_with_paused_clock(new_context(color_scheme=scheme).new_page(), site_url)
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    page.get_by_role("button", name="Capture baseline").click()
    notebook = page.get_by_role("textbox", name="Notebook")
    notebook.fill("Expect M5 alone once the budget is nine words.")
    page.get_by_role("button", name="Add current observation").click()
    page.get_by_label("Context word budget", exact=True).fill("9")  # starts the inspection at stage 1
    wait_answered(page)
    page.get_by_role("checkbox", name=re.compile(r"^M5 ")).check()  # a prediction, checked at stage 4
    page.clock.run_for(100 if stage == 1 else (stage - 1) * 10_000 + 100)
    stage_is(page, stage)
    shows_policy(page, {"budget_words": 9})
    expect(page.locator("#baseline-comparison table.diff").first).to_contain_text("budget_words")
    expect(notebook).to_have_value(re.compile(r"Expect M5 alone"))
    violations = run_axe(page)
    assert not violations, f"axe at stage {stage}, {scheme} scheme:\n{describe(violations)}"


# ------------------------------------------------------------------ keyboard


def test_guided_experiment_with_the_keyboard_alone(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """'Scope the task before widening recall', steps 1–4, with Tab, Shift+Tab, Enter, Space, R and N only."""
    page = open_with_paused_clock(new_context().new_page(), site_url)
    guide = "scope-before-recall"
    expect(page.locator(f'[data-guide="{guide}"] h3')).to_have_text("Scope the task before widening recall")
    steps = [
        {"question": "deployment-region", "tenant": "team-a", "store": "working", "budget_words": 40},
        {"question": "deployment-region", "store": "semantic", "previous_sessions": True, "budget_words": 40},
        {"question": "deployment-region", "store": "semantic", "previous_sessions": False, "budget_words": 40},
        {"question": "deployment-region", "tenant": "team-b", "store": "semantic", "previous_sessions": True},
    ]
    trays = [["M10", "M5"], ["M2"], [], ["M9"]]

    def apply_step(index: int, key: str) -> None:
        tab_to(page, f'[data-guide-step="{guide}:{index}"]')
        expect(page.locator(f'[data-guide-step="{guide}:{index}"]')).to_have_text(f"Apply step {index + 1}")
        assert_focus_visible(page)
        page.keyboard.press(key)
        expect(page.locator(f'[data-guide="{guide}"] li[data-step="{index + 1}"]')).to_have_attribute(
            "aria-current", "step"
        )
        # The step opens at the tray it shows, once answered; R replays its inspection from the start.
        shows_policy(page, steps[index])
        stage_is(page, 4)
        page.keyboard.press("r")
        stage_is(page, 1)

    def tray_is(index: int) -> None:
        stage_is(page, 4)
        shows_policy(page, steps[index])
        assert tray_on_page(page) == trays[index], f"step {index + 1}"

    # Step 1: Enter on the step button, then the N shortcut three times (focus stays on the button).
    apply_step(0, "Enter")
    for _ in range(3):
        page.keyboard.press("n")
    tray_is(0)

    # Step 2: Enter, then back up with Shift+Tab to Next stage and press it with Space three times.
    apply_step(1, "Enter")
    presses = tab_to(page, "#next-stage")
    assert presses > 0
    assert_focus_visible(page)
    for stage in (2, 3, 4):
        page.keyboard.press("Space")
        stage_is(page, stage)
    tray_is(1)

    # Step 3: Space on the step button, then N three times.
    apply_step(2, "Space")
    for _ in range(3):
        page.keyboard.press("n")
    tray_is(2)

    # Step 4: Enter, then the "4 · Final context" jump button.
    apply_step(3, "Enter")
    tab_to(page, '[data-jump="4"]')
    assert_focus_visible(page)
    page.keyboard.press("Enter")
    tray_is(3)
    expect(page.get_by_label("Active tenant", exact=True)).to_have_value("team-b")
    expect(page.get_by_role("region", name="Selected context")).to_contain_text("London")


@pytest.mark.parametrize(
    "selector",
    [
        "#f-question",
        "#f-previous-sessions",
        "#f-budget-words",
        "#store-file",
        "#play-pause",
        "#timeline",
        ".diagram-scroll",
        ".cards-scroll",
        "#notebook",
        ".table-scroll",
        "[data-choose]",
    ],
)
def test_keyboard_focus_is_visible(shared_keyboard_page: Page, selector: str) -> None:
    """Reached by Tab, each control draws a focus indicator (an outline of 2 px or more, or a shadow)."""
    page = shared_keyboard_page
    tab_to(page, selector)
    assert_focus_visible(page)


@pytest.fixture(scope="module")
def shared_keyboard_page(browser: Browser, site_url: str) -> Iterator[Page]:
    with shared_ready_page(browser, site_url, viewport={"width": 1280, "height": 900}) as page:
        yield page


# ------------------------------------------------------------------ scroll regions

SCROLL_REGIONS = {
    "memory cards": ".cards-scroll",
    "pipeline diagram": ".diagram-scroll",
    "records table": ".table-scroll",
}


@pytest.fixture(scope="module")
def phone_page(browser: Browser, site_url: str) -> Iterator[Page]:
    with shared_ready_page(browser, site_url, viewport={"width": 375, "height": 800}, has_touch=True) as page:
        yield page


@pytest.mark.parametrize("selector", SCROLL_REGIONS.values(), ids=SCROLL_REGIONS.keys())
def test_scroll_region_is_named_focusable_and_scrolls_with_arrow_right(phone_page: Page, selector: str) -> None:
    """Each scroll region is a named region with tabindex 0, reachable by Tab; where it overflows at
    375 px ArrowRight scrolls it, and where it does not, its content fits (the phone layout
    stacks the diagram in two columns and each table row as a block)."""
    page = phone_page
    region = page.locator(selector)
    expect(region).to_have_count(1)
    expect(region).to_have_attribute("role", "region")
    expect(region).to_have_attribute("tabindex", "0")
    expect(region).to_have_accessible_name(re.compile(r"\w{3}"))
    region.evaluate("el => { el.scrollLeft = 0; }")
    width = region.evaluate("el => ({scroll: el.scrollWidth, client: el.clientWidth})")
    tab_to(page, selector)  # reachable with Tab, not only by script
    assert_focus_visible(page)
    if width["scroll"] <= width["client"]:
        assert selector != SCROLL_REGIONS["memory cards"], "the ten cards must overflow sideways at 375 px"
        return
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("(s) => document.querySelector(s).scrollLeft > 0", arg=selector)


# ------------------------------------------------------------------ outcome is never colour alone


def test_every_outcome_badge_has_visible_text(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """Cards, table rows, the score breakdown and the baseline comparison name each outcome in words."""
    page = open_with_paused_clock(new_context().new_page(), site_url)
    page.get_by_role("button", name="Capture baseline").click()
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)  # the new result replays from stage 1 when it arrives
    page.get_by_role("button", name="4 · Final context").click()
    stage_is(page, 4)
    shows_policy(page, {"budget_words": 9})
    expect(page.locator("#baseline-comparison .badge").first).to_be_visible()
    badges = page.locator(".badge").evaluate_all(
        """els => els.map(b => {
          const words = [...b.childNodes]
            .filter(n => !(n.nodeType === 1 && n.getAttribute('aria-hidden') === 'true'))
            .map(n => n.textContent).join('').trim();
          const s = getComputedStyle(b);
          const r = b.getBoundingClientRect();
          const where = b.closest('[data-record-id]');
          return {where: (b.closest('[id]') || {}).id + ' ' + (where ? where.dataset.recordId : ''),
                  words, visible: s.visibility === 'visible' && s.display !== 'none' && r.width > 0 && r.height > 0,
                  fontSize: parseFloat(s.fontSize)};
        })"""
    )
    assert len(badges) >= 20, f"expected badges in cards and table, found {len(badges)}"
    problems = [
        b for b in badges if not b["visible"] or not re.search(r"[A-Za-z]{2}", b["words"]) or b["fontSize"] < 10
    ]
    assert not problems, f"badges without visible words at stage 4: {problems}"
    # At stage 2 a badge is either hidden for everyone (decided later) or shows its words.
    page.get_by_role("button", name="2 · Scope filters").click()
    stage_is(page, 2)
    shown = page.locator("#cards .badge").evaluate_all(
        """els => els.filter(b => getComputedStyle(b).visibility === 'visible')
                    .map(b => [...b.childNodes].filter(n => !(n.nodeType === 1 && n.getAttribute('aria-hidden')))
                                            .map(n => n.textContent).join('').trim())"""
    )
    assert shown and all(re.search(r"[A-Za-z]{2}", w) for w in shown), shown


# ------------------------------------------------------------------ live regions


def test_live_regions(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """The stage announcer is polite, rendered (not display:none), quiet at opening, and speaks at a change."""
    page = new_context().new_page()
    page.clock.install(time=CLOCK_START)
    page.goto(site_url)
    status = page.locator("#engine-status")
    expect(status).to_have_attribute("role", "status")
    expect(page.get_by_role("status").filter(has_text=re.compile("Python"))).to_have_count(1)
    wait_ready(page)
    page.clock.pause_at(CLOCK_START + datetime.timedelta(hours=1))
    expect(status).to_contain_text(re.compile(r"Python \d"))
    announcer = page.locator("#stage-announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    assert announcer.evaluate("el => getComputedStyle(el).display") != "none"
    assert announcer.evaluate("el => el.closest('[aria-hidden=\"true\"], [hidden]') === null")
    expect(announcer).to_have_text("")  # the opening stage is not announced
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    page.clock.run_for(10_100)
    stage_is(page, 2)
    expect(announcer).to_contain_text("Stage 2")
    page.clock.run_for(10_000)
    expect(announcer).to_contain_text("Stage 3")

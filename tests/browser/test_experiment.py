"""Playback and the experiment tools in Chromium, with Playwright's clock instead of waiting."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from harness.controls import set_policy
from harness.page import (
    open_with_paused_clock,
    stage_is,
    tray_on_page,
    wait_answered,
    wait_ready,
)

STAGE = "#experiment"


@pytest.fixture
def timed_page(page: Page, site_url: str) -> Page:
    return open_with_paused_clock(page, site_url)


def test_page_opens_on_the_final_stage(timed_page: Page) -> None:
    """Before any change the whole result is visible: stage 4, paused at 30 s."""
    stage_is(timed_page, 4)
    expect(timed_page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    expect(timed_page.locator("#clock")).to_have_text("30.0 s of 30 s")


def test_input_change_plays_four_stages_over_thirty_seconds(timed_page: Page) -> None:
    """At 1×, stages change at 10, 20 and 30 s; the tray is shown only at stage 4."""
    page = timed_page
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    stage_is(page, 1)
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(page.locator("#tray-body")).to_be_hidden()
    page.clock.run_for(9_900)
    stage_is(page, 1)
    page.clock.run_for(200)
    stage_is(page, 2)
    expect(page.locator("#stage-announcer")).to_contain_text("Stage 2, scope filters")
    page.clock.run_for(10_000)
    stage_is(page, 3)
    expect(page.locator("#tray-body")).to_be_hidden()
    page.clock.run_for(10_000)
    stage_is(page, 4)
    expect(page.locator("#tray-body")).to_be_visible()
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()  # stopped at the end
    expect(page.locator("#clock")).to_have_text("30.0 s of 30 s")


COUNT_FRAMES_ASKED = """() => {
  window.__framesAsked = 0;
  const ask = window.requestAnimationFrame;
  window.requestAnimationFrame = (callback) => (window.__framesAsked++, ask(callback));
}"""


def test_playback_redraws_when_the_shown_tenth_changes_not_every_frame(timed_page: Page) -> None:
    """The clock shows each tenth of a second as it passes, cut rather than rounded, and
    the page asks for no animation frame meanwhile: a timer wakes it for each tenth."""
    page = timed_page
    page.evaluate(COUNT_FRAMES_ASKED)
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    page.clock.run_for(1_290)
    expect(page.locator("#clock")).to_have_text("1.2 s of 30 s")
    page.clock.run_for(20)
    expect(page.locator("#clock")).to_have_text("1.3 s of 30 s")
    page.clock.run_for(700)
    expect(page.locator("#clock")).to_have_text("2.0 s of 30 s")
    assert page.evaluate("() => window.__framesAsked") == 0


def test_pause_settles_time_and_speed_change_keeps_the_old_pace(timed_page: Page) -> None:
    """Pause freezes elapsed time; a speed change settles time already played at the old pace."""
    page = timed_page
    page.get_by_label("Context word budget", exact=True).fill("12")
    wait_answered(page)
    page.clock.run_for(4_000)
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#clock")).to_have_text("4.0 s of 30 s")
    page.clock.run_for(20_000)
    expect(page.locator("#clock")).to_have_text("4.0 s of 30 s")
    page.get_by_role("button", name="Play", exact=True).click()
    page.clock.run_for(2_000)
    page.get_by_label("Speed", exact=True).select_option("2")
    page.clock.run_for(2_000)  # 6 s at 1×, then 4 s at 2×
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#clock")).to_have_text("10.0 s of 30 s")
    stage_is(page, 2)
    page.get_by_label("Speed", exact=True).select_option("0.25")
    page.get_by_role("button", name="Play", exact=True).click()
    page.clock.run_for(8_000)
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#clock")).to_have_text("12.0 s of 30 s")


def test_next_stage_and_restart(timed_page: Page) -> None:
    """Next stage pauses on the next 10-second boundary; Restart clears to 0 s, keeps speed and settings."""
    page = timed_page
    page.get_by_label("Speed", exact=True).select_option("2")
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    page.clock.run_for(1_500)  # 3 inspection seconds at 2×
    page.get_by_role("button", name="Next stage").click()
    expect(page.locator("#clock")).to_have_text("10.0 s of 30 s")
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    stage_is(page, 2)
    page.get_by_role("button", name="Next stage").click()
    stage_is(page, 3)
    page.get_by_role("button", name="Restart inspection").click()
    expect(page.locator("#clock")).to_have_text("0.0 s of 30 s")
    stage_is(page, 1)
    expect(page.get_by_label("Speed", exact=True)).to_have_value("2")
    expect(page.get_by_label("Context word budget", exact=True)).to_have_value("9")


def test_timeline_jumps_to_a_stage(timed_page: Page) -> None:
    """The stage buttons under the timeline jump there and pause."""
    page = timed_page
    page.get_by_role("button", name="2 · Scope filters").click()
    stage_is(page, 2)
    expect(page.locator("#clock")).to_have_text("10.0 s of 30 s")
    page.get_by_role("button", name="4 · Final context").click()
    stage_is(page, 4)


def test_hidden_tab_pauses(timed_page: Page) -> None:
    """When the tab is hidden, playback pauses and time stops."""
    page = timed_page
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    page.clock.run_for(3_000)
    page.evaluate(
        """() => { Object.defineProperty(document, 'hidden', {value: true, configurable: true});
                   document.dispatchEvent(new Event('visibilitychange')); }"""
    )
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    page.clock.run_for(15_000)
    expect(page.locator("#clock")).to_have_text("3.0 s of 30 s")


def test_keyboard_shortcuts_work_but_not_while_typing(timed_page: Page) -> None:
    """Space plays or pauses, N goes to the next stage, R restarts; typing in the notebook does neither."""
    page = timed_page
    page.get_by_role("button", name="Restart inspection").click()
    page.locator("h1").click()
    page.keyboard.press("Space")
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.keyboard.press("Space")
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    page.keyboard.press("n")
    stage_is(page, 2)
    page.get_by_role("textbox", name="Notebook").fill("")
    page.get_by_role("textbox", name="Notebook").press_sequentially("run n r ")
    stage_is(page, 2)
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value("run n r ")
    page.locator("h1").click()
    page.keyboard.press("r")
    stage_is(page, 1)


def test_reduced_motion_input_change_shows_the_result_at_once(browser: Browser, site_url: str) -> None:
    """With reduced motion preferred, an input change does not start playback: stage 4 at once."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    page.get_by_label("Context word budget", exact=True).fill("9")
    expect(page.locator(STAGE)).to_have_attribute("data-stage", "4")
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    context.close()


def test_prediction_is_checked_at_stage_four(timed_page: Page) -> None:
    """Marked records are locked and checked when the inspection reaches the final stage."""
    page = timed_page
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    page.get_by_role("button", name="Restart inspection").click()
    page.get_by_role("checkbox", name=re.compile(r"^M5 ")).check()
    page.get_by_role("checkbox", name=re.compile(r"^M10 ")).check()
    expect(page.locator("#prediction-verdict")).to_contain_text("Prediction recorded")
    page.get_by_role("button", name="Play", exact=True).click()
    page.clock.run_for(30_100)
    verdict = page.locator("#prediction-verdict")
    expect(verdict).to_contain_text("Your prediction differs from the tray")
    expect(verdict).to_contain_text("Held (predicted and selected): M5")
    expect(verdict).to_contain_text("Did not hold (predicted, not selected): M10")
    expect(page.get_by_role("checkbox", name=re.compile(r"^M5 "))).to_be_disabled()
    # An empty-tray prediction for budget 8 holds exactly.
    page.get_by_role("button", name="Clear prediction").click()
    page.get_by_label("Context word budget", exact=True).fill("8")
    wait_answered(page)
    page.get_by_role("checkbox", name=re.compile(r"^M1 ")).check()
    page.get_by_role("checkbox", name=re.compile(r"^M1 ")).uncheck()
    page.clock.run_for(30_100)
    expect(verdict).to_contain_text("Your prediction held exactly")
    expect(verdict).to_contain_text("You predicted an empty tray")


def test_baseline_capture_compare_replace_clear(timed_page: Page) -> None:
    """The baseline shows differing settings and changed outcomes; the buttons follow its state."""
    page = timed_page
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    page.get_by_role("button", name="Capture baseline").click()
    expect(page.get_by_role("button", name="Replace baseline")).to_be_visible()
    comparison = page.locator("#baseline-comparison")
    expect(comparison).to_contain_text("Same settings as the baseline")
    set_policy(page, {"question": "timeout-incident", "budget_words": 8})
    settings = comparison.locator("table.diff").first
    expect(settings.locator("tbody tr")).to_have_count(1)
    expect(settings).to_contain_text("budget_words")
    changed = comparison.locator('tr[data-record-id="M5"]')
    expect(changed).to_contain_text("Selected")
    expect(changed).to_contain_text("Over budget")
    page.get_by_role("button", name="Replace baseline").click()
    expect(comparison).to_contain_text("No record changed its outcome")
    page.get_by_role("button", name="Clear baseline").click()
    expect(comparison).to_be_empty()
    expect(page.get_by_role("button", name="Capture baseline")).to_be_visible()


def test_notebook_survives_reload_and_exports(context: BrowserContext, site_url: str, tmp_path: Path) -> None:
    """Typed notes and observations persist across reloads; Export notes downloads Markdown with JSON."""
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    set_policy(page, {"question": "timeout-incident", "budget_words": 9})
    notebook = page.get_by_role("textbox", name="Notebook")
    notebook.fill("M5 fits exactly <b>nine</b> words.")
    page.get_by_role("button", name="Add current observation").click()
    expect(notebook).to_have_value(re.compile(r"Tray: M5 \(9 words\)"))
    expect(notebook).to_have_value(re.compile(r"- M10 no_shared_terms: Shares no term"))
    page.reload()
    wait_ready(page)
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value(
        re.compile(r"^M5 fits exactly <b>nine</b> words\.")
    )
    expect(page.locator("#notebook + *")).not_to_contain_text("nine</b>")  # never rendered as HTML elsewhere
    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    download = info.value
    assert download.suggested_filename.endswith(".md")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    text = path.read_text()
    assert "M5 fits exactly <b>nine</b> words." in text
    observations = json.loads(text.split("## Observations (JSON)\n\n```json\n")[1].split("\n```")[0])
    assert observations[0]["tray"][0]["id"] == "M5"
    assert observations[0]["policy"]["budget_words"] == 9
    assert {e["id"] for e in observations[0]["exclusions"]} == {f"M{i}" for i in range(1, 11)} - {"M5"}


BLOCK_STORAGE = """
Object.defineProperty(window, 'localStorage', {
  configurable: true,
  get() { throw new DOMException('The operation is insecure.', 'SecurityError'); },
});
"""


def test_blocked_storage_warns_and_export_still_works(context: BrowserContext, site_url: str, tmp_path: Path) -> None:
    """With storage blocked, a visible warning says notes live in this tab; export keeps them."""
    context.add_init_script(BLOCK_STORAGE)
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    warning = page.locator("#storage-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("live only in this tab")
    page.get_by_role("textbox", name="Notebook").fill("kept in this tab")
    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    path = tmp_path / "notes.md"
    info.value.save_as(path)
    assert "kept in this tab" in path.read_text()


def test_full_storage_warns(context: BrowserContext, site_url: str) -> None:
    """When saving hits the quota, the page says the latest notes live only in this tab."""
    context.add_init_script(
        "Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); };"
    )
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    page.get_by_role("textbox", name="Notebook").fill("too much")
    expect(page.locator("#storage-warning")).to_contain_text("storage is full")


def test_fullscreen_enter_and_exit(timed_page: Page) -> None:
    """Expand experiment puts the experiment in full screen; the button then reads Exit full screen."""
    page = timed_page
    page.get_by_role("button", name="Expand experiment").click()
    expect(page.get_by_role("button", name="Exit full screen")).to_be_visible()
    assert page.evaluate("() => document.fullscreenElement && document.fullscreenElement.id") == "experiment"
    page.get_by_role("button", name="Exit full screen").click()
    expect(page.get_by_role("button", name="Expand experiment")).to_be_visible()
    # Leaving by the browser's own means (Escape) is followed too.
    page.get_by_role("button", name="Expand experiment").click()
    expect(page.get_by_role("button", name="Exit full screen")).to_be_visible()
    page.evaluate("() => document.exitFullscreen()")
    expect(page.get_by_role("button", name="Expand experiment")).to_be_visible()


def test_guided_experiments_apply_their_steps(timed_page: Page) -> None:
    """Each step sets its policy with one click; the seed's promised trays appear at stage 4."""
    page = timed_page
    expected = {
        "current-vs-historical": [["M5"], [], []],
        "scope-before-recall": [["M10", "M5"], ["M2"], [], ["M9"]],
    }
    for guide, trays in expected.items():
        for index, tray in enumerate(trays):
            page.locator(f'[data-guide-step="{guide}:{index}"]').click()
            wait_answered(page)
            page.clock.run_for(30_100)
            stage_is(page, 4)
            assert tray_on_page(page) == tray, (guide, index)
            expect(page.locator(f'[data-guide="{guide}"] li[data-step="{index + 1}"]')).to_have_attribute(
                "aria-current", "step"
            )
    expect(page.get_by_label("Active tenant", exact=True)).to_have_value("team-b")
    expect(page.locator(".coverage")).to_contain_text("1 of 1")

"""A newcomer's first five minutes (issue 41): the way in above the fold, the guide bar that
keeps a step with the result, an introduction that follows what is asked, trays that say
why they are empty, stages that show no more than they say, and questions cleaned as the
engine cleans them. Screenshots of each guide's first step go to test-output/screenshots/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

import engine.parse
from harness import ROOT
from harness.controls import shows_policy
from harness.devices import device
from harness.fixtures import STORE
from harness.page import open_with_paused_clock, stage_is, wait_answered, wait_ready

SCREENSHOTS = ROOT / "test-output" / "screenshots"
WIDTHS = {"desktop-1280": (1280, 900), "phone-375": (375, 812)}
GUIDES: list[dict[str, Any]] = STORE["guides"]


def in_view(locator: Locator, page: Page) -> bool:
    """The element is wholly inside the viewport, as it is now scrolled."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5


def phone_or_desktop(new_context: Callable[..., BrowserContext], size: tuple[int, int]) -> Page:
    return new_context(**device(*size)).new_page()


@pytest.mark.parametrize("size", WIDTHS.values(), ids=WIDTHS.keys())
def test_what_the_page_is_and_how_to_start_a_guide_are_above_the_fold(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    """Before any scrolling: the title, the one-paragraph purpose, and a Start button per guide."""
    page = phone_or_desktop(new_context, size)
    page.goto(site_url)
    wait_ready(page)
    assert page.evaluate("() => window.scrollY") == 0
    for element in (page.locator("h1"), page.locator(".lead"), page.get_by_role("heading", name="Start here")):
        assert in_view(element, page), element
    starts = page.locator("#start-here").get_by_role("button")
    expect(starts).to_have_text([guide["title"] for guide in GUIDES])
    for i in range(starts.count()):
        assert in_view(starts.nth(i), page), GUIDES[i]["title"]


@pytest.mark.parametrize("size", WIDTHS.values(), ids=WIDTHS.keys())
def test_each_guide_starts_from_the_top_and_its_step_stays_on_screen_with_the_result(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    """Start applies step 1; the guide bar says which step, what it set and what to look for,
    and stays in view wherever the result is read (the tray, the table). Screenshots of each."""
    page = phone_or_desktop(new_context, size)
    page.goto(site_url)
    wait_ready(page)
    bar = page.get_by_role("complementary", name="Guided experiment step")
    expect(bar).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for guide in GUIDES:
        page.evaluate("() => window.scrollTo(0, 0)")
        page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
        step = guide["steps"][0]
        shows_policy(page, step["policy"])
        expect(bar).to_be_visible()
        expect(bar).to_contain_text(f"Step 1 of {len(guide['steps'])}")
        expect(bar).to_contain_text(step["title"])
        expect(bar).to_contain_text(step["look_for"])
        # The keyboard is on the step, and Tab reaches the way on.
        expect(page.locator("#guide-bar-count")).to_be_focused()
        expect(page.locator("#experiment-guide")).to_have_text(
            f"Guided experiment “{guide['title']}”, step 1 of {len(guide['steps'])}: {step['title']}"
        )
        page.wait_for_timeout(800)  # the smooth scroll to the result settles
        page.screenshot(path=str(SCREENSHOTS / f"newcomer-{guide['id']}-step-1-{size[0]}.png"))
        for region in ("#tray", "#records-table"):
            page.locator(region).scroll_into_view_if_needed()
            assert in_view(bar, page), (guide["id"], region)
    # Next, Previous and Close, from the bar itself.
    guide = GUIDES[0]
    page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
    bar.get_by_role("button", name="Next step").click()
    shows_policy(page, guide["steps"][1]["policy"])
    expect(bar).to_contain_text(f"Step 2 of {len(guide['steps'])}")
    expect(bar.get_by_role("button", name="Next step")).to_be_focused()
    bar.get_by_role("button", name="Previous").click()
    shows_policy(page, guide["steps"][0]["policy"])
    expect(bar.get_by_role("button", name="Previous")).to_be_disabled()
    bar.get_by_role("button", name="Close").click()
    expect(bar).to_be_hidden()
    expect(page.locator("#experiment-guide")).to_be_hidden()


def test_the_bar_says_when_a_setting_was_changed_by_hand_and_applies_the_step_again(page: Page, site_url: str) -> None:
    page.goto(site_url)
    wait_ready(page)
    guide = GUIDES[0]
    page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
    shows_policy(page, guide["steps"][0]["policy"])
    bar = page.get_by_role("complementary", name="Guided experiment step")
    page.get_by_label("Context word budget", exact=True).fill("30")
    expect(bar).to_contain_text("A setting was changed by hand since this step was applied.")
    bar.get_by_role("button", name="Apply again").click()
    shows_policy(page, guide["steps"][0]["policy"])
    expect(bar).not_to_contain_text("changed by hand")
    # The last step finishes the guide: the bar says what it showed and which guide comes next.
    for _ in guide["steps"][1:]:
        bar.get_by_role("button", name="Next step").click()
    bar.get_by_role("button", name="Finish").click()
    following = GUIDES[1]
    expect(bar).to_contain_text(f"Finished · {guide['title']}")
    expect(bar).to_contain_text(guide["closing"])
    expect(bar).to_contain_text(f"Try next: “{following['title']}”, {len(following['steps'])} steps.")
    bar.get_by_role("button", name=f"Start “{following['title']}”").click()
    shows_policy(page, following["steps"][0]["policy"])
    expect(bar).to_contain_text(f"Step 1 of {len(following['steps'])}")
    bar.get_by_role("button", name="Close").click()
    expect(bar).to_be_hidden()


def test_the_last_guide_finishes_without_a_next_one(page: Page, site_url: str) -> None:
    """Finishing the store's last guide says so, and Close ends it."""
    page.goto(site_url)
    wait_ready(page)
    guide = GUIDES[-1]
    page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
    bar = page.get_by_role("complementary", name="Guided experiment step")
    for _ in guide["steps"][1:]:
        bar.get_by_role("button", name="Next step").click()
    bar.get_by_role("button", name="Finish").click()
    expect(bar).to_contain_text(guide["closing"])
    expect(bar).to_contain_text("It is the last guided experiment of this store.")
    expect(bar.get_by_role("button", name=re.compile("^Start"))).to_have_count(0)
    bar.get_by_role("button", name="Close").click()
    expect(bar).to_be_hidden()


# ------------------------------------------------------------------ the introduction


def test_the_introduction_follows_the_question_the_scorer_and_the_guide(page: Page, site_url: str) -> None:
    page.goto(site_url)
    wait_ready(page)
    intro = page.locator("#experiment-intro")
    fixed = STORE["questions"][0]["text"]
    expect(intro).to_contain_text(f"You ask one of the store's questions, “{fixed}”, of Team A's memory.")
    expect(intro).to_contain_text("scored by TF-IDF cosine")
    page.get_by_label("Scorer", exact=True).select_option("bm25")
    wait_answered(page)
    expect(intro).to_contain_text("scored by BM25")
    page.get_by_label("Question", exact=True).select_option(label="Your own question")
    page.get_by_label("Your question", exact=True).fill("where do our servers live")
    wait_answered(page)
    expect(intro).to_contain_text("You ask your own question, “where do our servers live”, of Team A's memory.")
    expect(intro).not_to_contain_text(fixed)
    guide = next(g for g in GUIDES if g["id"] == "two-ways-to-count-words")
    page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
    shows_policy(page, guide["steps"][0]["policy"])
    expect(page.locator("#experiment-guide")).to_contain_text(f"“{guide['title']}”, step 1 of 3")
    expect(intro).to_contain_text("You ask your own question, “checkout deployment”")
    expect(intro).to_contain_text("scored by TF-IDF cosine")


# ------------------------------------------------------------------ empty trays


def test_an_empty_tray_says_why_and_names_a_near_miss(page: Page, site_url: str) -> None:
    """'Why was the service so slow?' shares no word with any record: the tray says so, not
    'no record fit'; 'Which deploy did not fail?' is told that deploy is not deployment."""
    page.goto(f"{site_url}?question_text={quote('Why was the service so slow?')}")
    wait_ready(page)
    tray = page.get_by_role("region", name="Selected context")
    expect(tray.locator(".tray-empty")).to_contain_text(
        "The tray is empty: 8 out of scope (3 other tenant, 1 superseded, 4 other store); "
        "2 in scope share no word with the question; no word of the question is in any record."
    )
    expect(tray).not_to_contain_text("fit")
    page.goto(f"{site_url}?question_text={quote('Which deploy did not fail?')}")
    wait_ready(page)
    near = "TF-IDF matches only exact words, with no stemming: “deploy” is not “deployment”; “fail” is not “failed”."
    expect(page.locator('#question-reading .read-claim[data-kind="near_miss"]')).to_have_text(near)
    expect(tray.locator(".tray-empty")).to_contain_text(near)
    page.goto(f"{site_url}?budget_words=5&store=all&previous_sessions=true")
    wait_ready(page)
    expect(tray.locator(".tray-empty")).to_contain_text("3 are too long for the words left of the 5-word budget")


# ------------------------------------------------------------------ questions cleaned


def test_a_tab_in_a_question_is_a_space_and_a_question_of_no_words_is_refused(page: Page, site_url: str) -> None:
    page.goto(f"{site_url}?question_text=checkout%09incident")
    wait_ready(page)
    expect(page.get_by_label("Your question", exact=True)).to_have_value("checkout incident")
    expect(page.locator('#question-reading .read-claim[data-kind="terms"]')).to_have_text(
        "TF-IDF reads the terms checkout, incident."
    )
    page.goto(f"{site_url}?question_text=%09%0A&budget_words=9")
    wait_ready(page)
    expect(page.locator("#notices")).to_contain_text(f"The link's question_text=“\\t\\n” {engine.parse.NO_WORDS}")
    expect(page.get_by_label("Question", exact=True)).to_have_value(STORE["questions"][0]["id"])
    box = page.get_by_label("Your question", exact=True)
    page.get_by_label("Question", exact=True).select_option(label="Your own question")
    box.fill("   ")
    expect(page.locator("#f-question-text-error")).to_have_text(f"Your question {engine.parse.NO_WORDS}.")
    expect(box).to_have_attribute("aria-invalid", "true")
    box.fill("region")
    wait_answered(page)
    expect(page.locator("#f-question-text-error")).to_be_hidden()


# ------------------------------------------------------------------ stages


def test_no_rank_shows_before_the_ranking_stage(page: Page, site_url: str) -> None:
    """Stage 1 says nothing is excluded yet and stage 2 only scopes: neither shows a rank."""
    open_with_paused_clock(page, site_url)
    page.locator('[data-jump="1"]').click()
    stage_is(page, 1)
    ranked = page.locator('#records-body tr[data-outcome="selected"]').first
    expect(ranked.locator(".rank-line")).to_be_hidden()
    expect(page.locator('#records-body tr[data-outcome="other_tenant"] .rank-line').first).to_be_hidden()
    expect(page.locator('#cards .card[data-outcome="selected"] .card-rank').first).to_be_hidden()
    page.locator('[data-jump="2"]').click()
    stage_is(page, 2)
    expect(ranked.locator(".rank-line")).to_be_hidden()
    page.locator('[data-jump="3"]').click()
    stage_is(page, 3)
    expect(ranked.locator(".rank-line")).to_be_visible()
    expect(ranked.locator(".rank-line")).to_contain_text(re.compile(r"^rank \d+ \(BM25: \d+\)"))


# ------------------------------------------------------------------ nothing cut, nothing touching

CUT = """() => {
  const cut = [];
  for (const el of document.querySelectorAll('header *, main *')) {
    if (el.closest('.scroll-x, .visually-hidden, [hidden]') || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    const clips = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis' || el.tagName === 'SELECT';
    if (clips && el.scrollWidth > el.clientWidth + 1 && (el.textContent || '').trim()) {
      cut.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} "${(el.textContent || '').trim().slice(0, 40)}"`);
    }
  }
  return cut;
}"""

TOUCHING = """() => [...document.querySelectorAll('.stage-box')].flatMap((box) => {
  const title = box.querySelector('.stage-title').getBoundingClientRect();
  const count = box.querySelector('.stage-count').getBoundingClientRect();
  const sameLine = count.top < title.bottom && title.top < count.bottom;
  return sameLine && count.left - title.right < 4 ? [`${box.dataset.stageBox}: ${count.left - title.right} px`] : [];
})"""


@pytest.mark.parametrize("size", WIDTHS.values(), ids=WIDTHS.keys())
def test_no_text_is_cut_no_count_touches_its_label_and_keys_show_only_with_a_keyboard(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    page = phone_or_desktop(new_context, size)
    page.goto(site_url)
    wait_ready(page)
    for question in STORE["questions"]:
        page.get_by_label("Question", exact=True).select_option(question["id"])
        wait_answered(page)
        cut = page.evaluate(CUT)
        assert cut == [], (question["id"], cut)
        assert page.evaluate(TOUCHING) == [], question["id"]
    select = page.get_by_label("Question", exact=True)
    expect(select).to_contain_text(STORE["questions"][-1]["text"])
    shortcuts = page.locator(".shortcuts")
    if size[0] < 1024:  # a touch screen (harness.devices)
        expect(shortcuts).to_be_hidden()
    else:
        expect(shortcuts).to_be_visible()

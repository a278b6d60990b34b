"""Your own question in Chromium: linked or typed, it shows CPython's result and how the
question was read; the inspection replays once typing pauses or is committed, never with
reduced motion; the guide 'Ask it your way'; the keyboard alone, 375 px, axe; and text
that looks like markup stays text everywhere it is shown."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from engine.scorers import SCORER_IDS, SCORER_NAMES, SCORERS_BY_ID
from harness.accessibility import assert_focus_visible, describe, run_axe, tab_to, with_axe
from harness.controls import full_policy, query_of, shows_policy
from harness.devices import OVERFLOW, device
from harness.fixtures import STORE, SUPPORT_STORE, load_json
from harness.page import (
    READY_TIMEOUT_MS,
    assert_matches_engine,
    assert_page_matches_cpython,
    open_store,
    open_with_paused_clock,
    rows_on_page,
    stage_is,
    tray_on_page,
    wait_answered,
    wait_ready,
)

OWN = "Where do we deploy production, not Frankfurt?"


def question_box(page: Page) -> Any:
    return page.get_by_label("Your question", exact=True)


def choose_own(page: Page) -> None:
    page.get_by_label("Question", exact=True).select_option(label="Your own question")
    expect(question_box(page)).to_be_visible()


def reading_of(page: Page) -> str:
    return " ".join(page.locator("#question-reading").inner_text().split())


def test_a_link_with_question_text_reproduces_it(page: Page, site_url: str) -> None:
    """The box holds the text, the Question control shows its option, the numbers are CPython's."""
    policy = full_policy({"question_text": OWN, "store": "all", "previous_sessions": True})
    page.goto(f"{site_url}?{query_of(policy)}")
    wait_ready(page)
    expect(page.locator("#notices")).to_be_hidden()
    expect(question_box(page)).to_have_value(OWN)
    expect(page.get_by_label("Question", exact=True).locator("option:checked")).to_have_text("Your own question")
    shows_policy(page, policy)
    assert_page_matches_cpython(page, policy)
    reading = reading_of(page)
    assert "TF-IDF reads the terms frankfurt, production." in reading
    assert "TF-IDF ignores deploy: in no record." in reading
    assert "TF-IDF drops the stop words where, do, we, not." in reading
    expect(page.locator("#question-line")).to_have_text(f"Question: {OWN} (your own)")
    coverage = page.get_by_role("region", name="Selected context").locator(".coverage")
    expect(coverage).to_contain_text("Your own question has no declared supporting facts")
    expect(coverage).not_to_contain_text("0 of 0")


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("question_text=" + "x" * 201, "question_text=“xxx"),
        ("question_text=%E0%A4%A", "question_text is not validly encoded text"),
        ("question_text=a&question_text=b", "gives question_text 2 times"),
    ],
)
def test_a_bad_question_text_in_a_link_falls_back_with_a_notice(
    page: Page, site_url: str, query: str, named: str
) -> None:
    page.goto(f"{site_url}?{query}&budget_words=9")
    wait_ready(page)
    expect(page.locator("#notices")).to_contain_text(named)
    expect(page.locator("#notices")).to_contain_text("using the default (empty)")
    expect(question_box(page)).to_be_hidden()
    expect(question_box(page)).to_have_value("")
    shows_policy(page, {"budget_words": 9})


def test_typing_follows_live_and_replays_the_inspection_once_on_pause_or_enter(page: Page, site_url: str) -> None:
    page = open_with_paused_clock(page, site_url)
    choose_own(page)  # the chosen question stays in force until something is typed
    expect(page.locator("#experiment")).not_to_have_attribute("data-asked-policy", re.compile("."))
    question_box(page).press_sequentially("pending review")
    wait_answered(page)
    shows_policy(page, {"question_text": "pending review"})
    assert tray_on_page(page) == ["M10"]
    stage_is(page, 4)  # every keystroke answered, the inspection left alone
    expect(page.locator("#question-reading")).to_contain_text("TF-IDF reads the terms pending, review.")
    page.clock.run_for(500)
    stage_is(page, 4)
    page.clock.run_for(200)  # 600 ms after the last keystroke
    stage_is(page, 1)
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.clock.run_for(9_700)
    stage_is(page, 1)
    page.clock.run_for(300)  # one replay: stage 2 comes 10 s after it
    stage_is(page, 2)
    question_box(page).press("Enter")  # nothing typed since: nothing to replay
    stage_is(page, 2)

    question_box(page).press_sequentially(" lead")
    wait_answered(page)
    stage_is(page, 2)
    question_box(page).press("Enter")  # a commit replays at once
    stage_is(page, 1)
    page.clock.run_for(9_900)
    stage_is(page, 1)
    page.clock.run_for(200)  # the pause timer of the committed text did not replay it again
    stage_is(page, 2)

    question_box(page).press_sequentially("s")
    wait_answered(page)
    page.get_by_label("Active tenant", exact=True).focus()  # leaving the box commits too
    stage_is(page, 1)
    expect(page.get_by_role("button", name="Pause")).to_be_visible()

    # Choosing a fixed question clears the text: the chosen question is in force again.
    page.get_by_label("Question", exact=True).select_option("timeout-incident")
    wait_answered(page)
    expect(question_box(page)).to_be_hidden()
    expect(question_box(page)).to_have_value("")
    shows_policy(page, {"question": "timeout-incident"})
    assert "question_text" not in parse_qs(urlsplit(page.url).query)


def test_an_own_question_over_a_store_the_learner_opened_survives_a_reload(page: Page, site_url: str) -> None:
    """The store's own vocabulary scores the text; the reload keeps both the store and the text."""
    support = load_json(SUPPORT_STORE)
    page.goto(site_url)
    wait_ready(page)
    open_store(page, "support-store.json", support)
    expect(page.locator("#store-title")).to_have_text(support["title"])
    wait_answered(page)
    choose_own(page)
    text = "How long do refunds take?"
    question_box(page).fill(text)
    wait_answered(page)
    assert_matches_engine(page, support, {"question_text": text})
    page.reload()
    wait_ready(page)
    expect(question_box(page)).to_have_value(text)
    expect(page.get_by_label("Question", exact=True).locator("option:checked")).to_have_text("Your own question")
    assert_matches_engine(page, support, {"question_text": text})
    page.get_by_label("Active tenant", exact=True).select_option(support["tenants"][1]["id"])
    wait_answered(page)
    expect(question_box(page)).to_have_value(text)  # another control leaves the text in force
    assert_matches_engine(page, support, {"question_text": text, "tenant": support["tenants"][1]["id"]})


def test_with_reduced_motion_typing_never_plays(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    page = new_context(reduced_motion="reduce").new_page()
    page.goto(site_url)
    wait_ready(page)
    choose_own(page)
    question_box(page).press_sequentially("pending", delay=30)
    wait_answered(page)
    page.wait_for_timeout(800)  # past the typing pause
    question_box(page).press("Enter")
    stage_is(page, 4)
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    expect(page.locator("#clock")).to_have_text("30.0 s of 30 s")


def test_ask_it_your_way_steps_show_what_they_promise(page: Page, site_url: str) -> None:
    """Each step's question is typed into the box for the learner; its look-for statement holds."""
    page = open_with_paused_clock(page, site_url)
    guide = next(g for g in STORE["guides"] if g["id"] == "ask-it-your-way")
    trays = [[], ["M2"], ["M1", "M2"]]
    reads = [
        ["TF-IDF finds no term of the question in any record.", "TF-IDF ignores servers, live: in no record."],
        ["TF-IDF reads the terms region.", "TF-IDF ignores servers, live: in no record."],
        [
            "TF-IDF reads the terms deployment, frankfurt, region.",
            "TF-IDF drops the stop words which, is, our, in, if, not.",
        ],
    ]
    expect(page.locator('[data-guide="ask-it-your-way"] h3')).to_have_text("Ask it your way")
    for index, step in enumerate(guide["steps"]):
        page.locator(f'[data-guide-step="ask-it-your-way:{index}"]').click()
        wait_answered(page)
        # The step opens at the stage it shows, the final one: no replay to wait for.
        stage_is(page, step["shows"]["stage"])
        stage_is(page, 4)
        expect(question_box(page)).to_have_value(step["policy"]["question_text"])
        assert tray_on_page(page) == trays[index], index
        assert_page_matches_cpython(page, full_policy(step["policy"]))
        for phrase in reads[index]:
            assert phrase in reading_of(page), (index, phrase)
    expect(page.locator('#cards [data-record-id="M1"] .card-rank')).to_contain_text("Rank 1 ")


# ------------------------------------------------------------------ keyboard, axe, 375 px


@pytest.fixture
def axe_context(new_context: Callable[..., BrowserContext], axe_source: str) -> Callable[..., BrowserContext]:
    """Contexts with axe and the real timers injected, as test_accessibility.py runs them."""
    return with_axe(new_context, axe_source)


def test_own_question_with_the_keyboard_alone(axe_context: Callable[..., BrowserContext], site_url: str) -> None:
    """Tab to Question, pick Your own question from its list with the arrow keys and Enter, type,
    Enter, then step through. (The Question control is a customizable select, which wraps a long
    question: an arrow key opens its list, the arrows move in it and Enter picks.)"""
    page = open_with_paused_clock(axe_context().new_page(), site_url)
    tab_to(page, "#f-question")
    assert_focus_visible(page)
    page.keyboard.press("ArrowDown")  # opens the list, on the chosen question
    for _ in range(len(STORE["questions"])):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.get_by_label("Question", exact=True).locator("option:checked")).to_have_text("Your own question")
    page.keyboard.press("Tab")
    expect(question_box(page)).to_be_focused()
    assert_focus_visible(page)
    page.keyboard.type("Which region, if not Frankfurt?")
    page.keyboard.press("Enter")
    wait_answered(page)
    stage_is(page, 1)
    tab_to(page, "#next-stage")
    assert_focus_visible(page)
    for stage in (2, 3, 4):
        page.keyboard.press("Space")
        stage_is(page, stage)
    # The arrow keys only moved in the list: the question chosen before is kept behind the text.
    shows_policy(page, {"question": STORE["questions"][0]["id"], "question_text": "Which region, if not Frankfurt?"})
    assert tray_on_page(page) == []  # working context holds no region fact
    expect(page.locator("#question-reading")).to_contain_text("frankfurt, region")
    # Back to a fixed question, by keyboard too.
    tab_to(page, "#f-question")
    page.keyboard.press("Enter")  # opens the list
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_answered(page)
    shows_policy(page, {"question": "deployment-region"})
    expect(question_box(page)).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_own_question_path_has_no_axe_violation(
    axe_context: Callable[..., BrowserContext], site_url: str, scheme: str
) -> None:
    """The box, its hint and error, the reading with an ignored term, honest coverage, a baseline."""
    page = open_with_paused_clock(axe_context(color_scheme=scheme).new_page(), site_url)
    page.get_by_role("button", name="Capture baseline").click()
    choose_own(page)
    question_box(page).fill(OWN)
    wait_answered(page)
    question_box(page).press("Enter")
    page.clock.run_for(30_100)
    stage_is(page, 4)
    expect(page.locator('#question-reading .read-claim[data-kind="ignored"]')).to_have_text(
        "TF-IDF ignores deploy: in no record."
    )
    expect(page.locator("#baseline-comparison")).to_contain_text("question_text")
    violations = run_axe(page)
    assert not violations, f"axe on the own-question path, {scheme} scheme:\n{describe(violations)}"
    # A text over the limit: the rule beside the box, the box marked invalid, nothing asked.
    question_box(page).fill("x" * 201)
    expect(page.locator("#f-question-text-error")).to_have_text("Your question must be at most 200 characters.")
    expect(question_box(page)).to_have_attribute("aria-invalid", "true")
    shows_policy(page, {"question_text": OWN})
    violations = run_axe(page)
    assert not violations, f"axe with the length error shown, {scheme} scheme:\n{describe(violations)}"


def test_own_question_fits_375_px(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """A long question with a long unbroken word: no sideways page scroll, and the box is a touch target."""
    page = new_context(**device(375, 800)).new_page()
    page.goto(site_url)
    wait_ready(page)
    choose_own(page)
    text = "Why " + "unbrokenwordwithoutanyspaces" * 4 + " " + "deployment region frankfurt " * 4
    question_box(page).fill(text[:200])
    wait_answered(page)
    expect(page.locator('#question-reading .read-claim[data-kind="ignored"]')).to_contain_text("in no record")
    found = page.evaluate(OVERFLOW)
    lines = [f"{o['element']}: right edge {o['right']} px, width {o['width']} px" for o in found["offenders"]]
    assert found["scrollWidth"] <= found["innerWidth"] and not lines, "\n".join(lines[:40])
    box = question_box(page).bounding_box()
    assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 375


# ------------------------------------------------------------------ markup stays text

MARKUP = '<img src=x onerror="window.__ran=1"><script>window.__ran=2</script><b>bold</b>'


def test_markup_in_the_question_is_shown_as_text(page: Page, site_url: str) -> None:
    """In the box, the question line, the reading, the baseline, the notebook and the share panel."""
    page.goto(site_url)
    wait_ready(page)
    page.get_by_role("button", name="Capture baseline").click()
    choose_own(page)
    question_box(page).fill(MARKUP)
    wait_answered(page)
    expect(page.locator("#question-text")).to_have_text(MARKUP)
    expect(page.locator('#question-reading .read-claim[data-kind="ignored"]')).to_contain_text("script")
    expect(page.locator("#baseline-comparison")).to_contain_text(MARKUP)
    # Committed, the question's inspection restarts at once (not after the typing pause), so
    # the page does not move under the click that follows.
    question_box(page).press("Enter")
    stage_is(page, 1)
    page.get_by_role("button", name="Add current observation").click()
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value(
        re.compile(re.escape(f"Your own question: {MARKUP}"))
    )
    page.locator("#share summary").click()
    expect(page.locator("#share-link")).to_have_value(re.compile(r"question_text=%3Cimg\+src%3Dx"))
    expect(page.locator("#embed-snippet")).to_have_value(re.compile(r'src="[^"<>]*question_text=%3Cimg'))
    assert page.evaluate("() => window.__ran") is None
    assert page.locator("main img, main script, main b").count() == 0
    page.reload()  # and through the link the address now holds
    wait_ready(page)
    expect(question_box(page)).to_have_value(MARKUP)
    expect(page.locator("#question-text")).to_have_text(MARKUP)
    assert page.evaluate("() => window.__ran") is None
    assert page.locator("main img, main script, main b").count() == 0


# ------------------------------------------------------------------ a negation, where it bites

NEGATED = "which incidents were not about the database"


def read_claim(page: Page, kind: str, scorer: str) -> Any:
    return page.locator(f'#question-reading .read-claim[data-kind="{kind}"][data-scorer="{scorer}"]')


def test_a_negation_is_said_where_it_bites_under_every_scorer(page: Page, site_url: str) -> None:
    """Typed under each scorer, the question ranks the database incident first; the reading says
    what each scorer in force did with "not", with the numbers the table and the breakdown show,
    and the lexical scores are those of the question without "not", as it says."""
    page.goto(f"{site_url}?store=all&previous_sessions=true")
    wait_ready(page)
    choose_own(page)
    question_box(page).fill(NEGATED.replace(" not", ""))
    wait_answered(page)
    without = {r["id"]: (r["cosine"], r["bm25"]) for r in rows_on_page(page)}
    expect(read_claim(page, "negation", "tfidf")).to_have_count(0)
    question_box(page).fill(NEGATED)
    wait_answered(page)
    part_of_not = ""
    for scorer in SCORER_IDS:
        row = SCORERS_BY_ID[scorer]
        page.get_by_label("Scorer", exact=True).select_option(scorer)
        if row.vectors:
            expect(page.locator("html")).to_have_attribute("data-vectors", "ready", timeout=READY_TIMEOUT_MS)
        wait_answered(page)
        rows = rows_on_page(page)
        first = next(r["id"] for r in rows if r["rank"] == 1)
        expect(page.locator(f'#cards [data-record-id="{first}"]')).to_contain_text("database")
        expect(read_claim(page, "negated_first", scorer)).to_contain_text(
            f"{first} ranks first under {row.name} and holds “database” (after “not”)"
        )
        if row.words:
            expect(read_claim(page, "stop_words", row.words)).to_contain_text("not")
            expect(read_claim(page, "negation", row.words)).to_contain_text(
                f"{SCORER_NAMES[row.words]} cannot read a negation: it drops “not” as a stop word, "
                "so it scores the question exactly as without it."
            )
            # As the sentence says: the lexical scores are the question's without "not".
            assert {r["id"]: (r["cosine"], r["bm25"]) for r in rows} == without
        else:
            expect(read_claim(page, "negation", "tfidf")).to_have_count(0)
            expect(read_claim(page, "negation", "bm25")).to_have_count(0)
        if row.pieces:
            similarity = page.locator(f'#records-body tr[data-record-id="{first}"]').get_attribute("data-similarity")
            assert similarity
            if not part_of_not:  # the breakdown splits the similarity under the embedding alone
                expect(page.locator("#records-body tr.chosen")).to_have_attribute("data-record-id", first)
                cell = page.locator('#score-breakdown tr.contribution[data-token="not"]')
                part_of_not = f"{float(cell.get_attribute('data-contribution') or 'nan'):.3f}"
            expect(read_claim(page, "negation", "embedding")).to_contain_text(
                f"it averages “not” into the question's vector like any other piece, as meaning to match, "
                f"not as a word that excludes; its part of {first}'s similarity {float(similarity):.3f} "
                f"(ranked first under {row.name}) is {part_of_not}."
            )
        else:
            expect(read_claim(page, "negation", "embedding")).to_have_count(0)

"""BM25 beside TF-IDF in Chromium: the scorer control and its two fields, both ranks on
every row, BM25's per-term breakdown, both breakdowns inside their panel at 1280 px, and
the guide "Two ways to count words" holding its golden cases."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, Page, expect

from engine.shapes import BM25Part
from harness.controls import full_policy, query_of, shows_policy
from harness.fixtures import FIXTURES, GOLDEN_FILES, load_json
from harness.page import assert_page_matches_cpython, shared_ready_page, wait_answered, wait_ready
from harness.results import result_of

STORE = load_json(FIXTURES / "store.json")
GUIDE = next(g for g in STORE["guides"] if g["id"] == "two-ways-to-count-words")


@pytest.fixture(scope="module")
def bm25_page(browser: Browser, site_url: str) -> Iterator[Page]:
    with shared_ready_page(browser, site_url, viewport={"width": 1280, "height": 900}) as page:
        yield page


def scorer_control(page: Page) -> Any:
    return page.get_by_label("Scorer", exact=True)


def rank_line(page: Page, record_id: str) -> Any:
    return page.locator(f'#records-body tr[data-record-id="{record_id}"] .rank-line')


def apply_step(page: Page, index: int) -> None:
    page.locator(f'[data-guide-step="two-ways-to-count-words:{index}"]').click()
    wait_answered(page)


def fits_its_panel(page: Page) -> None:
    """Nothing in the score panel is wider than the panel: no sideways scrolling."""
    widths = page.locator("#score-breakdown").evaluate(
        """b => ({panel: b.clientWidth, content: b.scrollWidth,
                  widest: Math.max(...[...b.querySelectorAll('*')].map(e => e.getBoundingClientRect().right))
                          - b.getBoundingClientRect().left})"""
    )
    assert widths["content"] <= widths["panel"] and widths["widest"] <= widths["panel"] + 1, widths


def test_choosing_bm25_shows_its_fields_and_every_rank_under_both_scorers(bm25_page: Page) -> None:
    page = bm25_page
    k1, b = page.get_by_label("BM25 k1", exact=True), page.get_by_label("BM25 b", exact=True)
    expect(k1).to_be_hidden()
    expect(b).to_be_hidden()
    expect(page.locator("#records-head")).to_contain_text("Score (TF-IDF + recency)")
    scorer_control(page).select_option("bm25")
    wait_answered(page)
    expect(k1).to_be_visible()
    expect(k1).to_have_value("1.2")
    expect(b).to_have_value("0.75")
    expect(page.locator("#records-head")).to_contain_text("Score (BM25 + recency)")
    shows_policy(page, full_policy({"scorer": "bm25"}))
    assert_page_matches_cpython(page, full_policy({"scorer": "bm25"}))
    # The guide's second step: M3 and M10 trade places, and each row says so.
    step = GUIDE["steps"][1]["policy"]
    apply_step(page, 1)
    assert_page_matches_cpython(page, full_policy(step))
    expect(rank_line(page, "M3")).to_have_text("rank 2 (TF-IDF: 3) ▲, higher than under TF-IDF")
    expect(rank_line(page, "M10")).to_have_text("rank 3 (TF-IDF: 2) ▼, lower than under TF-IDF")
    expect(rank_line(page, "M5")).to_have_text("rank 1 (TF-IDF: 1)")
    expect(rank_line(page, "M4")).to_have_text("not ranked")
    expect(page.locator('#cards [data-record-id="M3"] .card-rank')).to_contain_text("Rank 2 (TF-IDF: 3)")
    b.fill("1")
    wait_answered(page)
    assert_page_matches_cpython(page, full_policy(step | {"bm25_b": 1}))
    scorer_control(page).select_option("tfidf")
    wait_answered(page)
    expect(k1).to_be_hidden()
    expect(rank_line(page, "M10")).to_have_text("rank 2 (BM25: 3) ▲, higher than under BM25")
    # Hidden, b kept its value: BM25 comes back as it was left.
    scorer_control(page).select_option("bm25")
    wait_answered(page)
    expect(b).to_have_value("1")


def test_the_breakdown_shows_bm25_parts_that_sum_to_the_score(bm25_page: Page) -> None:
    page = bm25_page
    policy = full_policy(GUIDE["steps"][1]["policy"])
    apply_step(page, 1)
    page.locator('[data-choose="M5"]').click()
    m5 = next(r for r in result_of({"store": STORE, "policy": policy})["records"] if r["id"] == "M5")
    breakdown = page.locator("#score-breakdown")
    expect(breakdown.locator("h3")).to_have_text(
        f"M5: BM25 {m5['bm25']:.3f}, relative {m5['relevance']:.3f}, score {m5['score']:.3f}"
    )
    contributions = breakdown.locator("table.terms tbody tr.contribution td:last-child").all_inner_texts()
    assert len(contributions) == len(m5["terms"]) == 2
    assert math.isclose(sum(float(c) for c in contributions), m5["bm25"], abs_tol=2e-4)
    parts = cast(list[BM25Part], m5["terms"])  # the policy's scorer is BM25
    for part in parts:
        group = breakdown.locator("tbody", has=page.locator(".term-head", has_text=part["term"]))
        expect(group.locator("tr", has_text="idf").locator("td")).to_have_text(f"{part['idf']:.4f}")
        expect(group.locator("tr", has_text="Length factor").locator("td")).to_have_text(f"{part['length_factor']:.4f}")
    # M5's nine terms: ticket, inc, 42, checkout, timeout, incident, reopened, today, deployment.
    assert parts[0]["record_length"] == 9
    expect(breakdown).to_contain_text(
        "Length factor = 1 − b + b × length / average length = 1 − 0.75 + 0.75 × 9 / 9.8000 = 0.9388"
    )
    expect(breakdown).to_contain_text(f"Relative BM25 = {m5['bm25']:.4f} / {m5['bm25']:.4f}")
    expect(breakdown).to_contain_text(
        f"Its other scores: cosine {m5['cosine']:.4f}. Ranks under the other scorers: TF-IDF: 1."
    )
    expect(page.locator("#chart .chart-legend")).to_contain_text("relative BM25")
    fits_its_panel(page)


def test_both_breakdowns_fit_their_panel_with_a_many_term_question(bm25_page: Page) -> None:
    """Four shared terms, four decimals each: the cosine's parts and BM25's stay in the panel."""
    page = bm25_page
    text = "checkout timeout incident during deployment"
    for scorer in ("tfidf", "bm25"):
        policy = full_policy({"question_text": text, "store": "all", "previous_sessions": True, "scorer": scorer})
        page.goto(f"{page.url.split('?')[0]}?{query_of(policy)}")
        wait_ready(page)
        page.locator('[data-choose="M5"]').click()
        expect(page.locator("#score-breakdown tr.contribution")).to_have_count(4)
        fits_its_panel(page)


def test_the_guide_two_ways_to_count_words_is_held_by_golden_cases() -> None:
    """Every step's policy is a golden case that pins the ranks its Look-for line names."""
    assert GUIDE["title"] == "Two ways to count words" and len(GUIDE["steps"]) == 3
    golden = {str(load_json(path)["policy"]): load_json(path)["expected"] for path in GOLDEN_FILES}
    scorers = set()
    for step in GUIDE["steps"]:
        expected = golden[str(step["policy"])]
        assert expected["ranks"], step["title"]
        scorers.add(step["policy"]["scorer"])
        for record_id, (place, other) in expected["ranks"].items():
            if place != other:
                assert record_id in step["look_for"], (step["title"], record_id)
    assert scorers == {"tfidf", "bm25"}

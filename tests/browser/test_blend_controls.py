"""The blend and diversity controls on the page: the Generative Agents fields shown only with
that blend, its preset button, and the page's numbers against CPython's under both ideas."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from harness.fixtures import AGENT_STORE, load_json
from harness.page import assert_matches_engine, wait_answered, wait_ready

GA_FIELDS = ("Recency decay per hour", "Weight of recency", "Weight of importance", "Weight of relevance")


def test_the_generative_agents_controls_and_their_preset(page: Page, agent_site: str) -> None:
    """Under the seed blend the GA fields are hidden and the recency weight shown; choosing
    Generative Agents swaps them; the preset button sets the published code's 0.5, 2 and 3,
    the address carries them, the breakdown weighs by them and the table shows each record's
    importance; lowering Diversity packs by MMR, a record passed over saying why; the page's
    numbers are CPython's throughout."""
    store = load_json(AGENT_STORE)
    page.goto(f"{agent_site}?question=team-lunch&store=all&previous_sessions=true&max_records=1")
    wait_ready(page)
    for label in GA_FIELDS:
        expect(page.get_by_label(label, exact=True)).to_be_hidden()
    expect(page.get_by_label("Recency weight", exact=True)).to_be_visible()
    page.get_by_label("Score", exact=True).select_option("generative-agents")
    wait_answered(page)
    for label in GA_FIELDS:
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    expect(page.get_by_label("Recency weight", exact=True)).to_be_hidden()
    page.get_by_role("button", name="Use the published code's weights").click()
    wait_answered(page)
    expect(page.get_by_label("Weight of recency", exact=True)).to_have_value("0.5")
    expect(page.get_by_label("Weight of importance", exact=True)).to_have_value("2")
    expect(page.get_by_label("Weight of relevance", exact=True)).to_have_value("3")
    expect(page).to_have_url(re.compile(r"ga_recency_weight=0\.5.*ga_importance_weight=2.*ga_relevance_weight=3"))
    policy = {
        "question": "team-lunch",
        "store": "all",
        "previous_sessions": True,
        "max_records": 1,
        "blend": "generative-agents",
        "ga_recency_weight": 0.5,
        "ga_importance_weight": 2,
        "ga_relevance_weight": 3,
    }
    assert_matches_engine(page, store, policy)
    page.locator("#records-body").get_by_role("button", name="L2", exact=True).click()
    breakdown = page.locator("#score-breakdown")
    expect(breakdown.locator(".ga-terms li")).to_have_count(3)
    expect(breakdown).to_contain_text("Score = 0.5 × 0.5000 + 2 × 1.0000 + 3 × 0.5164 = 3.7991")
    expect(page.locator('#records-body tr[data-record-id="L2"] .row-meta')).to_contain_text("importance 9")
    page.get_by_label("Question", exact=True).select_option("backup-failure")
    wait_answered(page)
    page.get_by_label("Score", exact=True).select_option("seed")
    wait_answered(page)
    page.get_by_label("Maximum retrieved records", exact=True).fill("2")
    wait_answered(page)
    page.get_by_label("Diversity (MMR λ)", exact=True).fill("0.5")
    wait_answered(page)
    row = page.locator('#records-body tr[data-record-id="A2"]')
    expect(row).to_have_attribute("data-outcome", "too_similar")
    expect(row).to_contain_text("1.000 alike to A1, already in the tray")
    assert_matches_engine(
        page,
        store,
        {"question": "backup-failure", "store": "all", "previous_sessions": True, "max_records": 2, "mmr_lambda": 0.5},
    )

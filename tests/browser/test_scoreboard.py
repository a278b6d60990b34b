"""The scoreboard panel on the built site: its means and cells are CPython's evaluation, for
the default store and a store the learner opens, it follows the controls, a picked cell
applies its question and scorer, and it is photographed at 375 and 1280 px."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from engine import api
from harness import ROOT
from harness.controls import full_policy, query_of, set_policy
from harness.fixtures import STORE, SUPPORT_STORE, load_json
from harness.page import open_store, wait_answered

WIDE = {"store": "all", "previous_sessions": True, "max_age_hours": 100000, "recency_weight": 0.5}
SHOTS = ROOT / "test-output" / "screenshots"


def measure(page: Page) -> None:
    page.get_by_role("button", name="Measure every question").click()
    expect(page.locator("#scoreboard-sweep svg")).to_be_visible(timeout=120_000)


def means_on_page(page: Page) -> dict[str, list[str]]:
    rows = page.locator("#scoreboard-means tbody tr")
    return {
        row.get_attribute("data-scorer") or "": [cell.inner_text().strip() for cell in row.locator("td").all()]
        for row in rows.all()
    }


def expected_means(store: Any, policy: dict[str, Any]) -> dict[str, list[str]]:
    """The engine's means as the table writes them: three places, 'best' after the best."""
    result = api.evaluate({"store": store, "policy": policy})
    assert "error" not in result
    return {
        scorer: [
            f"{means[name]:.3f}" + (" best" if scorer in result["best"][name] else "")  # type: ignore[index, literal-required]
            for name in result["measure_names"]
        ]
        for scorer, means in result["means"].items()
    }


def test_the_scoreboard_is_cpythons_evaluation_and_follows_the_controls(page: Page, site_url: str) -> None:
    page.goto(f"{site_url}?{query_of(full_policy(WIDE))}")
    wait_answered(page)
    measure(page)
    expect(page.locator("#scoreboard-means")).to_contain_text("Mean over 4 questions")
    assert means_on_page(page) == expected_means(STORE, full_policy(WIDE))
    cells = page.locator("#scoreboard-grid button.scoreboard-cell")
    expect(cells).to_have_count(16)
    expect(page.locator('button[data-question="rollback-steps"][data-scorer="embedding"]')).to_have_text(
        "first at 4; 0 of 1 in top 3"
    )
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#scoreboard").screenshot(path=str(SHOTS / f"scoreboard-{width}.png"))

    changed = {**WIDE, "recency_weight": 0.0, "max_records": 2}
    set_policy(page, changed)
    expect(page.locator("#scoreboard-means")).to_contain_text("k = 2")
    assert means_on_page(page) == expected_means(STORE, full_policy(changed))

    page.locator('button[data-question="timeout-incident"][data-scorer="hybrid"]').click()
    wait_answered(page)
    expect(page.locator("#f-question")).to_have_value("timeout-incident")
    expect(page.locator("#f-scorer")).to_have_value("hybrid")


def test_a_store_the_learner_opens_is_measured_too(page: Page, site_url: str) -> None:
    """The support store opened through the file control, at the default settings: its four
    questions, and CPython's means for that store."""
    support = load_json(SUPPORT_STORE)
    page.goto(site_url)
    wait_answered(page)
    open_store(page, "support.json", support)
    expect(page.locator("#f-question")).to_have_value(support["questions"][0]["id"])
    wait_answered(page)
    measure(page)
    expect(page.locator("#scoreboard-grid")).to_contain_text("refund-window")
    expect(page.locator("#scoreboard-grid button.scoreboard-cell")).to_have_count(16)
    assert means_on_page(page) == expected_means(support, {})

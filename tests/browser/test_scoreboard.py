"""The scoreboard panel on the built site: its means and cells are CPython's evaluation, for
the default store and a store the learner opens, it follows the controls, a picked cell
applies its question and scorer, it is kept in the notebook and reopened by its link, and it
is photographed at 375 and 1280 px."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import BrowserContext, Page, expect

from engine import api
from harness import ROOT
from harness.controls import full_policy, query_of, set_policy, shows_policy
from harness.fixtures import STORE, SUPPORT_STORE, load_json
from harness.page import open_store, wait_answered, wait_ready

WIDE = {"store": "all", "previous_sessions": True, "max_age_hours": 100000, "recency_weight": 0.5}
SHOTS = ROOT / "test-output" / "screenshots"


def measure(page: Page) -> None:
    page.get_by_role("button", name="Measure every question").click()
    expect(page.locator("#scoreboard-sweep svg")).to_be_visible(timeout=120_000)


def means_on_page(page: Page) -> dict[str, list[str]]:
    rows = page.locator("#scoreboard-means tbody tr")
    return {
        # On a phone "best" stands under its number: the words, not the line break, are compared.
        row.get_attribute("data-scorer") or "": [
            " ".join(cell.inner_text().split()) for cell in row.locator("td").all()
        ]
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
        "first at 4; 0 of 1 in top 3", use_inner_text=True
    )
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#scoreboard").screenshot(path=str(SHOTS / f"scoreboard-{width}.png"))
        page.locator("#scoreboard-sweep").screenshot(path=str(SHOTS / f"scoreboard-chart-{width}.png"))
        # Nothing of the scoreboard scrolls sideways, at either width.
        for region in ("#scoreboard-means", "#scoreboard-grid", "#scoreboard-sweep"):
            box = page.locator(region)
            assert box.evaluate("(e) => e.scrollWidth <= e.clientWidth"), f"{region} scrolls sideways at {width} px"

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


def test_a_scoreboard_kept_in_the_notebook_and_its_link_reopen_it_measured(
    context: BrowserContext, site_url: str, tmp_path: Path
) -> None:
    """Keep in notebook adds the policy and CPython's means after the learner's notes, saved
    and exported; the address, once measured, and the kept link carry scoreboard=1, and
    opening either shows the scoreboard measured for those settings without a press."""
    policy = full_policy({**WIDE, "latest_per_key": False, "max_age_hours": 500})
    page = context.new_page()
    page.goto(f"{site_url}?{query_of(policy)}")
    wait_answered(page)
    expect(page.get_by_role("button", name="Keep in notebook")).to_be_hidden()
    notebook = page.get_by_role("textbox", name="Notebook")
    notebook.fill("Guess: hybrid wins everywhere.")
    measure(page)
    expect(page).to_have_url(re.compile(r"[?&]scoreboard=1(&|$)"))
    page.get_by_role("button", name="Keep in notebook").click()
    expect(page.locator("#scoreboard-kept")).to_contain_text("Kept in the notebook")
    text = notebook.input_value()
    assert text.startswith("Guess: hybrid wins everywhere.\n\n### Scoreboard ")
    result = api.evaluate({"store": STORE, "policy": policy})
    assert "error" not in result
    for scorer, means in result["means"].items():
        assert means is not None
        names = {"tfidf": "TF-IDF", "bm25": "BM25", "embedding": "Embedding", "hybrid": "Hybrid"}
        cells = [
            f"{means[m]:.3f}" + (" (best)" if scorer in result["best"][m] else "")  # type: ignore[literal-required]
            for m in result["measure_names"]
        ]
        assert f"| {names[scorer]} | {' | '.join(cells)} |" in text
    link = re.search(r"^Link: (\S+)$", text, re.M)
    assert link is not None
    query = parse_qs(urlsplit(link.group(1)).query)
    assert query["scoreboard"] == ["1"] and query["recency_weight"] == ["0.5"] and query["latest_per_key"] == ["false"]

    # Saved: the notebook keeps it across a reload, and exports it with its JSON copy.
    page.reload()
    wait_ready(page)
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value(re.compile(r"### Scoreboard "))
    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    path = tmp_path / "notes.md"
    info.value.save_as(path)
    exported = path.read_text()
    assert "| Scorer | Recall@k | Precision@k | MRR | nDCG@k | Coverage |" in exported
    kept = json.loads(exported.split("## Observations (JSON)\n\n```json\n")[1].split("\n```")[0])
    assert kept[-1]["kind"] == "scoreboard" and kept[-1]["means"] == result["means"]

    # The kept link, opened afresh, measures at once: no button to press.
    fresh = context.new_page()
    fresh.goto(link.group(1))
    wait_ready(fresh)
    shows_policy(fresh, policy)
    expect(fresh.locator("#scoreboard")).to_have_attribute("data-measured-policy", query_of(policy))
    expect(fresh.get_by_role("button", name="Measure every question")).to_be_hidden()
    assert means_on_page(fresh) == expected_means(STORE, policy)

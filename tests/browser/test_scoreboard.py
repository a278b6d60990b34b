"""The scoreboard panel on the built site: its means and cells are CPython's evaluation, for
the default store and a store the learner opens, it follows the controls, a picked cell
applies its question and scorer, the default settings' zeros come with why and the settings
that include the supporting records, the sweep chart is readable at 375 px with its numbers
a click away, it is kept in the notebook and reopened by its link in one click, and it is
photographed at 375 and 1280 px."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from engine import api, parse_policy, parse_store
from engine.evaluate import printed, sweep_over
from engine.fields import OUTCOMES_BY_CODE
from engine.scorers import SCORER_NAMES
from engine.session import Session
from harness import ROOT
from harness.accessibility import describe, run_axe, with_axe
from harness.controls import full_policy, query_of, set_policy, shows_policy
from harness.fixtures import STORE, SUPPORT_STORE, load_json
from harness.page import open_store, wait_answered, wait_ready

WIDE = {"store": "all", "previous_sessions": True, "max_age_hours": 100000, "recency_weight": 0.5}
# Hybrid's mean MRR here is 9/16 exactly: 0.5625, a tie at the third place.
NINE_SIXTEENTHS = {
    "store": "all",
    "previous_sessions": True,
    "max_age_hours": 500,
    "recency_weight": 0.1,
    "latest_per_key": False,
}
SHOTS = ROOT / "test-output" / "screenshots"


def measure(page: Page) -> None:
    page.get_by_role("button", name="Measure every question").click()
    expect(page.locator("#scoreboard-sweep svg.sweep-chart")).to_be_visible(timeout=120_000)


def means_on_page(page: Page) -> dict[str, list[str]]:
    rows = page.locator("#scoreboard-means tbody tr")
    return {
        # On a phone "best" stands under its number: the words, not the line break, are compared.
        row.get_attribute("data-scorer") or "": [
            " ".join(cell.inner_text().split()) for cell in row.locator("td").all()
        ]
        for row in rows.all()
    }


def evaluated(store: Any, policy: dict[str, Any]) -> dict[str, Any]:
    result = api.evaluate({"store": store, "policy": policy})
    assert "error" not in result
    return dict(result)


def expected_means(store: Any, policy: dict[str, Any]) -> dict[str, list[str]]:
    """The engine's means as the table writes them: three places as the command line prints
    them, 'best' after the best."""
    result = evaluated(store, policy)
    return {
        scorer: [
            printed(means[name]) + (" best" if scorer in result["best"][name] else "")
            for name in result["measure_names"]
        ]
        for scorer, means in result["means"].items()
    }


def expected_cell(row: dict[str, Any], k: int) -> str:
    """A grid cell's words from the engine's row: where its first supporting record ranks or,
    none ranked, each supporting record with the outcome that kept it out, then the hits."""
    hits = f"{row['hits']} of {len(row['supporting'])} in top {k}"
    if row["first_rank"] is not None:
        return f"first at {row['first_rank']}; {hits}"
    labels = [OUTCOMES_BY_CODE[row["outcomes"][rid]].label for rid in row["supporting"]]
    assert len(row["supporting"]) == 1, "the default store's questions each have one supporting record"
    return f"{row['supporting'][0]} not ranked ({labels[0]}); {hits}"


def shoot(page: Page, name: str) -> None:
    """The scoreboard and its chart at 1280 and 375 px, where nothing of it scrolls sideways."""
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#scoreboard").screenshot(path=str(SHOTS / f"{name}-{width}.png"))
        page.locator("#scoreboard-sweep").screenshot(path=str(SHOTS / f"{name}-chart-{width}.png"))
        for region in ("#scoreboard-scope", "#scoreboard-means", "#scoreboard-grid", "#scoreboard-sweep"):
            box = page.locator(region)
            assert box.evaluate("(e) => e.scrollWidth <= e.clientWidth"), f"{region} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1280, "height": 900})


def test_the_scoreboard_is_cpythons_evaluation_and_follows_the_controls(page: Page, site_url: str) -> None:
    page.goto(f"{site_url}?{query_of(full_policy(WIDE))}")
    wait_answered(page)
    measure(page)
    expect(page.locator("#scoreboard-means")).to_contain_text("Mean over 4 questions")
    assert means_on_page(page) == expected_means(STORE, full_policy(WIDE))
    cells = page.locator("#scoreboard-grid button.scoreboard-cell")
    expect(cells).to_have_count(16)
    expect(page.locator('button[data-question="rollback-steps"][data-scorer="embedding"]')).to_have_attribute(
        "aria-label", "rollback-steps, Embedding: first at 4; 0 of 1 in top 3"
    )
    expect(page.locator("#scoreboard-scope")).to_be_empty()
    shoot(page, "scoreboard")

    changed = {**WIDE, "recency_weight": 0.0, "max_records": 2}
    set_policy(page, changed)
    expect(page.locator("#scoreboard-means")).to_contain_text("k = 2")
    assert means_on_page(page) == expected_means(STORE, full_policy(changed))

    page.locator('button[data-question="timeout-incident"][data-scorer="hybrid"]').click()
    wait_answered(page)
    expect(page.locator("#f-question")).to_have_value("timeout-incident")
    expect(page.locator("#f-scorer")).to_have_value("hybrid")


def test_the_default_zeros_say_why_and_offer_the_settings_that_include_the_supporting_records(
    page: Page, site_url: str
) -> None:
    """The default page: every mean is 0 and no cell is marked best (every scorer ties, as a
    line says); a note says the engine's why, naming Memory store and Include previous
    sessions; each grid cell names its supporting record as not ranked, with the outcome that
    kept it out. The note's button sets All stores and previous sessions in the controls, and
    the scoreboard measures those settings: the note is gone and the means are CPython's."""
    page.goto(site_url)
    wait_ready(page)
    measure(page)
    result = evaluated(STORE, {})
    note = result["out_of_scope"]
    assert note is not None
    scope = page.locator("#scoreboard-scope")
    expect(scope).to_contain_text(note["why"])
    expect(scope).to_contain_text("left out by Memory store (Working context) and by Include previous sessions (off)")
    assert means_on_page(page) == expected_means(STORE, {})
    expect(page.locator("#scoreboard-means .best-mark")).to_have_count(0)
    expect(page.locator("#scoreboard-means")).to_contain_text(
        "Every scorer ties on every measure, so none is marked best there."
    )
    for row in result["evaluation"]:
        cell = page.locator(f'button[data-question="{row["question"]}"][data-scorer="{row["scorer"]}"]')
        words = expected_cell(row, result["k"])
        expect(cell).to_have_attribute("aria-label", f"{row['question']}, {SCORER_NAMES[row['scorer']]}: {words}")
        expect(cell).to_contain_text(words.split("; ")[0])
    expect(page.locator("#scoreboard-grid")).not_to_contain_text("none ranked")
    shoot(page, "scoreboard-default")

    include = page.get_by_role("button", name=f"Include them: {note['include_text']}")
    include.click()
    applied = {**note["include"]}
    expect(page.locator("#f-store")).to_have_value("all")
    expect(page.get_by_label("Include previous sessions", exact=True)).to_be_checked()
    shows_policy(page, applied)
    expect(page.locator("#scoreboard")).to_have_attribute("data-measured-policy", query_of(full_policy(applied)))
    expect(scope).to_be_empty()
    assert means_on_page(page) == expected_means(STORE, applied)


def test_the_sweep_chart_reads_at_375_px_and_shows_its_numbers(page: Page, site_url: str) -> None:
    """At 375 px: every label of the chart is drawn at least 12 px high, both axes are titled,
    the recency weight in force (0.5) is marked halfway along the weight axis, each scorer's
    points carry a mark of its own shape, the stretches where lines lie on each other are
    listed as CPython's sweep has them equal, and Show the numbers opens a table of CPython's
    numbers, the row in force marked; MMR's λ chosen instead is swept and named."""
    page.set_viewport_size({"width": 375, "height": 667})
    page.goto(f"{site_url}?{query_of(full_policy(WIDE))}")
    wait_ready(page)
    wait_answered(page)
    measure(page)
    chart = page.locator("#scoreboard-sweep svg.sweep-chart")
    sizes = chart.evaluate(
        """(svg) => {
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          return [...svg.querySelectorAll("text")].map((t) => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale]);
        }"""
    )
    assert sizes and all(size >= 12 for _, size in sizes), sizes
    expect(chart.locator("text.axis-title", has_text="Recency weight")).to_be_visible()
    expect(chart.locator("text.axis-title", has_text="Mean nDCG@3")).to_be_visible()
    now = chart.locator(".sweep-now")
    expect(now).to_have_attribute("data-weight", "0.5")
    expect(now).to_contain_text("0.5")
    ticks = {
        text: box["x"] + box["width"] / 2
        for text, box in chart.evaluate(
            """(svg) => [...svg.querySelectorAll('text.tick-label[text-anchor="middle"]')].map((t) => [t.textContent, t.getBoundingClientRect().toJSON()])"""
        )
    }
    line = now.locator("line").bounding_box()
    assert line is not None and abs(line["x"] + line["width"] / 2 - (ticks["0"] + ticks["1"]) / 2) < 1.5

    session = Session(parse_store(STORE), vectors=api.load_vectors)
    sweep = sweep_over(session, parse_policy(full_policy(WIDE), session.store))
    scorers = list(sweep["points"][0]["ndcg"])
    shapes = [chart.locator(f'path.sweep-mark[data-scorer="{s}"]').get_attribute("data-shape") for s in scorers]
    assert len(set(shapes)) == len(scorers)
    # Embedding and Hybrid are equal from 0.6 to 1, as the issue saw them hide each other.
    equal = [p["value"] for p in sweep["points"] if p["ndcg"]["embedding"] == p["ndcg"]["hybrid"]]
    assert equal[-5:] == [0.6, 0.7, 0.8, 0.9, 1.0]
    ties = page.locator("#scoreboard-sweep .sweep-ties li")
    expect(ties.filter(has_text=re.compile(r"^Embedding and Hybrid: .*0\.6 to 1$"))).to_have_count(1)
    for item in ties.all_inner_texts():
        names, stretches = item.split(": ")
        group = [s for s in scorers if SCORER_NAMES[s] in names.replace(" and ", ", ").split(", ")]
        for stretch in stretches.removeprefix("at ").split(" and "):
            low, _, high = stretch.partition(" to ")
            for point in sweep["points"]:
                if float(low) <= point["value"] <= float(high or low):
                    values = {point["ndcg"][s] for s in group}
                    others = {point["ndcg"][s] for s in scorers if s not in group}
                    assert len(values) == 1 and not values & others, (item, point)

    table = page.locator("#scoreboard-sweep-table table")
    expect(table).to_be_hidden()
    page.get_by_text("Show the numbers").click()
    expect(table).to_be_visible()
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(sweep["points"]))
    for row, point in zip(rows.all(), sweep["points"], strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells == [printed(point["ndcg"][s]) for s in scorers]  # type: ignore[arg-type]
    expect(table.locator("tr.sweep-current th")).to_have_text("0.5 (set now)")
    assert page.locator("#scoreboard").evaluate("(e) => e.scrollWidth <= e.clientWidth")

    # MMR's λ chosen beside the chart: swept afresh, named, its points CPython's sweep of λ.
    page.get_by_label("Sweep", exact=True).select_option(label="Diversity (MMR λ)")
    expect(page.locator("#scoreboard")).to_have_attribute("data-swept-field", "mmr_lambda")
    lam = sweep_over(session, parse_policy(full_policy(WIDE), session.store), "mmr_lambda")
    expect(page.locator("#scoreboard-sweep figcaption")).to_have_text(
        "Mean nDCG@3 of each scorer as the diversity (MMR λ) goes from 0 to 1, the rest of the policy"
        " as set; the dashed line marks the diversity (MMR λ) set now (1)."
    )
    expect(now).to_have_text("Diversity (MMR λ) set now: 1")
    for row, point in zip(rows.all(), lam["points"], strict=True):
        assert row.locator("td").all_inner_texts() == [printed(point["ndcg"][s]) for s in scorers]  # type: ignore[arg-type]


def test_a_mean_of_nine_sixteenths_reads_0_563_as_on_the_command_line(page: Page, site_url: str) -> None:
    """Hybrid's MRR of 0.5625 shows 0.563, rounded half up as by hand and by the command line."""
    assert evaluated(STORE, NINE_SIXTEENTHS)["means"]["hybrid"]["mrr"] == 0.5625
    page.goto(f"{site_url}?{query_of(full_policy(NINE_SIXTEENTHS))}")
    wait_ready(page)
    wait_answered(page)
    measure(page)
    expect(page.locator('#scoreboard-means tr[data-scorer="hybrid"] td').nth(2)).to_have_text("0.563")
    assert means_on_page(page) == expected_means(STORE, NINE_SIXTEENTHS)


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
        cells = [
            printed(means[m]) + (" (best)" if scorer in result["best"][m] else "")  # type: ignore[literal-required]
            for m in result["measure_names"]
        ]
        assert f"| {SCORER_NAMES[scorer]} | {' | '.join(cells)} |" in text
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


def test_a_kept_link_is_one_click_from_the_notebook(page: Page, site_url: str) -> None:
    """A scoreboard kept in the notebook puts a link under it, titled by its heading, to the
    address its text keeps; the learner's own "Link:" to another site is not made a link.
    Changing the controls and then clicking the kept link reopens the settings kept, with
    the scoreboard measured for them."""
    policy = full_policy({**WIDE, "max_records": 2})
    page.goto(f"{site_url}?{query_of(policy)}")
    wait_ready(page)
    wait_answered(page)
    notebook = page.get_by_role("textbox", name="Notebook")
    notebook.fill("Link: https://elsewhere.example/?scoreboard=1")
    kept_links = page.get_by_role("navigation", name="Links kept in the notebook")
    expect(kept_links).to_be_hidden()
    measure(page)
    page.get_by_role("button", name="Keep in notebook").click()
    heading = re.search(r"^### (Scoreboard .+)$", notebook.input_value(), re.M)
    kept = re.search(r"^Link: (\S+)$", notebook.input_value().split("### Scoreboard")[1], re.M)
    assert heading is not None and kept is not None
    opens = kept_links.get_by_role("link", name=heading.group(1))
    expect(opens).to_have_attribute("href", kept.group(1))
    expect(kept_links.get_by_role("link")).to_have_count(1)

    set_policy(page, {**WIDE, "recency_weight": 0.0, "max_records": 4})
    expect(page.locator("#scoreboard-means")).to_contain_text("k = 4")
    opens.click()
    expect(page).to_have_url(kept.group(1))
    wait_ready(page)
    shows_policy(page, policy)
    expect(page.locator("#scoreboard")).to_have_attribute("data-measured-policy", query_of(policy))
    expect(page.locator("#scoreboard-means")).to_contain_text("k = 2")
    assert means_on_page(page) == expected_means(STORE, policy)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_scoreboard_note_chart_numbers_and_kept_links_pass_axe(
    new_context: Callable[..., BrowserContext], axe_source: str, site_url: str, scheme: str
) -> None:
    """axe (WCAG 2.0/2.1 A and AA) finds nothing with the default scoreboard measured: its
    out-of-scope note and button, the chart, the numbers shown, and a kept link."""
    page = with_axe(new_context, axe_source)(color_scheme=scheme).new_page()
    page.goto(site_url)
    wait_ready(page)
    measure(page)
    expect(page.locator("#scoreboard-scope .scoreboard-include")).to_be_visible()
    page.get_by_text("Show the numbers").click()
    page.get_by_role("button", name="Keep in notebook").click()
    expect(page.get_by_role("navigation", name="Links kept in the notebook").get_by_role("link")).to_have_count(1)
    violations = run_axe(page)
    assert not violations, f"axe, {scheme} scheme:\n{describe(violations)}"


def test_a_kept_link_opens_in_another_tab_while_the_notes_live_only_in_this_one(
    context: BrowserContext, site_url: str
) -> None:
    """Browser storage full: the notes cannot be saved, so the kept link opens a new tab,
    measured there, and this tab keeps the notes."""
    context.add_init_script(
        "Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); };"
    )
    policy = full_policy(WIDE)
    page = context.new_page()
    page.goto(f"{site_url}?{query_of(policy)}")
    wait_ready(page)
    measure(page)
    page.get_by_role("button", name="Keep in notebook").click()
    expect(page.locator("#storage-warning")).to_contain_text("storage is full")
    opens = page.get_by_role("navigation", name="Links kept in the notebook").get_by_role("link")
    expect(opens).to_have_attribute("target", "_blank")
    with context.expect_page() as opened:
        opens.click()
    other = opened.value
    wait_ready(other)
    expect(other.locator("#scoreboard")).to_have_attribute("data-measured-policy", query_of(policy), timeout=120_000)
    expect(page.get_by_role("textbox", name="Notebook")).to_have_value(re.compile(r"### Scoreboard "))

"""The page under the static embedding and hybrid scorers: the vectors fetched once, when first
needed, with progress; the page's numbers equal CPython's; the breakdown and the map; offline
once loaded; a failed download said plainly, with Retry, the other scorers still working.

Screenshots of the embedding's breakdown and map go to test-output/screenshots/.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from engine.fields import EMBEDDING_SCORERS
from harness import ROOT
from harness.accessibility import describe, run_axe, with_axe
from harness.compare import assert_same_result
from harness.controls import full_policy, query_of, set_policy
from harness.emulation import MBIT, emulate_network
from harness.fixtures import GOLDEN_FILES, STORE, load_json
from harness.generate import random_policy
from harness.page import (
    READY_TIMEOUT_MS,
    assert_page_matches_cpython,
    shared_ready_page,
    tray_on_page,
    wait_offline_ready,
    wait_ready,
)
from harness.results import result_of
from harness.servers import PagesServer

SCREENSHOTS = ROOT / "test-output" / "screenshots"
VECTORS = "**/embedding/*.rwse"
VECTOR_BYTES = (ROOT / "embedding" / "minilm-static.rwse").stat().st_size
MEANING_CASES = [path for path in GOLDEN_FILES if load_json(path)["policy"].get("scorer") in EMBEDDING_SCORERS]
SERVERS = {
    "question_text": "Where do our servers live?",
    "store": "semantic",
    "previous_sessions": True,
    "scorer": "embedding",
}
# A row's numbers as the page writes them (views/records.js), and the same keys of CPython's records.
ROW_KEYS = ("id", "outcome", "cosine", "bm25", "similarity", "rrf", "score", "rank", "other_rank", "ranks")


def cpython(policy: dict[str, Any]) -> Any:
    """CPython's full result for the default store, read as JSON data."""
    return result_of({"store": STORE, "policy": policy})


def vectors_are(page: Page, state: str) -> None:
    expect(page.locator("html")).to_have_attribute("data-vectors", state, timeout=READY_TIMEOUT_MS)


def scorer_control(page: Page) -> Any:
    return page.get_by_label("Scorer", exact=True)


def meaning_rows(page: Page) -> list[dict[str, Any]]:
    """Every row's numbers under a scorer that reads the vectors, as the page holds them."""
    rows: list[dict[str, Any]] = page.locator("#records-body tr").evaluate_all(
        """rows => rows.map(r => {
             const number = (text) => (text === "" ? null : Number(text));
             return {id: r.dataset.recordId, outcome: r.dataset.outcome, cosine: Number(r.dataset.cosine),
                     bm25: Number(r.dataset.bm25), similarity: number(r.dataset.similarity),
                     rrf: number(r.dataset.rrf), score: number(r.dataset.score), rank: number(r.dataset.rank),
                     other_rank: number(r.dataset.otherRank), ranks: JSON.parse(r.dataset.ranks)};
           })"""
    )
    return rows


def assert_meaning_matches_cpython(page: Page, policy: dict[str, Any]) -> Any:
    """Every row's numbers and ranks, the tray, and the chosen record's parts equal CPython's."""
    expected = cpython(policy)
    assert_page_matches_cpython(page, policy)
    assert_same_result(meaning_rows(page), [{key: r[key] for key in ROW_KEYS} for r in expected["records"]])
    chosen = page.locator("#records-body tr.chosen").get_attribute("data-record-id")
    want = next(r for r in expected["records"] if r["id"] == chosen)
    if policy["scorer"] == "embedding":
        parts = page.locator("#score-breakdown tr.contribution").evaluate_all(
            "rows => rows.map(r => ({token: r.dataset.token, contribution: Number(r.dataset.contribution)}))"
        )
        assert_same_result(parts, [{"token": t["token"], "contribution": t["contribution"]} for t in want["terms"]])
    else:
        parts = page.locator("#score-breakdown .fusion-parts tr[data-scorer]").evaluate_all(
            """rows => rows.map(r => ({scorer: r.dataset.scorer, rank: Number(r.dataset.rank),
                                      contribution: Number(r.dataset.contribution)}))"""
        )
        assert_same_result(parts, [{k: t[k] for k in ("scorer", "rank", "contribution")} for t in want["terms"]])
    return expected


@pytest.fixture(scope="module")
def meaning_page(browser: Browser, site_url: str) -> Iterator[Page]:
    """One ready page with the vectors loaded, for the comparisons (Python boots once)."""
    with shared_ready_page(browser, site_url, viewport={"width": 1280, "height": 900}) as page:
        scorer_control(page).select_option("embedding")
        vectors_are(page, "ready")
        yield page


def test_picking_the_embedding_fetches_the_vectors_once_with_progress(
    new_context: Callable[..., BrowserContext], built_site: Path
) -> None:
    """Nothing of the vectors is fetched until the embedding is picked; then one request, its
    progress shown in a labelled bar with the bytes while the link is slow, and no second
    request for any later change, hybrid included."""
    with PagesServer(built_site) as server:
        # No service worker: this counts the page's own requests.
        context = new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
        page = context.new_page()
        page.goto(server.url)
        wait_ready(page)
        page.wait_for_timeout(500)
        assert not [s for s in server.take_log() if s.path.endswith(".rwse")], "fetched before it was needed"
        expect(page.locator("#vectors")).to_be_hidden()

        emulate_network(
            context.new_cdp_session(page),
            {"latency": 20, "downloadThroughput": 16 * MBIT, "uploadThroughput": 16 * MBIT},
        )
        scorer_control(page).select_option("embedding")
        bar = page.get_by_role("progressbar", name=re.compile(r"^Embedding vectors \(8\.\d MB\)$"))
        expect(bar).to_be_visible()
        page.wait_for_function(
            "() => { const bar = document.getElementById('vectors-progress'); return bar.value > 0 && bar.value < bar.max; }"
        )
        expect(page.locator("#vectors-bytes")).to_have_text(re.compile(r"^\d+\.\d MB of 8\.\d MB$"))
        expect(page.get_by_role("status").filter(has_text="Downloading the embedding vectors")).to_be_attached()
        vectors_are(page, "ready")
        expect(bar).to_be_hidden()
        expect(page.locator("#vectors-status")).to_have_text(
            re.compile(r"^Embedding vectors loaded: 29,528 word pieces of \d+ dimensions each\.")
        )
        # Without a service worker, the line says they are not kept for offline use.
        expect(page.locator("#vectors-status")).to_contain_text("not kept for offline use", timeout=15_000)
        expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "", timeout=10_000)
        assert_meaning_matches_cpython(page, full_policy({"scorer": "embedding"}))

        # Their settings are shown with the scorers that use them: the minimum with both, k with hybrid.
        minimum, k = page.get_by_label("Minimum similarity", exact=True), page.get_by_label("RRF k", exact=True)
        expect(minimum).to_be_visible()
        expect(k).to_be_hidden()
        for change in ({"scorer": "hybrid"}, SERVERS, {"scorer": "tfidf"}, {**SERVERS, "scorer": "hybrid"}):
            set_policy(page, change)
            expect(minimum).to_be_visible(visible=change["scorer"] != "tfidf")
            expect(k).to_be_visible(visible=change["scorer"] == "hybrid")
        fetched = [s for s in server.take_log() if s.path.endswith(".rwse")]
        assert [(s.status, s.body_bytes) for s in fetched] == [(200, VECTOR_BYTES)]


@pytest.mark.parametrize("path", MEANING_CASES, ids=lambda p: p.stem)
def test_meaning_golden_cases_equal_cpython(meaning_page: Page, path: Path) -> None:
    """Each golden case of the embedding scorers, set through the controls, shows CPython's
    result: outcomes, scores, similarities, fused sums, every scorer's rank and the chosen
    record's parts."""
    case = load_json(path)
    policy = set_policy(meaning_page, case["policy"])
    assert_meaning_matches_cpython(meaning_page, policy)
    assert tray_on_page(meaning_page) == case["expected"]["selected"]


def test_random_policies_with_the_new_scorers_equal_cpython(meaning_page: Page) -> None:
    """Twenty policies drawn from the field table, each under embedding or hybrid, equal CPython's."""
    rng = random.Random(20261204)
    for _ in range(20):
        drawn = random_policy(STORE, rng, on_steps=True)
        policy = set_policy(meaning_page, {**drawn, "scorer": rng.choice(EMBEDDING_SCORERS)})
        assert_meaning_matches_cpython(meaning_page, policy)


def test_the_breakdown_takes_the_similarity_apart_and_the_map_places_the_question(meaning_page: Page) -> None:
    """Under the embedding: the stage and the table name it, each question token's part with its
    arithmetic, M2's closest tokens and the token's neighbours as CPython gives them, the
    sum, and the map (labelled approximate, with a text alternative). Under hybrid: each
    ranking's 1/(k + rank), the sum and its share of 2/(k + 1)."""
    page = meaning_page
    policy = set_policy(page, SERVERS)
    page.locator('[data-choose="M2"]').click()
    expected = cpython(policy)
    m2 = next(r for r in expected["records"] if r["id"] == "M2")
    question = expected["question"]
    breakdown = page.locator("#score-breakdown")
    expect(breakdown.locator("h3")).to_have_text(f"M2: similarity {m2['similarity']:.3f}, score {m2['score']:.3f}")
    expect(page.locator("#records-head")).to_contain_text("Similarity")
    expect(page.locator("#records-head")).to_contain_text("(Embedding + recency)")
    for part in m2["terms"]:
        dot = part["contribution"] * question["norm"] / part["count"]
        row = breakdown.locator(f'tr.contribution[data-token="{part["token"]}"]')
        expect(row).to_contain_text(f"Contribution = {part['count']} × {dot:.4f} / {question['norm']:.4f}")
        group = breakdown.locator(f'tbody:has(tr.contribution[data-token="{part["token"]}"])')
        closest = ", ".join(f"{n['token']} {n['cosine']:.3f}" for n in part["closest"])
        expect(group.locator("td.near").first).to_have_text(closest)
        asked = next(t for t in question["tokens"] if t["token"] == part["token"])
        neighbours = ", ".join(f"{n['token']} {n['cosine']:.3f}" for n in asked["neighbours"])
        expect(group.locator("td.near").nth(1)).to_have_text(neighbours)
    expect(breakdown.locator("tfoot")).to_contain_text(f"Similarity = sum of contributions{m2['similarity']:.4f}")
    expect(breakdown).to_contain_text(f"Similarity {m2['similarity']:.4f} ≥ the minimum {policy['min_similarity']}")

    chart = page.get_by_role("img", name="Approximate map of meaning")
    expect(chart).to_be_visible()
    description = chart.locator("desc")
    expect(description).to_contain_text("Approximate map")
    # What the map names as most similar is ordered by the exact similarity, not by the picture.
    nearest = sorted(expected["records"], key=lambda r: -r["similarity"])[:3]
    expect(description).to_contain_text(
        "Most similar to the question by the exact similarity, joined to it by lines: "
        + ", ".join(f"{r['id']} {r['similarity']:.3f}" for r in nearest)
    )
    expect(chart.locator("line.map-near")).to_have_count(3)
    expect(chart.locator(".map-record")).to_have_count(len(expected["records"]))
    expect(chart.locator('.map-record.chosen[data-record-id="M2"]')).to_have_count(1)
    expect(chart.locator(".map-question")).to_have_count(1)
    page.locator('[data-jump="3"]').click()
    expect(page.locator("#stage-explainer")).to_contain_text("static-embedding similarity")

    # A section with content-visibility: auto is not painted past the viewport: paint it as a
    # reader scrolling down sees it, so the tall panel comes out whole.
    page.locator("#records").evaluate("(section) => { section.style.contentVisibility = 'visible'; }")
    for width, name in ((1280, "desktop"), (375, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        panel = page.locator(".score-panel")
        panel.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        panel.screenshot(path=str(SCREENSHOTS / f"embedding-breakdown-{name}.png"))
        chart.screenshot(path=str(SCREENSHOTS / f"embedding-map-{name}.png"))
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways at {width} px"
        assert_map_labels_apart(chart, width)
    page.set_viewport_size({"width": 1280, "height": 900})

    hybrid = set_policy(page, {**SERVERS, "scorer": "hybrid", "rrf_k": 60})
    page.locator('[data-choose="M2"]').click()
    want = next(r for r in cpython(hybrid)["records"] if r["id"] == "M2")
    for part in want["terms"]:
        expect(breakdown.locator(f'.fusion-parts tr[data-scorer="{part["scorer"]}"]')).to_contain_text(
            f"1 / (60 + {part['rank']}) = {part['contribution']:.4f}"
        )
    expect(breakdown).to_contain_text(f"= {want['rrf']:.4f} / 0.0328 = {want['relevance']:.4f}")
    expect(page.locator("#records-head")).to_contain_text("RRF")


def assert_map_labels_apart(chart: Locator, width: int) -> None:
    """No two of the map's labels overlap, as the browser draws them (their boxes on screen)."""
    boxes = chart.locator(".map-record text, .map-question text").evaluate_all(
        "els => els.map(e => { const b = e.getBoundingClientRect(); return [e.textContent, b.left, b.top, b.right, b.bottom]; })"
    )
    assert len(boxes) >= 5
    for i, (name, left, top, right, bottom) in enumerate(boxes):
        for other, left2, top2, right2, bottom2 in boxes[i + 1 :]:
            apart = right <= left2 or right2 <= left or bottom <= top2 or bottom2 <= top
            assert apart, f"labels {name} and {other} overlap at {width} px"


def test_the_vectors_work_offline_once_loaded(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """Loaded once online, the vectors are kept by the service worker: the page says so, its
    offline line names them, and with the network off a reload loads them and answers as
    CPython does."""
    context = new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    wait_offline_ready(page)
    expect(page.locator("#offline-status")).to_contain_text("the embedding vectors once a scorer has loaded them")
    set_policy(page, SERVERS)
    vectors_are(page, "ready")
    expect(page.locator("#vectors-status")).to_contain_text("Kept in this browser for offline use.")
    expect(page.locator("#offline-status")).to_have_text(
        "Saved for offline use: this page now works offline too, Python and the embedding vectors included."
    )

    context.set_offline(True)
    page.goto(f"{site_url}?{query_of(full_policy(SERVERS))}")
    wait_ready(page)
    vectors_are(page, "ready")
    expect(page.locator("#vectors-status")).to_contain_text("Kept in this browser for offline use.")
    assert_meaning_matches_cpython(page, full_policy(SERVERS))


def test_offline_before_the_vectors_a_result_never_wears_their_scorers_name(
    new_context: Callable[..., BrowserContext], site_url: str
) -> None:
    """Saved for offline use, then reloaded offline: picking the embedding, whose vectors were
    never downloaded, says where the result is that it cannot be computed and why; the
    controls, the introduction, the address and the share link stay on the scorer the
    figures are for, and nothing says it waits for Python. Online again, the refusal's
    button downloads the vectors and the page scores by the embedding."""
    context = new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    wait_offline_ready(page)
    context.set_offline(True)
    page.reload()
    wait_ready(page)
    scorer_control(page).select_option("embedding")
    vectors_are(page, "failed")
    refusal = page.locator("#refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text(
        "Static embedding (meaning) cannot be computed here: its vectors could not be loaded ("
    )
    expect(refusal).to_contain_text("TF-IDF cosine and BM25 (as Lucene scores it) work without the vectors.")
    expect(refusal).to_contain_text("back on the settings shown, scored by TF-IDF cosine")
    expect(scorer_control(page)).to_have_value("tfidf")
    expect(page.locator("#experiment-intro")).to_contain_text("scored by TF-IDF cosine")
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
    expect(page.locator("#pending-note")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"[?&]scorer=tfidf(&|$)"))
    page.locator("#share summary").click()
    expect(page.locator("#share-link")).to_have_value(re.compile(r"[?&]scorer=tfidf(&|$)"))
    assert page.locator("#experiment").get_attribute("data-shown-policy") == query_of(full_policy({}))

    context.set_offline(False)
    page.get_by_role("button", name="Download the vectors again").click()
    vectors_are(page, "ready")
    expect(scorer_control(page)).to_have_value("embedding")
    expect(page.locator("#experiment")).to_have_attribute(
        "data-shown-policy", query_of(full_policy({"scorer": "embedding"}))
    )
    expect(refusal).to_be_hidden()
    expect(page.locator("#experiment-intro")).not_to_contain_text("TF-IDF")
    expect(page).to_have_url(re.compile(r"[?&]scorer=embedding(&|$)"))
    assert_meaning_matches_cpython(page, full_policy({"scorer": "embedding"}))


def test_a_failed_download_says_so_and_retry_loads_the_vectors(
    new_context: Callable[..., BrowserContext], site_url: str
) -> None:
    """A file cut short, then one the server does not have: each is said in the vectors' line
    with Retry, while TF-IDF and BM25 keep answering; once the file is back, Retry loads it
    and the page shows the embedding's result."""
    context = new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)
    failures: list[str] = []

    def cut_short(route: Route) -> None:
        failures.append("cut")
        route.fulfill(status=200, body=b"RWSE" + b"\0" * 996, content_type="application/octet-stream")

    context.route(VECTORS, cut_short)
    scorer_control(page).select_option("embedding")
    vectors_are(page, "failed")
    status = page.locator("#vectors-status")
    expect(status).to_have_text(
        f"The embedding vectors could not be loaded: the download stopped after 1000 of {VECTOR_BYTES} bytes. "
        "TF-IDF and BM25 still work; retry the download, or pick one of them."
    )
    retry = page.get_by_role("button", name="Retry the download")
    expect(retry).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-engine", "ready")

    set_policy(page, {"scorer": "bm25"})  # the page keeps working
    assert_page_matches_cpython(page, full_policy({"scorer": "bm25"}))

    context.unroute(VECTORS)

    def not_found(route: Route) -> None:
        failures.append("404")
        route.fulfill(status=404, body="404 Not Found\n")

    context.route(VECTORS, not_found)
    scorer_control(page).select_option("embedding")
    retry.click()
    expect(status).to_contain_text("could not be loaded: the server answered 404")
    assert failures == ["cut", "404"]

    context.unroute(VECTORS)
    retry.click()
    vectors_are(page, "ready")
    expect(retry).to_be_hidden()
    expect(page.locator("#experiment")).to_have_attribute(
        "data-shown-policy", query_of(full_policy({"scorer": "embedding"}))
    )
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
    assert_meaning_matches_cpython(page, full_policy({"scorer": "embedding"}))
    assert json.loads(page.locator("#records-body tr").first.get_attribute("data-ranks") or "{}").keys() == {
        "tfidf",
        "bm25",
        "embedding",
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_wcag_violations_with_the_vectors_line_the_breakdown_and_the_map(
    new_context: Callable[..., BrowserContext], axe_source: str, site_url: str, scheme: str
) -> None:
    """axe (WCAG 2.0/2.1 A and AA) finds nothing with the vectors loaded, the embedding's
    breakdown and map shown, and after a failed download with its Retry."""
    context = with_axe(new_context, axe_source)(color_scheme=scheme, service_workers="block")
    page = context.new_page()
    page.goto(f"{site_url}?{query_of(full_policy(SERVERS))}")
    wait_ready(page)
    vectors_are(page, "ready")
    page.locator('[data-choose="M2"]').click()
    expect(page.get_by_role("img", name="Approximate map of meaning")).to_be_visible()
    violations = run_axe(page)
    assert not violations, describe(violations)

    context.route(VECTORS, lambda route: route.fulfill(status=404, body="404 Not Found\n"))
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-engine", "ready", timeout=READY_TIMEOUT_MS)
    vectors_are(page, "failed")
    violations = run_axe(page)
    assert not violations, describe(violations)

"""Tables fit their boxes and words wrap only between words, on a phone, a tablet and a
desktop, under every scorer.

One page per width; the scorer changes through its control. Screenshots of the pipeline
and the records under the embedding and hybrid scorers go to test-output/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from engine.scorers import SCORER_IDS
from harness import ROOT
from harness.controls import set_policy
from harness.devices import device
from harness.page import shared_ready_page, stage_is

SCREENSHOTS = ROOT / "test-output" / "screenshots"
WIDTHS = {"375": (375, 800), "768": (768, 1024), "1280": (1280, 900)}
SCREENSHOT_SCORERS = ("embedding", "hybrid")

# Sections with content-visibility: auto skip their layout while off screen; drawn, they are
# measured as a reader scrolling to them sees them.
RENDER_ALL = """() => {
  for (const el of document.querySelectorAll('body *')) {
    if (getComputedStyle(el).contentVisibility === 'auto') el.style.contentVisibility = 'visible';
  }
}"""

# The records table's width against its box, each Outcome cell's edges against the box and
# the viewport, and each other table (the breakdown's, the comparison's) against its parent.
FIT = """() => {
  const box = document.querySelector('.table-scroll');
  const boxRect = box.getBoundingClientRect();
  const table = document.querySelector('#records-table');
  const outcomes = [...document.querySelectorAll('#records-body td.outcome-cell')].map((cell) => {
    const r = cell.getBoundingClientRect();
    return {id: cell.parentElement.dataset.recordId, left: Math.round(r.left), right: Math.round(r.right)};
  });
  // A cell whose text runs past its own edge overlaps the next one, even inside the box.
  const spilled = [...document.querySelectorAll('#records-body :is(th, td)')]
    .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
    .map((cell) => `${cell.parentElement.dataset.recordId} ${cell.className || cell.tagName}: ${cell.scrollWidth} px in ${cell.clientWidth}`);
  const others = [...document.querySelectorAll('#score-breakdown table, #baseline-comparison table')]
    .filter((t) => t.getClientRects().length)
    .map((t) => {
      const parent = t.parentElement;
      return {table: t.className || t.caption?.textContent || 'table', width: t.offsetWidth, scroll: parent.scrollWidth,
              room: parent.clientWidth};
    });
  return {scroll: table.scrollWidth, tableWidth: table.offsetWidth, boxScroll: box.scrollWidth, room: box.clientWidth,
          boxLeft: Math.round(boxRect.left), boxRight: Math.round(boxRect.right), viewport: window.innerWidth,
          outcomes, spilled, others};
}"""

# Every word (up to and including a hyphen or dash, after which a line may break) in the
# text of these parts whose boxes sit on more than one line: a word broken inside itself.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  const range = document.createRange();
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s\\-‐–—]+[\\-‐–—]?/g)) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (rects.length < 2) continue;
        // On one line every box overlaps every other vertically; a box that starts
        // below where another ends is on a later line.
        const top = Math.max(...rects.map((r) => r.top));
        const bottom = Math.min(...rects.map((r) => r.bottom));
        if (top >= bottom - 1) {
          const where = node.parentElement.closest('[data-record-id]')?.dataset.recordId ?? root.id ?? '';
          broken.push(`${where} <${node.parentElement.className || node.parentElement.tagName}> "${m[0]}"`);
        }
      }
    }
  }
  return broken;
}"""

WORD_PARTS = {
    "cards": ".card",
    "records table": "#records-table",
    "tray": "#tray-body",
    "breakdown tables": "#score-breakdown table",
    "comparison tables": "#baseline-comparison table",
}


@pytest.fixture(scope="module", params=list(WIDTHS.values()), ids=list(WIDTHS))
def sized_page(request: pytest.FixtureRequest, browser: Browser, site_url: str) -> Iterator[Page]:
    """A ready page at one width, with a baseline captured so the comparison's tables show."""
    with shared_ready_page(browser, site_url, **device(*request.param)) as page:
        page.get_by_role("button", name="Capture baseline").click()
        yield page


def show_scorer(page: Page, scorer: str) -> None:
    """The scorer's result at stage 4, where every badge, reason and rank takes its room."""
    set_policy(page, {"scorer": scorer})
    page.locator('[data-jump="4"]').click()
    stage_is(page, 4)
    page.evaluate(RENDER_ALL)


def fit_problems(found: dict[str, Any]) -> list[str]:
    problems = []
    if found["scroll"] > found["room"] or found["boxScroll"] > found["room"]:
        problems.append(f"records table {found['scroll']} px wide in a box of {found['room']} px")
    if found["spilled"]:
        problems.append(f"{len(found['spilled'])} cells spill past their edge, e.g. {found['spilled'][0]}")
    right_edge = min(found["boxRight"], found["viewport"])
    cut = [c for c in found["outcomes"] if c["left"] < max(0, found["boxLeft"]) or c["right"] > right_edge]
    if cut:
        problems.append(
            f"{len(cut)} Outcome cells reach past the box or screen, {cut[0]['id']}'s spanning "
            f"{cut[0]['left']}–{cut[0]['right']} px where the box ends at {right_edge}"
        )
    for other in found["others"]:
        if max(other["width"], other["scroll"]) > other["room"]:
            problems.append(f"table {other['table']!r} {other['width']} px wide in {other['room']} px")
    return problems


def test_tables_fit_without_sideways_scrolling_under_every_scorer(sized_page: Page) -> None:
    """The records table is no wider than its box and every Outcome cell is within the box and the
    screen, under each scorer; the breakdown's and the comparison's tables fit their parents."""
    page = sized_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems: dict[str, list[str]] = {}
    for scorer in SCORER_IDS:
        show_scorer(page, scorer)
        found = page.evaluate(FIT)
        assert found["outcomes"], "the records table shows no rows"
        if fit_problems(found):
            problems[scorer] = fit_problems(found)
        if scorer in SCREENSHOT_SCORERS:
            for part, name in ((".pipeline", "pipeline"), ("#records", "records")):
                path = SCREENSHOTS / f"fit-{name}-{scorer}-{width}.png"
                page.locator(part).screenshot(path=path, animations="disabled", caret="hide")
    assert not problems, f"at {width} px:\n" + "\n".join(f"{s}: {p}" for s, ps in problems.items() for p in ps)


def test_words_wrap_only_between_words(sized_page: Page) -> None:
    """In the cards, the tables and the tray, no word is broken across two lines except after a
    hyphen, under each scorer."""
    page = sized_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    broken: list[str] = []
    for scorer in SCORER_IDS:
        show_scorer(page, scorer)
        for part, selector in WORD_PARTS.items():
            broken += [f"{scorer}, {part}: {word}" for word in page.evaluate(BROKEN_WORDS, selector)]
    assert not broken, f"at {width} px, words broken across lines:\n" + "\n".join(sorted(set(broken)))

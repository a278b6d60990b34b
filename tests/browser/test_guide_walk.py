"""Every step of every guide, walked on a phone (375×667) and a desktop (1280×800): the step
opens at the stage it declares, on its record, with its part of the page in view; the bar
stays under a third of a phone's screen, every word of it readable (its "Look for" unfolded
on demand); and the numbers the step tells the learner to look for are on screen without
scrolling or clicking. Screenshots of every step go to test-output/screenshots/guides/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from harness import ROOT
from harness.controls import full_policy, query_of, shows_policy
from harness.devices import device
from harness.fixtures import GUIDED_STORES, load_json
from harness.page import stage_is, wait_ready

SCREENSHOTS = ROOT / "test-output" / "screenshots" / "guides"
SIZES = {"phone-375": (375, 667), "desktop-1280": (1280, 800)}
STORES: dict[str, dict[str, Any]] = {name: load_json(path) for name, path in GUIDED_STORES.items()}
# The site each store's guides are walked on (tests/browser/conftest.py builds one per store).
SITES = {"default": "site_url", "support": "support_site", "agent": "agent_site", "timeline": "timeline_site"}
# A number as a learner reads it in a sentence: not part of a record id like M10.
# The most of a phone's height the bar may cover, its "Look for" unfolded.
MAX_BAR_SHARE = 1 / 3
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")

# The text of every text node inside the viewport and above the bar (or, with a bar
# element given, inside that element), each with whether it lies wholly inside.
VISIBLE_TEXT = """([bar, inside]) => {
  const limit = inside ? inside.getBoundingClientRect() : null;
  const bottom = bar && !inside ? bar.getBoundingClientRect().top : window.innerHeight;
  const root = inside ?? document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    if (!inside && bar && bar.contains(node)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const top = Math.min(...rects.map((r) => r.top));
    const end = Math.max(...rects.map((r) => r.bottom));
    const within = top >= (limit ? limit.top - 0.5 : 0) && end <= (limit ? Math.min(limit.bottom, window.innerHeight) + 0.5 : bottom + 0.5);
    out.push([node.textContent, within]);
  }
  return out;
}"""


def visible_text(page: Page, bar: Locator) -> str:
    """What the learner sees of the page above the bar, as it is scrolled now."""
    nodes = page.evaluate(VISIBLE_TEXT, [bar.element_handle(), None])
    return " ".join(text for text, within in nodes if within)


def shown_as(number: str, text: str) -> bool:
    """The text shows this number, as it is written or at more places that round to it
    (a step's 1.15 is the page's 1.1451)."""
    places = len(number.partition(".")[2])
    for shown in NUMBER.findall(text):
        if shown == number or (
            places and len(shown.partition(".")[2]) > places and f"{float(shown):.{places}f}" == number
        ):
            return True
    return False


def assert_bar_readable(page: Page, bar: Locator, where: str) -> None:
    """Every text node the bar draws lies wholly inside the bar and the viewport."""
    nodes = page.evaluate(VISIBLE_TEXT, [bar.element_handle(), bar.element_handle()])
    assert nodes, where
    hidden = [text for text, within in nodes if not within]
    assert not hidden, f"{where}: clipped or out of sight in the bar: {hidden}"


# The top of the part a step brought into view, and of its heading (a table's caption, a
# section's heading, else its first line), each against the screen's top and the bar's.
PART_IN_VIEW = """(bar) => {
  const part = document.querySelector(bar.dataset.revealed);
  if (!part) return {missing: bar.dataset.revealed};
  const heading = part.querySelector("caption, h2, h3, h4, figcaption") ?? part;
  const limit = bar.getBoundingClientRect().top;
  const top = part.getBoundingClientRect().top;
  const box = heading.getBoundingClientRect();
  return {part: top, heading: box.top, headingBottom: box.bottom, limit, text: heading.textContent.trim().slice(0, 40)};
}"""


def check_part(page: Page, bar: Locator, where: str) -> list[str]:
    """The part the step brought into view starts on screen, its heading whole above the bar."""
    seen = bar.evaluate(PART_IN_VIEW)
    if "missing" in seen:
        return [f"{where}: the part {seen['missing']} is not on the page"]
    if seen["part"] < -1 or seen["heading"] < -1 or seen["headingBottom"] > seen["limit"] + 1:
        return [f"{where}: the part's heading “{seen['text']}” is not in view ({seen})"]
    return []


def check_screen(page: Page, bar: Locator, size: tuple[int, int], step: dict[str, Any], where: str) -> list[str]:
    """The bar fits (under a third of a phone's height) with every word readable, and every
    number the step's "Look for" names is on screen above it, without scrolling."""
    problems = []
    box = bar.bounding_box()
    assert box is not None
    if size[0] < 480 and box["height"] > MAX_BAR_SHARE * size[1]:
        problems.append(f"{where}: the bar covers {box['height'] / size[1]:.0%}")
    assert_bar_readable(page, bar, where)
    seen = visible_text(page, bar)
    missing = [n for n in NUMBER.findall(step["look_for"]) if not shown_as(n, seen)]
    if missing:
        problems.append(f"{where}: {missing} of “{step['look_for']}” not on screen")
    return problems


def walk(page: Page, store: dict[str, Any], size: tuple[int, int], name: str) -> list[str]:
    """Apply every step in turn; what each fails to show on screen, as sentences."""
    problems: list[str] = []
    bar = page.get_by_role("complementary", name="Guided experiment step")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for guide in store["guides"]:
        page.evaluate("() => window.scrollTo(0, 0)")
        page.locator("#start-here").get_by_role("button", name=guide["title"]).click()
        for index, step in enumerate(guide["steps"]):
            where = f"{guide['id']} step {index + 1} at {name}"
            if index:
                bar.get_by_role("button", name="Next step").click()
            shows_policy(page, step["policy"], store)
            shows = step["shows"]
            if shows["part"] == "scoreboard":
                # The step has the scoreboard measure its settings, which the worker answers after the result.
                measured = query_of(full_policy(step["policy"], store))
                expect(page.locator("#scoreboard")).to_have_attribute("data-measured-policy", measured)
            stage_is(page, shows["stage"])
            # The step's record is the one chosen, and the breakdown explains it.
            expect(page.locator("#records-body tr.chosen")).to_have_attribute("data-record-id", shows["record"])
            expect(page.locator("#score-breakdown .breakdown-why")).to_have_attribute("data-shown", shows["record"])
            expect(bar).to_contain_text(f"Step {index + 1} of {len(guide['steps'])}")
            page.screenshot(path=str(SCREENSHOTS / f"{guide['id']}-{index + 1}-{name}.png"))
            # As the step opens, its "Look for" is unfolded, readable in full beside the numbers it names.
            expect(bar.locator(".look-for")).to_be_visible()
            expect(bar.locator(".look-for")).to_contain_text(step["look_for"])
            problems += check_screen(page, bar, size, step, where)
            problems += check_part(page, bar, where)
            toggle = bar.get_by_role("button", name="Hide")
            if toggle.is_visible():
                # Folded on demand (a phone), the numbers stay in view; unfolded again, so is the claim.
                toggle.click()
                expect(bar.locator(".look-for")).to_be_hidden()
                problems += check_screen(page, bar, size, step, f"{where}, folded")
                bar.get_by_role("button", name="Look for").click()
                expect(bar.locator(".look-for")).to_be_visible()
                problems += check_screen(page, bar, size, step, f"{where}, unfolded again")
    return problems


@pytest.mark.parametrize("store", STORES.keys())
@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_every_guide_step_shows_what_it_says(
    new_context: Callable[..., BrowserContext], request: pytest.FixtureRequest, size: tuple[int, int], store: str
) -> None:
    """Each step of every fixture store's guides: its stage, its record chosen and explained,
    its part in view with the numbers it names, and a bar that fits."""
    url = request.getfixturevalue(SITES[store])
    page = new_context(**device(*size)).new_page()
    page.goto(url)
    wait_ready(page)
    problems = walk(page, STORES[store], size, f"{store}-{size[0]}")
    assert not problems, "\n".join(problems)

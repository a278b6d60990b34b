"""site/js/views/morph.js in Chromium: a view rewritten in place ends as the same nodes its new
markup would parse to, keeping every node the new markup still has."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Route

JS = Path(__file__).resolve().parents[2] / "site" / "js"
ORIGIN = "http://morph.test"


def serve(route: Route) -> None:
    """An empty page, and site/js's source modules under /js/."""
    path = route.request.url.removeprefix(ORIGIN)
    if path.startswith("/js/"):
        route.fulfill(path=JS / path.removeprefix("/js/"), content_type="text/javascript")
    else:
        route.fulfill(body="<!doctype html><title>morph</title><body></body>", content_type="text/html")


@pytest.fixture
def morph_page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    page.evaluate("async () => { window.morph = await import('/js/views/morph.js'); }")
    yield page
    page.close()


# Rewrites container (a fresh element of the given tag, holding before) to after, and
# reports whether it now equals after parsed afresh, and which of the nodes it held
# before are still in it.
MORPH_CHILDREN = """([tag, before, after]) => {
  const container = document.createElement(tag);
  document.body.replaceChildren(container);
  container.innerHTML = before;
  const walk = (node) => [node, ...[...node.childNodes].flatMap(walk)];
  const old = walk(container).slice(1);
  window.morph.morphChildren(container, after);
  const expected = document.createElement(tag);
  expected.innerHTML = after;
  const now = new Set(walk(container));
  return {
    equal: container.isEqualNode(expected),
    html: container.innerHTML,
    kept: old.map((node) => now.has(node)),
  };
}"""


def morph_children(page: Page, before: str, after: str, tag: str = "div") -> dict[str, Any]:
    children: dict[str, Any] = page.evaluate(MORPH_CHILDREN, [tag, before, after])
    return children


def test_only_what_differs_is_written(morph_page: Page) -> None:
    before = '<p class="a" data-x="1">one <b>two</b></p><p hidden>three</p>'
    after = '<p class="b" data-y="2">one <b>2</b></p><p>three</p>'
    done = morph_children(morph_page, before, after)
    assert done["equal"], done["html"]
    # p, "one ", b, "two", p, "three": every node is kept; attributes and text are rewritten.
    assert done["kept"] == [True] * 6
    assert done["html"] == '<p class="b" data-y="2">one <b>2</b></p><p>three</p>'


def test_nodes_of_another_kind_or_number_are_replaced(morph_page: Page) -> None:
    done = morph_children(morph_page, "<p>a</p><span>b</span>", "<p>a</p><em>b</em>")
    assert done["equal"]
    assert done["kept"] == [True, True, False, False]  # the span and its text went with it
    done = morph_children(morph_page, "<p>a</p>", "<p>a</p><p>b</p>")
    assert done["equal"]
    assert done["kept"] == [False, False]


def test_form_fields_are_replaced_not_rewritten(morph_page: Page) -> None:
    """A field the learner changed is put back as its markup says, as innerHTML would."""
    kept = morph_page.evaluate(
        """() => {
      const container = document.createElement("div");
      document.body.replaceChildren(container);
      container.innerHTML = '<label><input type="checkbox" value="M1"> M1</label>';
      const box = container.querySelector("input");
      const label = box.parentNode;
      box.checked = true;
      window.morph.morphChildren(container, '<label><input type="checkbox" value="M1" data-seen=""> M1</label>');
      const now = container.querySelector("input");
      return { same: now === box, checked: now.checked, label: container.firstChild === label };
    }"""
    )
    assert kept == {"same": False, "checked": False, "label": True}


def test_rows_and_svg_keep_their_parsing_context(morph_page: Page) -> None:
    rows = morph_children(
        morph_page, '<tr data-id="M1"><td>1</td></tr>', '<tr data-id="M1" class="chosen"><td>2</td></tr>', "tbody"
    )
    assert rows["equal"] and all(rows["kept"]), rows["html"]
    svg = morph_page.evaluate(
        """() => {
      const container = document.createElement("div");
      document.body.replaceChildren(container);
      container.innerHTML = '<svg viewBox="0 0 10 10"><rect width="1" height="2"></rect></svg>';
      const rect = container.querySelector("rect");
      window.morph.morphChildren(container, '<svg viewBox="0 0 20 10"><rect width="3" height="2"></rect></svg>');
      const now = container.querySelector("rect");
      return [now === rect, now.namespaceURI, now.getAttribute("width"), container.firstChild.getAttribute("viewBox")];
    }"""
    )
    assert svg == [True, "http://www.w3.org/2000/svg", "3", "0 0 20 10"]


def test_one_element_is_rewritten_in_place_or_replaced(morph_page: Page) -> None:
    result = morph_page.evaluate(
        """() => {
      const list = document.createElement("ol");
      document.body.replaceChildren(list);
      list.innerHTML = '<li class="card" data-outcome="selected">M1 <span>fits</span></li><li>M2</li>';
      const [first, second] = list.children;
      window.morph.morphElement(first, '<li class="card" data-outcome="over_budget">M1 <span>over budget</span></li>');
      window.morph.morphElement(second, '<li>M2</li><li>M3</li>');
      return { kept: list.children[0] === first, first: first.outerHTML, replaced: list.children[1] !== second, count: list.children.length };
    }"""
    )
    assert result == {
        "kept": True,
        "first": '<li class="card" data-outcome="over_budget">M1 <span>over budget</span></li>',
        "replaced": True,
        "count": 3,
    }


TAGS = ("p", "span", "b", "li", "div")
ATTRIBUTES = ("class", "data-a", "data-b", "hidden", "title")


def random_markup(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(0, 3)):
        if depth < 3 and rng.random() < 0.6:
            tag = rng.choice(TAGS)
            attributes = "".join(f' {name}="{rng.choice(["x", "y", ""])}"' for name in ATTRIBUTES if rng.random() < 0.3)
            parts.append(f"<{tag}{attributes}>{random_markup(rng, depth + 1)}</{tag}>")
        else:
            parts.append(rng.choice(["one", "two", "three &amp; four", " "]))
    return "".join(parts)


def test_random_markup_ends_as_it_parses(morph_page: Page) -> None:
    """From any markup to any other, the rewritten nodes equal the new markup parsed afresh."""
    rng = random.Random(20261203)
    pairs = [(random_markup(rng), random_markup(rng)) for _ in range(300)]
    results = morph_page.evaluate(
        """(pairs) => pairs.map(([before, after]) => {
      const container = document.createElement("div");
      container.innerHTML = before;
      window.morph.morphChildren(container, after);
      const expected = document.createElement("div");
      expected.innerHTML = after;
      return container.isEqualNode(expected);
    })""",
        pairs,
    )
    assert all(results), [pair for pair, ok in zip(pairs, results, strict=True) if not ok][:3]

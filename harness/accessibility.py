"""Accessibility checks shared by the browser tests: axe-core run under the page's real CSP
and Playwright's fake clock, and moving and checking keyboard focus."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# Added before page.clock.install, so it runs before the fake clock replaces the timers.
KEEP_REAL_TIMERS = """
window.__realTimers = {
  native: String(window.setTimeout).includes('[native code]'),
  setTimeout: window.setTimeout,
  clearTimeout: window.clearTimeout,
  setInterval: window.setInterval,
  clearInterval: window.clearInterval,
};
"""

RUN_AXE = """async (tags) => {
  const real = window.__realTimers;
  const names = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
  const fake = Object.fromEntries(names.map((n) => [n, window[n]]));
  for (const n of names) window[n] = real[n];
  try {
    // Let CSS transitions (opacity at stage changes) settle first: axe reads computed colours.
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
    const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({target: n.target.join(' '), summary: n.failureSummary || ''})),
    }));
  } finally {
    for (const n of names) window[n] = fake[n];
  }
}"""


def with_axe(new_context: Callable[..., BrowserContext], axe_source: str) -> Callable[..., BrowserContext]:
    """conftest's contexts, 1280×900 unless told, with axe and the real timers injected."""

    def make(**options: Any) -> BrowserContext:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = new_context(**options)
        context.add_init_script(script=KEEP_REAL_TIMERS)
        context.add_init_script(script=axe_source)
        return context

    return make


def run_axe(page: Page) -> list[dict[str, Any]]:
    assert page.evaluate("() => window.__realTimers && window.__realTimers.native") is True, (
        "the real timers were not kept: KEEP_REAL_TIMERS must be added before page.clock.install"
    )
    violations: list[dict[str, Any]] = page.evaluate(RUN_AXE, WCAG_TAGS)
    return violations


def describe(violations: list[dict[str, Any]], examples: int = 8) -> str:
    """Each violation with id, impact and help, then its nodes grouped by selector shape (record ids as M*)."""
    lines = []
    for v in violations:
        lines.append(f"[{v['id']}] impact={v['impact']}: {v['help']} ({len(v['nodes'])} nodes) {v['helpUrl']}")
        groups: dict[str, list[dict[str, str]]] = {}
        for node in v["nodes"]:
            shape = re.sub(r"\bM\d+\b", "M*", node["target"])
            shape = re.sub(r'\[data-outcome="[^"]*"\]', "", re.sub(r"nth-child\(\d+\)", "nth-child(n)", shape))
            groups.setdefault(shape, []).append(node)
        for shape, nodes in list(groups.items())[:examples]:
            summary = " ".join(nodes[0]["summary"].replace("Fix any of the following:", "").split())[:200]
            first = nodes[0]["target"] if len(nodes) == 1 else f"{len(nodes)}× {shape}, e.g. {nodes[0]['target']}"
            lines.append(f"    {first}  --  {summary}")
        if len(groups) > examples:
            lines.append(f"    … and {len(groups) - examples} more selector shapes")
    return "\n".join(lines)


FOCUS_STYLE = """() => {
  let el = document.activeElement;
  if (!el || el === document.body) return {ok: false, what: 'nothing focused'};
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 2 && r.height > 2; };
  // A visually hidden input (the store file picker) shows its focus on its label.
  const shown = visible(el) ? el : ([...(el.labels || [])].find(visible) || el);
  const s = getComputedStyle(shown);
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  const shadow = s.boxShadow && s.boxShadow !== 'none';
  const what = shown.tagName.toLowerCase() + (shown.id ? '#' + shown.id : '') +
    (shown.className && typeof shown.className === 'string' ? '.' + shown.className.trim().split(/\\s+/).join('.') : '');
  return {ok: outline || Boolean(shadow), what, outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`,
          shadow: s.boxShadow, focusVisible: el.matches(':focus-visible')};
}"""

DIRECTION = """(selector) => {
  const target = document.querySelector(selector);
  const active = document.activeElement;
  if (!target) return 'missing';
  if (!active || active === document.body) return 'Tab';
  return (active.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_PRECEDING) ? 'Shift+Tab' : 'Tab';
}"""


def tab_to(page: Page, selector: str, limit: int = 250) -> int:
    """Press Tab (or Shift+Tab, towards the target) until the element matching selector has focus."""
    for presses in range(limit):
        if page.evaluate("(s) => document.activeElement !== null && document.activeElement.matches(s)", selector):
            return presses
        direction = page.evaluate(DIRECTION, selector)
        assert direction != "missing", f"no element matches {selector}"
        page.keyboard.press(direction)
    active = page.evaluate("() => document.activeElement && document.activeElement.outerHTML.slice(0, 160)")
    raise AssertionError(f"{selector} not reached in {limit} Tab presses; focus is on {active}")


def assert_focus_visible(page: Page) -> None:
    style = page.evaluate(FOCUS_STYLE)
    assert style["ok"], f"the focused {style.get('what')} shows no focus indicator: {style}"

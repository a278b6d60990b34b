"""Phones, tablets and system settings: no sideways page scroll, touch targets, screenshots, dark, reduced motion.

Screenshots go to test-output/screenshots/ in the repository (git-ignored) for a person to look at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from harness import ROOT
from harness.controls import shows_policy
from harness.devices import OVERFLOW, device
from harness.page import open_with_paused_clock, wait_answered, wait_ready

SCREENSHOTS = ROOT / "test-output" / "screenshots"
VIEWPORTS = {"phone-375": (375, 800), "tablet-768": (768, 1024)}
MIN_TARGET = 44  # CSS px, WCAG 2.5.5 (and Apple's and Google's touch guidance)


# ------------------------------------------------------------------ no sideways scrolling


@pytest.mark.parametrize("size", VIEWPORTS.values(), ids=VIEWPORTS.keys())
def test_no_horizontal_page_overflow(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    """Only the labelled .scroll-x regions scroll sideways; the page itself never does."""
    page = new_context(**device(*size)).new_page()
    page.goto(site_url)
    wait_ready(page)
    found = page.evaluate(OVERFLOW)
    lines = [f"{o['element']}: right edge {o['right']} px, width {o['width']} px" for o in found["offenders"]]
    assert found["scrollWidth"] <= found["innerWidth"] and not lines, (
        f"at {size[0]} px the page is {found['scrollWidth']} px wide; elements past the right edge "
        f"outside a .scroll-x region:\n" + "\n".join(lines[:40])
    )


# ------------------------------------------------------------------ touch targets

TARGETS = """(min) => {
  const main = document.querySelector('main');
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\\s+/).join('.');
    for (const a of ['type', 'data-jump', 'data-guide-step', 'data-choose', 'value', 'name']) {
      if (el.hasAttribute(a) && !(a === 'value' && el.tagName !== 'INPUT')) s += `[${a}="${el.getAttribute(a)}"]`;
    }
    const label = (el.labels && el.labels[0] ? el.labels[0].textContent : el.textContent || '').trim().replace(/\\s+/g, ' ');
    return label ? `${s} "${label.slice(0, 40)}"` : s;
  };
  const union = (rects) => {
    const left = Math.min(...rects.map((r) => r.left)), right = Math.max(...rects.map((r) => r.right));
    const top = Math.min(...rects.map((r) => r.top)), bottom = Math.max(...rects.map((r) => r.bottom));
    return {width: right - left, height: bottom - top};
  };
  const selector = 'button, select, input[type="checkbox"], input[type="range"], summary, a[href]';
  const offenders = [];
  let checked = 0;
  for (const el of main.querySelectorAll(selector)) {
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
    if (el.matches('p a')) continue;  // inline links in text are exempt (WCAG 2.5.5/2.5.8)
    let box = el.getBoundingClientRect();
    if (box.width <= 1 && box.height <= 1) continue;  // visually hidden; its label is the target
    if (el.matches('input[type="checkbox"]')) {
      // The clickable target is the box plus its label.
      const labels = [...(el.labels || [])].map((l) => l.getBoundingClientRect()).filter((r) => r.width > 0);
      box = union([box, ...labels]);
    }
    checked += 1;
    if (box.width < min - 0.5 || box.height < min - 0.5) {
      offenders.push(`${describe(el)}: ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }
  return {checked, offenders};
}"""


@pytest.mark.parametrize("size", VIEWPORTS.values(), ids=VIEWPORTS.keys())
def test_touch_targets_are_at_least_44_px(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    """Every visible button, select, checkbox (with its label), range, summary and non-inline link in main."""
    page = new_context(**device(*size)).new_page()
    page.goto(site_url)
    wait_ready(page)
    page.get_by_role("button", name="Capture baseline").click()  # shows Clear baseline too
    found = page.evaluate(TARGETS, MIN_TARGET)
    assert found["checked"] > 30, found
    assert not found["offenders"], (
        f"at {size[0]} px, {len(found['offenders'])} of {found['checked']} targets are smaller than "
        f"{MIN_TARGET}×{MIN_TARGET} CSS px:\n" + "\n".join(found["offenders"])
    )


# ------------------------------------------------------------------ screenshots

SCREEN_SIZES = {"375": (375, 800), "768": (768, 1024), "1280": (1280, 900)}

# Sections with content-visibility: auto are not painted while off screen, and a full-page
# capture counts everything past the viewport as off screen, so they would come out blank.
# Render them as a reader scrolling down would see them (CSSOM writes are allowed by the CSP).
RENDER_ALL = """() => {
  for (const el of document.querySelectorAll('body *')) {
    if (getComputedStyle(el).contentVisibility === 'auto') el.style.contentVisibility = 'visible';
  }
}"""


def full_page_screenshot(page: Page, path: Path) -> None:
    page.evaluate(RENDER_ALL)
    page.screenshot(path=path, full_page=True, animations="disabled", caret="hide")


@pytest.mark.parametrize("size", SCREEN_SIZES.values(), ids=SCREEN_SIZES.keys())
def test_full_page_screenshots(
    new_context: Callable[..., BrowserContext], site_url: str, size: tuple[int, int]
) -> None:
    """Stage 4 (the default result) and stage 2 (budget 9, 10.1 s in) as full-page PNGs for review."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width = size[0]
    page = open_with_paused_clock(new_context(**device(*size)).new_page(), site_url)
    expect(page.locator("#experiment")).to_have_attribute("data-stage", "4")
    stage4 = SCREENSHOTS / f"stage4-{width}.png"
    full_page_screenshot(page, stage4)
    page.get_by_label("Context word budget", exact=True).fill("9")
    wait_answered(page)
    page.clock.run_for(10_100)
    expect(page.locator("#experiment")).to_have_attribute("data-stage", "2")
    shows_policy(page, {"budget_words": 9})
    page.locator("#experiment").evaluate("el => el.ownerDocument.activeElement.blur()")
    stage2 = SCREENSHOTS / f"stage2-{width}.png"
    full_page_screenshot(page, stage2)
    for path in (stage4, stage2):
        assert path.exists() and path.stat().st_size > 10_000, path
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path


# ------------------------------------------------------------------ system settings

LUMINANCE = """(el) => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const s = getComputedStyle(el);
  return {background: lum(parse(s.backgroundColor)), text: lum(parse(s.color)), raw: [s.backgroundColor, s.color]};
}"""


def test_dark_scheme_is_dark(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """With a dark system setting, <html> has a dark background and light text; so do the panels."""
    page = new_context(color_scheme="dark", viewport={"width": 1280, "height": 900}).new_page()
    page.goto(site_url)
    wait_ready(page)
    html = page.locator("html").evaluate(LUMINANCE)
    assert html["background"] < 0.2, html
    assert html["text"] > 0.5, html
    for selector in ("#experiment", ".score-panel", ".guide"):
        panel = page.locator(selector).first.evaluate(LUMINANCE)
        assert panel["background"] < 0.2 and panel["text"] > 0.5, (selector, panel)


def test_light_scheme_is_light(new_context: Callable[..., BrowserContext], site_url: str) -> None:
    """The contrary check, so the dark test cannot pass by accident."""
    page = new_context(color_scheme="light", viewport={"width": 1280, "height": 900}).new_page()
    page.goto(site_url)
    html = page.locator("html").evaluate(LUMINANCE)
    assert html["background"] > 0.8 and html["text"] < 0.1, html


TRANSITIONS = """() => {
  const moving = [];
  for (const el of [document.documentElement, ...document.querySelectorAll('body *')]) {
    for (const pseudo of [null, '::before', '::after']) {
      const s = getComputedStyle(el, pseudo);
      const longest = Math.max(...s.transitionDuration.split(',').map((d) => parseFloat(d) || 0),
                               ...s.animationDuration.split(',').map((d) => parseFloat(d) || 0));
      if (longest > 0 && (s.transitionProperty !== 'none' || s.animationName !== 'none')) {
        moving.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className}${pseudo || ''}: ` +
                    `transition ${s.transitionDuration}, animation ${s.animationName} ${s.animationDuration}`);
      }
    }
  }
  return moving;
}"""


def test_reduced_motion_stays_on_the_result_and_has_no_transitions(
    new_context: Callable[..., BrowserContext], site_url: str
) -> None:
    """With reduced motion, an input change never leaves stage 4, and no CSS transition or animation runs."""
    page = new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 900}).new_page()
    page.goto(site_url)
    wait_ready(page)
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    page.locator("#experiment").evaluate(
        """el => { window.__stages = [];
                   new MutationObserver(() => window.__stages.push(el.dataset.stage))
                     .observe(el, {attributes: true, attributeFilter: ['data-stage']}); }"""
    )
    page.get_by_label("Context word budget", exact=True).fill("9")
    shows_policy(page, {"budget_words": 9})
    expect(page.locator("#experiment")).to_have_attribute("data-stage", "4")
    assert all(stage == "4" for stage in page.evaluate("() => window.__stages")), page.evaluate("() => window.__stages")
    expect(page.locator("#tray-body")).to_be_visible()
    moving = page.evaluate(TRANSITIONS)
    assert not moving, "transitions or animations under reduced motion:\n" + "\n".join(moving[:30])
    durations = page.locator(".stage-box, .card, .badge").evaluate_all(
        "els => [...new Set(els.map(e => getComputedStyle(e).transitionDuration))]"
    )
    assert durations == ["0s"], durations


def test_screenshot_folder_is_ignored_by_git() -> None:
    """The screenshots are for people, never for commits."""
    ignore = (ROOT / ".gitignore").read_text(encoding="utf-8")
    assert re.search(r"^/?test-output/?$", ignore, flags=re.M), ".gitignore should list /test-output/"

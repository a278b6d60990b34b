"""The timeline on the timeline store's site, at 1280 and 375 px, one page load each: the
as-of line moved with the keyboard and dragged with a pointer asks as of that hour, the
slider says its value from the answer, the records table, the tray and the number box
follow, the lanes carry every record's outcome, the text alternative lists every record,
and nothing overflows a phone's width. Screenshots go to test-output/screenshots/timeline/."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from harness import ROOT
from harness.controls import full_policy
from harness.devices import device
from harness.fixtures import TIMELINE_STORE, load_json
from harness.page import rows_on_page, wait_ready
from harness.results import result_of

SCREENSHOTS = ROOT / "test-output" / "screenshots" / "timeline"
STORE: dict[str, Any] = load_json(TIMELINE_STORE)
POLICY = {"question": "database-host", "store": "all", "previous_sessions": True, "max_age_hours": 500}
QUERY = "?question=database-host&store=all&previous_sessions=true&max_age_hours=500"
SPAN = max(max(r["age_hours"], r.get("true_since_hours", r["age_hours"])) for r in STORE["records"])


def written_by(as_of: float) -> int:
    return sum(1 for record in STORE["records"] if record["age_hours"] >= as_of)


def shows_as_of(page: Page, as_of: int) -> None:
    """The slider, the number box, the table and the lanes all show the answer as of that hour."""
    handle = page.get_by_role("slider", name="As-of line")
    expect(handle).to_have_attribute("aria-valuenow", str(as_of))
    expect(page.get_by_label("As of", exact=True)).to_have_value(str(as_of))
    expect(page.locator("#timeline-lanes .timeline-lanes")).to_have_attribute("data-as-of", str(as_of))
    when = "now" if as_of == 0 else f"{as_of} hours ago"
    expect(handle).to_have_attribute(
        "aria-valuetext", f"As of {when}: {written_by(as_of)} of {len(STORE['records'])} records written"
    )
    unwritten = {r["id"] for r in STORE["records"] if r["age_hours"] < as_of}
    for record in STORE["records"]:
        row = page.locator(f'#records-body tr[data-record-id="{record["id"]}"]')
        mark = page.locator(f'#timeline-lanes .timeline-mark[data-record-id="{record["id"]}"]')
        if record["id"] in unwritten:
            expect(row).to_have_attribute("data-outcome", "not_written_yet")
        outcome = row.get_attribute("data-outcome")
        expect(mark).to_have_attribute("data-outcome", outcome or "")


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop-1280", "phone-375"])
def test_the_as_of_line_moves_by_keys_and_pointer_and_the_page_follows(
    new_context: Callable[..., BrowserContext], timeline_site: str, size: tuple[int, int]
) -> None:
    page = new_context(**device(*size)).new_page()
    page.goto(timeline_site + QUERY)
    wait_ready(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    handle = page.get_by_role("slider", name="As-of line")
    expect(handle).to_have_attribute("aria-valuemax", str(SPAN))
    shows_as_of(page, 0)
    # Now, by the time written, the audit note D4 supersedes D3 and reaches the tray.
    expect(page.locator("#tray-body li[data-record-id='D4']")).to_be_visible()

    # The keyboard: four days back, then four hours more: Tuesday noon, 100 hours ago.
    handle.focus()
    for key in ["PageUp"] * 4 + ["ArrowLeft"] * 4:
        page.keyboard.press(key)
    shows_as_of(page, 100)
    expect(page.locator("#tray-body li[data-record-id='D2']")).to_be_visible()
    expect(page.locator("#records-body tr[data-record-id='D3'] .reason")).to_have_text(
        "Not written yet as of 100 hours ago: written 30 hours ago."
    )
    # The page's numbers and sentences as of then are CPython's.
    policy = full_policy(POLICY | {"as_of_hours": 100}, STORE)
    expected = result_of({"store": STORE, "policy": policy})
    for row, want in zip(rows_on_page(page), expected["records"], strict=True):
        assert (row["id"], row["outcome"]) == (want["id"], want["outcome"])
        assert math.isclose(row["cosine"], want["cosine"], rel_tol=1e-12, abs_tol=1e-15)
        assert want["score"] is not None and math.isclose(row["score"], want["score"], rel_tol=1e-12, abs_tol=1e-15)
    expect(page.locator("#question-reading .read-claim")).to_have_text(
        [claim["text"] for claim in expected["question"]["reading"]]
    )
    # D1 is superseded by D2 on the lanes too: the arrow runs from D1 to D2.
    expect(page.locator('#timeline-lanes .timeline-arrow[data-from="D1"][data-to="D2"]')).to_have_count(1)
    handle.scroll_into_view_if_needed()
    page.locator("#memory-timeline").screenshot(path=str(SCREENSHOTS / f"keys-100-{size[0]}.png"))
    page.keyboard.press("End")
    shows_as_of(page, SPAN)
    page.keyboard.press("Home")
    shows_as_of(page, 0)

    # The pointer: pressed at 250 hours ago on the axis and dragged there, D1 fills the tray.
    area = page.locator("#timeline-area")
    area.scroll_into_view_if_needed()
    box = area.bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.9, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * (1 - 250 / SPAN), y, steps=6)
    page.mouse.up()
    dropped = int(handle.get_attribute("aria-valuenow") or "-1")
    assert 240 <= dropped <= 260, dropped
    shows_as_of(page, dropped)
    expect(page.locator("#tray-body li[data-record-id='D1']")).to_be_visible()
    expect(page.locator("#tray-body li")).to_have_count(1)

    # The text alternative lists every record; the page fits a phone's width.
    page.get_by_text("The timeline as a table").click()
    expect(page.locator("#timeline-text tbody tr")).to_have_count(len(STORE["records"]))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size[0]
    label = page.locator("#timeline-handle-label").bounding_box()
    assert label is not None and label["x"] >= 0 and label["x"] + label["width"] <= size[0]
    page.locator("#memory-timeline").screenshot(path=str(SCREENSHOTS / f"drag-{dropped}-{size[0]}.png"))

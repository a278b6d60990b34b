"""Every row of the engine's field table reaches the page: its control (by accessible
name), the link that reproduces it, the share panel's hide flags and the exported notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from playwright.sync_api import BrowserContext, Page, expect

import engine
from engine.fields import Field
from tests.browser.conftest import wait_ready
from tests.conftest import FIXTURES, load_json

STORE = load_json(FIXTURES / "store.json")


def other_value(field: Field) -> Any:
    """A valid value of the field that is not its default, so a round trip shows."""
    default = engine.DEFAULT_POLICY[field.name]
    if field.kind == "bool":
        return not default
    if field.choices_from:
        return [item["id"] for item in STORE[field.choices_from]][1]
    if field.kind == "choice":
        return next(value for value in field.values if value != default)
    assert field.minimum is not None and field.maximum is not None
    value = field.minimum + (field.maximum - field.minimum) / 4
    return round(value) if field.kind == "int" else value


def link_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


def control_value(page: Page, field: Field) -> str:
    control = page.get_by_label(field.label, exact=True)
    if field.control == "checkbox":
        return "true" if control.is_checked() else "false"
    return control.input_value()


def test_every_field_round_trips_through_link_controls_share_panel_and_notes(
    context: BrowserContext, site_url: str, tmp_path: Path
) -> None:
    """A link giving every field a non-default value: each control shows it, the address
    keeps it, the share panel offers to hide it and Export notes lists it."""
    wanted = {f.name: other_value(f) for f in engine.FIELDS}
    # The engine accepts this policy as it is: the values are valid and not defaults.
    assert engine.run({"store": STORE, "policy": wanted})["policy"] == wanted  # type: ignore[index]
    page = context.new_page()
    page.goto(f"{site_url}?{urlencode({k: link_text(v) for k, v in wanted.items()})}")
    wait_ready(page)
    expect(page.locator("#notices")).to_be_hidden()
    for field in engine.FIELDS:
        expect(page.get_by_label(field.label, exact=True)).to_be_visible()
        shown = control_value(page, field)
        assert shown == link_text(wanted[field.name]), (field.name, shown)
        assert page.locator(f'input[name="share-hide"][value="{field.name}"]').count() == 1
    address = parse_qs(urlsplit(page.url).query)
    assert {name: address[name] for name in wanted} == {k: [link_text(v)] for k, v in wanted.items()}

    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    path = tmp_path / "notes.md"
    info.value.save_as(path)
    notes = path.read_text(encoding="utf-8")
    for field in engine.FIELDS:
        assert f"- {field.name} ({field.label}): {link_text(wanted[field.name])}" in notes, field.name

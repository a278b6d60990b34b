"""Every row of the engine's field table reaches the page: its control (by accessible
name), the link that reproduces it, the share panel's hide flags and the exported notes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from playwright.sync_api import BrowserContext, Page, expect

import engine
from engine.fields import FIELDS_BY_NAME, Field
from harness.controls import is_shown, shown_values
from harness.fixtures import FIXTURES, load_json
from harness.page import wait_ready
from harness.results import result_of

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
    if field.kind == "text":
        return "Where do we deploy, & why? <b>50%</b> ~ *"
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


# A choice a non-empty text field is in force instead of (question, for question_text):
# its control shows that text's own option, and keeps the choice for when it is cleared.
REPLACED = {f.replaces: f for f in engine.FIELDS if f.replaces}


def test_every_field_round_trips_through_link_controls_share_panel_and_notes(
    context: BrowserContext, site_url: str, tmp_path: Path
) -> None:
    """A link giving every field a non-default value: each control shows it, the address
    keeps it, the share panel offers to hide it and Export notes lists it."""
    wanted = {f.name: other_value(f) for f in engine.FIELDS}
    # The engine accepts this policy as it is: the values are valid and not defaults.
    assert result_of({"store": STORE, "policy": wanted})["policy"] == wanted
    page = context.new_page()
    page.goto(f"{site_url}?{urlencode({k: link_text(v) for k, v in wanted.items()})}")
    wait_ready(page)
    expect(page.locator("#notices")).to_be_hidden()
    page.locator("#share summary").click()
    for field in engine.FIELDS:
        assert page.locator(f'input[name="share-hide"][value="{field.name}"]').count() == 1
        if not is_shown(field, wanted):
            # Its control waits for the setting it goes with; its value is kept (checked below).
            expect(page.get_by_label(field.label, exact=True)).to_be_hidden()
            continue
        expect(page.get_by_label(field.label, exact=True)).to_be_visible()
        shown = control_value(page, field)
        if field.name in REPLACED:
            selected = page.get_by_label(field.label, exact=True).locator("option:checked")
            expect(selected).to_have_text(REPLACED[field.name].option)
        else:
            assert shown == link_text(wanted[field.name]), (field.name, shown)
    address = parse_qs(urlsplit(page.url).query)
    assert {name: address[name] for name in wanted} == {k: [link_text(v)] for k, v in wanted.items()}

    with page.expect_download() as info:
        page.get_by_role("button", name="Export notes").click()
    path = tmp_path / "notes.md"
    info.value.save_as(path)
    notes = path.read_text(encoding="utf-8")
    for field in engine.FIELDS:
        assert f"- {field.name} ({field.label}): {link_text(wanted[field.name])}" in notes, field.name

    # Emptying a text field puts the choice it replaced back in force, as the link said it.
    for name, text in REPLACED.items():
        page.get_by_label(text.label, exact=True).fill("")
        expect(page).not_to_have_url(re.compile(rf"[?&]{text.name}="))
        assert parse_qs(urlsplit(page.url).query)[name] == [link_text(wanted[name])]
        page.get_by_label(FIELDS_BY_NAME[name].label, exact=True).select_option(link_text(wanted[name]))
        assert control_value(page, FIELDS_BY_NAME[name]) == link_text(wanted[name])
        expect(page.get_by_label(text.label, exact=True)).to_be_hidden()

    # A control shown with another setting's value shows the link's value once that setting has it.
    for field in engine.FIELDS:
        if field.shown_with and not is_shown(field, wanted):
            owner, values = field.shown_with
            page.get_by_label(FIELDS_BY_NAME[owner].label, exact=True).select_option(shown_values(values)[0])
            expect(page.get_by_label(field.label, exact=True)).to_be_visible()
            assert control_value(page, field) == link_text(wanted[field.name]), field.name

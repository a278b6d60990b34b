"""The store editor: an instructor's whole path, on a phone and on a desktop, one page load each.

A new store with two tenants, five records, one question and a two-step guide recorded from
the workbench; every edit answered by the engine; a problem shown at its field while the
workbench keeps the last valid draft; a false Look for flagged, then fixed; a reload mid-edit;
a second tab; export and import back; undo and redo.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, FilePayload, Locator, Page, expect

from harness.accessibility import describe, run_axe, with_axe
from harness.page import assert_matches_engine, wait_ready

RECORDS = [
    ("M1", "tenant-1", "The billing database runs in the eu-west region since the March migration."),
    ("M2", "tenant-1", "Invoices are generated nightly by the billing job at two in the morning."),
    ("M3", "tenant-1", "The support rota lists who answers the pager for the billing database."),
    ("M4", "tenant-2", "The billing database for the second team runs in us-east."),
    ("M5", "tenant-2", "Refunds above one thousand euros need a manager's approval."),
]
QUESTION = "Where does the billing database run?"


def editor_field(page: Page, group: str, label: str) -> Locator:
    """A field of the editor by its item's legend and its own label."""
    return page.locator("#editor").get_by_role("group", name=group, exact=True).get_by_label(label, exact=True)


def status(page: Page) -> Locator:
    return page.locator("#editor-status")


def answered(page: Page, records: int) -> None:
    """The engine accepted the draft and the workbench shows it."""
    expect(status(page)).to_contain_text(f"The workbench shows this draft ({records} record")
    expect(page.locator("#records-body tr")).to_have_count(records)


def show_workbench(page: Page, phone: bool) -> None:
    if phone:
        page.get_by_role("button", name="See the answer").click()
        expect(page.locator("#editor")).not_to_be_visible()


def show_editor(page: Page, phone: bool) -> None:
    if phone:
        page.get_by_role("button", name="Back to the editor").click()
        expect(page.locator("#editor")).to_be_visible()


def draft_of(page: Page) -> Any:
    """The draft as Export writes it."""
    with page.expect_download() as download:
        page.get_by_role("button", name="Export store").click()
    return json.loads(open(download.value.path(), encoding="utf-8").read())


@pytest.mark.parametrize("width, height", [(375, 667), (1280, 800)])
def test_an_instructor_writes_a_course_in_the_page(
    new_context: Callable[..., BrowserContext], axe_source: str, site_url: str, width: int, height: int
) -> None:
    """New store, tenants, records, question, a guide recorded from the workbench, claims, reload, tabs, export."""
    phone = width < 900
    context = with_axe(new_context, axe_source)(viewport={"width": width, "height": height}, accept_downloads=True)
    page = context.new_page()
    page.goto(site_url)
    wait_ready(page)

    page.get_by_role("button", name="New store").click()
    expect(page.locator("#editor-title")).to_be_focused()
    answered(page, 1)
    expect(page.locator("#store-title")).to_have_text("My course")
    if not phone:  # side by side: the workbench's answer is on screen beside the editor
        editor_box = page.locator("#editor").bounding_box()
        experiment = page.locator("#experiment").bounding_box()
        assert editor_box and experiment and experiment["x"] + experiment["width"] <= editor_box["x"] + 1

    # Two tenants.
    editor_field(page, "Tenant 1: Tenant 1", "Name").fill("Billing team")
    page.get_by_role("button", name="Add a tenant").click()
    expect(editor_field(page, "Tenant 2: Tenant 2", "ID")).to_be_focused()
    editor_field(page, "Tenant 2: Tenant 2", "Name").fill("Second team")
    editor_field(page, "Tenant 2: Tenant 2", "Name").blur()

    # Five records, every field; the first one rewritten.
    for index, (record_id, tenant, text) in enumerate(RECORDS):
        if index:
            page.get_by_role("button", name="Add a record").click()
            expect(editor_field(page, f"Record {record_id}", "ID")).to_be_focused()
        group = f"Record {record_id}"
        editor_field(page, group, "Tenant").select_option(tenant)
        editor_field(page, group, "Memory store").select_option("semantic" if index % 2 else "working")
        editor_field(page, group, "Age (hours)").fill(str(2 + 10 * index))
        editor_field(page, group, "Text").fill(text)
        answered(page, index + 1)

    # A problem is shown at its field, and the workbench keeps the last valid draft.
    age = editor_field(page, "Record M3", "Age (hours)")
    age.fill("-4")
    expect(status(page)).to_have_text(
        "1 problem in this draft: the workbench keeps the last valid draft until they are fixed."
    )
    expect(age).to_have_attribute("aria-invalid", "true")
    error = page.locator(f"#{age.get_attribute('id')}-error")
    expect(error).to_have_text("must not be negative, not -4")
    assert str(error.get_attribute("id")) in str(age.get_attribute("aria-describedby"))
    expect(page.locator("#records-body tr")).to_have_count(5)
    violations = run_axe(page)
    assert not violations, f"axe with the editor open and a problem shown:\n{describe(violations)}"
    age.fill("22")
    answered(page, 5)
    expect(age).not_to_have_attribute("aria-invalid", "true")

    # The question and the records that answer it, per tenant.
    editor_field(page, "Question 1", "Question").fill(QUESTION)
    editor_field(page, "Supporting records", "For tenant-1").fill("M1")
    editor_field(page, "Supporting records", "For tenant-2").fill("M4")
    answered(page, 5)
    expect(page.locator("#question-text")).to_have_text(QUESTION)

    # A guide of two steps, each recorded from the workbench's settings.
    page.get_by_role("button", name="Add a guide").click()
    editor_field(page, "Guide 1: guide-1", "Title").fill("Where things run")
    for step, budget in ((1, "12"), (2, "30")):
        show_workbench(page, phone)
        control = page.locator("#policy-form").get_by_label("Context word budget")
        control.fill(budget)
        control.press("Enter")
        expect(page.locator("#experiment")).to_have_attribute(
            "data-shown-policy", re.compile(rf"budget_words={budget}(&|$)")
        )
        show_editor(page, phone)
        page.get_by_role("button", name="Add this configuration as a step").click()
        group = f"Step {step}"
        expect(editor_field(page, group, "Title")).to_be_focused()
        page.locator("#editor").get_by_role("group", name=group, exact=True).get_by_text("Settings:").click()
        expect(editor_field(page, group, "Context word budget")).to_have_value(budget)
        expect(editor_field(page, group, "Question")).to_have_value("question-1")
        editor_field(page, group, "Title").fill(f"A budget of {budget} words")
        editor_field(page, group, "Look for").fill("M1 answers the question.")
    answered(page, 5)
    expect(page.locator("#start-list")).to_contain_text("Where things run")

    # A false Look for is flagged at the field as it is written, then fixed.
    look_for = editor_field(page, "Step 2", "Look for")
    look_for.fill("M9 answers the question.")
    expect(status(page)).to_contain_text("1 guided claim the engine contradicts, flagged at its Look for.")
    expect(look_for).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#{look_for.get_attribute('id')}-error")).to_have_text(
        "“M9”: M9 is not a record of this store (its records are M1 to M5)"
    )
    look_for.fill("M1 answers the question.")
    expect(look_for).not_to_have_attribute("aria-invalid", "true")
    expect(status(page)).to_have_text("The workbench shows this draft (5 records).")

    store = draft_of(page)
    assert [t["label"] for t in store["tenants"]] == ["Billing team", "Second team"]
    assert [(r["id"], r["tenant"], r["text"]) for r in store["records"]] == RECORDS
    assert store["questions"][0]["supporting"] == {"tenant-1": ["M1"], "tenant-2": ["M4"]}
    steps = store["guides"][0]["steps"]
    assert [s["policy"]["budget_words"] for s in steps] == [12, 30]
    assert all(s["shows"]["record"] in {r[0] for r in RECORDS} for s in steps)
    assert_matches_engine(page, store, {"budget_words": 30})

    # Undo takes the last edit back (typing in one field, until it is left, is one edit); redo brings it again.
    page.get_by_role("button", name="Undo").click()
    expect(look_for).to_have_value("")
    page.get_by_role("button", name="Redo").click()
    expect(look_for).to_have_value("M1 answers the question.")

    # Reload mid-edit: nothing is lost.
    saved = page.locator("#editor-saved")
    before = saved.get_attribute("data-saved-at") or ""
    editor_field(page, "Record M5", "Text").fill("Refunds above one thousand euros need approval.")
    expect(saved).not_to_have_attribute("data-saved-at", re.compile(f"^({before})?$"))
    expect(saved).to_contain_text("Draft saved in this browser")
    page.reload()
    wait_ready(page)
    expect(editor_field(page, "Record M5", "Text")).to_have_value("Refunds above one thousand euros need approval.")
    answered(page, 5)
    expect(page.locator("#store-title")).to_have_text("My course")

    # A second tab on the same draft (a duplicated tab keeps the tab's draft id) is told.
    draft_id = page.evaluate("() => sessionStorage.getItem('retrieval-workbench:draft')")
    second = context.new_page()
    second.add_init_script(f"sessionStorage.setItem('retrieval-workbench:draft', {json.dumps(draft_id)})")
    second.goto(site_url)
    choice = second.locator("#editor-tab-choice")
    expect(choice).to_contain_text("open in another tab")
    second.get_by_role("button", name="Take it over here").click()
    expect(page.locator("#editor-tab-choice")).to_contain_text("Another tab took this draft over")
    expect(choice).to_be_hidden()
    second.close()
    page.get_by_role("button", name="Open a copy").click()
    expect(page.locator("#editor-tab-choice")).to_be_hidden()

    # Export, change the draft, then import the export: the same draft as exported.
    exported = draft_of(page)
    title = editor_field(page, "About this store", "Title")
    title.fill("Changed since the export")
    expect(page.locator("#store-title")).to_have_text("Changed since the export")
    file: FilePayload = {"name": "course.json", "mimeType": "application/json", "buffer": json.dumps(exported).encode()}
    page.locator("#editor-import").set_input_files(files=[file])
    expect(title).to_have_value("My course")
    expect(page.locator("#store-title")).to_have_text("My course")
    assert draft_of(page) == exported

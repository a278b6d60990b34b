"""Instructors' tools: opening a store in the page, course sites, share links, scale, SCORM."""

from __future__ import annotations

import datetime
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

import build
import engine
from harness.controls import set_policy
from harness.fixtures import FIXTURES, SUPPORT_STORE, load_json
from harness.page import assert_matches_engine, open_store, tray_on_page, wait_answered, wait_ready
from harness.results import result_of


def test_open_a_store_file_and_return_to_the_default(page: Page, site_url: str) -> None:
    """A valid store replaces the default for this tab (controls, table, guides); one click goes back."""
    page.goto(site_url)
    wait_ready(page)
    support = load_json(SUPPORT_STORE)
    open_store(page, "support-store.json", support)
    expect(page.locator("#store-title")).to_have_text(support["title"])
    expect(page.locator("#records-body tr")).to_have_count(len(support["records"]))
    # The store's questions, then the option for the learner's own.
    options = page.get_by_label("Question", exact=True).locator("option")
    expect(options.locator('xpath=self::*[@value!=""]')).to_have_count(len(support["questions"]))
    expect(options).to_have_text([q["text"] for q in support["questions"]] + ["Your own question"])
    expect(page.get_by_label("Active tenant", exact=True)).to_have_value(support["tenants"][0]["id"])
    expect(page.locator("[data-guide]")).to_have_count(len(support["guides"]))
    assert_matches_engine(page, support, {})
    page.reload()  # kept for this tab
    wait_ready(page)
    expect(page.locator("#store-title")).to_have_text(support["title"])
    assert_matches_engine(page, support, {})
    page.get_by_role("button", name="Back to the default store").click()
    expect(page.locator("#records-body tr")).to_have_count(10)
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")
    assert_matches_engine(page, load_json(FIXTURES / "store.json"), {})


def test_drop_a_store_file_on_the_page(page: Page, site_url: str) -> None:
    """Dropping a store file anywhere on the page opens it."""
    page.goto(site_url)
    wait_ready(page)
    text = SUPPORT_STORE.read_text()
    page.evaluate(
        """(text) => {
          const data = new DataTransfer();
          data.items.add(new File([text], 'support-store.json', {type: 'application/json'}));
          document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
        }""",
        text,
    )
    expect(page.locator("#store-title")).to_have_text(json.loads(text)["title"])


def malformed_stores() -> list[tuple[str, Any, str]]:
    good = load_json(FIXTURES / "store.json")

    def changed(change: Any) -> Any:
        store = json.loads(json.dumps(good))
        change(store)
        return store

    return [
        ("not json", "{oops", "store.json: is not valid JSON"),
        ("missing field", changed(lambda s: s["records"][2].pop("session")), "records[2].session: is missing"),
        (
            "unknown store",
            changed(lambda s: s["records"][3].update(store="semntic")),
            'records[3].store: "semntic" is not one of',
        ),
        ("unknown session", changed(lambda s: s["records"][0].update(session="later")), "records[0].session"),
        ("unknown tenant", changed(lambda s: s["records"][1].update(tenant="team-z")), "records[1].tenant"),
        (
            "duplicate id",
            changed(lambda s: s["records"][4].update(id="M1")),
            'records[4].id: "M1" is used by another record',
        ),
        (
            "negative age",
            changed(lambda s: s["records"][5].update(age_hours=-3)),
            "records[5].age_hours: must not be negative",
        ),
        (
            "non-numeric age",
            changed(lambda s: s["records"][5].update(age_hours="old")),
            "records[5].age_hours: must be a number",
        ),
        (
            "bad supporting id",
            changed(lambda s: s["questions"][0]["supporting"].update({"team-a": ["M99"]})),
            "is not a record id",
        ),
        ("empty text", changed(lambda s: s["records"][6].update(text=" ")), "records[6].text: must not be empty"),
        ("not an object", [1, 2], "store: must be a JSON object"),
    ]


def test_malformed_store_files_are_refused_with_every_problem(page: Page, site_url: str) -> None:
    """Each way the engine rejects a store shows its path in the page; the current store stays."""
    page.goto(site_url)
    wait_ready(page)
    for label, data, message in malformed_stores():
        open_store(page, "store.json", data)
        problems = page.locator("#store-problems")
        expect(problems).to_contain_text(message)
        expect(problems).to_contain_text("The current store stays")
        expect(page.locator("#records-body tr"), label).to_have_count(10)
    two = load_json(FIXTURES / "store.json")
    two["records"][0]["store"] = "x"
    two["records"][9]["age_hours"] = None
    open_store(page, "two.json", two)
    expect(page.locator("#store-problems li")).to_have_count(2)
    assert_matches_engine(page, load_json(FIXTURES / "store.json"), {})


def test_the_closed_share_panel_puts_no_form_controls_in_the_page(page: Page, site_url: str) -> None:
    """Its controls are built as it opens, already there in the task that opens it."""
    page.goto(site_url)
    wait_ready(page)
    controls = "#share :is(input, select, textarea, button)"
    assert page.locator(controls).count() == 0
    assert page.locator("form#policy-form :is(input, select, textarea)").count() > 0
    # The summary's click builds the panel before the browser opens it (the toggle event
    # that follows comes in a later task, after a frame may have been drawn).
    built = page.evaluate(
        """() => {
            document.querySelector("#share summary").click();
            return [document.getElementById("share").open, document.querySelectorAll("#share input[name=share-hide]").length];
        }"""
    )
    assert built == [True, len(engine.FIELDS)]
    expect(page.locator("#share-link")).to_have_value(re.compile(r"\?.*budget_words="))
    assert page.locator("#share-body").count() == 0

    page.reload()
    wait_ready(page)
    page.evaluate("document.getElementById('share').open = true")  # opened by a script
    expect(page.locator("#share-link")).to_have_value(re.compile(r"\?.*budget_words="))
    expect(page.locator("#share input[name=share-hide]")).to_have_count(len(engine.FIELDS))


def test_share_panel_follows_the_controls_while_open_and_when_reopened(page: Page, site_url: str) -> None:
    """The link and snippet always carry the configuration on screen, however it changed."""
    page.goto(site_url)
    wait_ready(page)
    page.locator("#share summary").click()
    set_policy(page, {"budget_words": 17})
    expect(page.locator("#share-link")).to_have_value(re.compile(r"budget_words=17&"))
    expect(page.locator("#embed-snippet")).to_have_value(re.compile(r"budget_words=17&"))
    page.locator("#share summary").click()  # closed: not rewritten on every change
    set_policy(page, {"budget_words": 23})
    page.locator("#share summary").click()  # reopened: brought up to date at once
    expect(page.locator("#share-link")).to_have_value(re.compile(r"budget_words=23&"))
    expect(page.locator("#embed-snippet")).to_have_value(re.compile(r"budget_words=23&"))


def test_share_panel_builds_links_that_hide_controls_and_open_at_a_stage(page: Page, site_url: str) -> None:
    """The share link carries stage, hidden controls and hidden explanations; the page applies them."""
    page.goto(site_url)
    wait_ready(page)
    page.locator("#share summary").click()
    page.get_by_label("Open at").select_option("2")
    page.get_by_label("Hide Question", exact=True).check()
    page.get_by_label("Hide Memory store", exact=True).check()
    page.get_by_label("Hide the explanations").check()
    link = page.locator("#share-link").input_value()
    assert re.search(r"stage=2&hide=question%2Cstore&explain=0$", link), link
    snippet = page.locator("#embed-snippet").input_value()
    assert snippet.startswith('<iframe src="') and 'allow="fullscreen' in snippet and "embed=1" in snippet
    assert 'title="Retrieval Workbench: ' in snippet
    page.goto(link)
    wait_ready(page)
    expect(page.get_by_label("Question", exact=True)).to_be_hidden()
    expect(page.get_by_label("Memory store", exact=True)).to_be_hidden()
    expect(page.get_by_label("Context word budget", exact=True)).to_be_visible()
    expect(page.locator("#explanations")).to_be_hidden()
    expect(page.locator("#experiment")).to_have_attribute("data-stage", "2")
    page.get_by_label("Context word budget", exact=True).fill("9")
    expect(page).to_have_url(re.compile(r"budget_words=9.*hide=question%2Cstore"))  # the options stay


@pytest.mark.parametrize(
    ("query", "named"),
    [("stage=5", "stage"), ("hide=budget", "budget"), ("explain=no", "explain"), ("embed=yes", "embed")],
)
def test_bad_share_parameters_are_named(page: Page, site_url: str, query: str, named: str) -> None:
    """Share parameters are validated like policy fields: a notice names the bad one."""
    page.goto(f"{site_url}?{query}")
    wait_ready(page)
    expect(page.locator("#notices")).to_contain_text(named)


def test_course_site_for_another_store_walks_its_guides(page: Page, support_site: str) -> None:
    """`build.py --store` prerenders the support store; each guide step gives the engine's tray."""
    support = load_json(SUPPORT_STORE)
    start = datetime.datetime(2026, 11, 29, 9, 0, tzinfo=datetime.UTC)
    page.clock.install(time=start)
    page.goto(support_site)
    expect(page.locator("#records-body tr")).to_have_count(len(support["records"]))  # prerendered
    wait_ready(page)
    page.clock.pause_at(start + datetime.timedelta(hours=1))
    for guide in support["guides"]:
        for index, step in enumerate(guide["steps"]):
            page.locator(f'[data-guide-step="{guide["id"]}:{index}"]').click()
            wait_answered(page)
            page.clock.run_for(30_100)
            expect(page.locator("#experiment")).to_have_attribute("data-stage", "4")
            assert_matches_engine(page, support, step["policy"])


def test_build_refuses_an_invalid_store(tmp_path: Path) -> None:
    """`build.py --store` with a malformed file exits 2 and prints the engine's messages."""
    bad = load_json(SUPPORT_STORE)
    bad["records"][0]["store"] = "semntic"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert build.main(["--store", str(tmp_path / "bad.json"), "--out", str(tmp_path / "out")]) == 2


def big_store(size: int) -> dict[str, Any]:
    rng = random.Random(1000)
    words = [
        "deployment",
        "region",
        "timeout",
        "checkout",
        "incident",
        "rollback",
        "release",
        "payment",
        "alert",
        "queue",
        "cache",
        "latency",
        "database",
        "pool",
        "ticket",
        "review",
        "tenant",
        "budget",
        "context",
    ]
    store: dict[str, Any] = load_json(FIXTURES / "store.json")
    store.pop("guides")
    store["records"] = [
        {
            "id": f"R{i}",
            "tenant": rng.choice(["team-a", "team-b"]),
            "store": rng.choice(["semantic", "episodic", "procedural", "working"]),
            "session": rng.choice(["current", "previous"]),
            "age_hours": rng.randint(0, 300),
            "key": None,
            "text": " ".join(rng.choices(words, k=rng.randint(12, 28))),
        }
        for i in range(size)
    ]
    for question in store["questions"]:
        question["supporting"] = {"team-a": ["R0"] if store["records"][0]["tenant"] == "team-a" else [], "team-b": []}
    return store


def test_a_thousand_record_store_is_paged(page: Page, site_url: str) -> None:
    """1,000 records: table and cards show 50 at a time, pages turn, and results match the engine."""
    page.goto(site_url)
    wait_ready(page)
    store = big_store(1000)
    open_store(page, "big.json", store)
    expect(page.locator("#pager-status")).to_have_text("Records 1–50 of 1000")
    expect(page.locator("#records-body tr")).to_have_count(50)
    expect(page.locator("#cards li")).to_have_count(50)
    assert_matches_engine(page, store, {})
    page.get_by_role("button", name="Next records").click()
    expect(page.locator("#pager-status")).to_have_text("Records 51–100 of 1000")
    expect(page.locator("#records-body tr").first).to_have_attribute("data-record-id", "R50")
    page.get_by_label("Memory store", exact=True).select_option("all")
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", re.compile("store=all"))
    expected = result_of({"store": store, "policy": {"store": "all"}})
    assert tray_on_page(page) == expected["selected"]


# The SCORM and cmi5 packages are tested in real runtimes in test_lms.py.


def test_page_without_an_lms_behaves_as_usual(page: Page, site_url: str) -> None:
    """No SCORM API anywhere: nothing is reported and the guides work as always."""
    page.goto(site_url)
    expect(page.locator("html")).to_have_attribute("data-lms", "none")
    wait_ready(page)
    page.locator('[data-guide-step="current-vs-historical:0"]').click()
    for _ in range(3):
        page.get_by_role("button", name="Next stage").click()
    assert tray_on_page(page) == ["M5"]

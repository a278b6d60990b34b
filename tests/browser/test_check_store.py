"""The page's engine checks a draft store in the browser: EngineClient.checkStore runs
engine.check_store_json in the page's own worker (its vectors loaded first for the embedding's
steps), gives what CPython gives, and leaves the store in force answering."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from engine.api import check_store_json
from harness.fixtures import STORE
from harness.page import wait_answered, wait_ready

CHECK = """async (texts) => {
  const { engine } = await import("./js/engine-start.js");
  const replies = [];
  for (const text of texts) replies.push(await engine.checkStore(text));
  return replies;
}"""


def test_the_pages_worker_checks_a_draft_as_cpython_does_and_the_store_in_force_stays(
    page: Page, site_url: str
) -> None:
    """The default store (every claim holds, its embedding steps checked too), one with a
    false number, and a malformed one: the worker's replies equal CPython's; the page then
    still answers a change of its controls from the store it opened."""
    page.goto(site_url)
    wait_ready(page)
    false = json.loads(json.dumps(STORE))
    step = false["guides"][3]["steps"][0]
    step["look_for"] = step["look_for"].replace("0.359", "0.360")
    broken = json.loads(json.dumps(STORE))
    broken["records"][0]["age_hours"] = -1
    texts = [json.dumps(store) for store in (STORE, false, broken)]
    replies = page.evaluate(CHECK, texts)
    assert replies == [json.loads(check_store_json(text)) for text in texts]
    assert replies[0]["claims"] == [] and replies[0]["unchecked"] == [] and replies[0]["steps"] == 20
    assert [claim["named"] for claim in replies[1]["claims"]] == ["M5's cosine 0.360"]
    assert replies[2]["problems"][0]["path"] == "records[0].age_hours"
    row = page.locator("#records-body tr[data-record-id='M9']")
    expect(row).to_have_attribute("data-outcome", "other_tenant")
    page.get_by_label("Active tenant", exact=True).select_option("team-b")
    wait_answered(page)
    expect(row).not_to_have_attribute("data-outcome", "other_tenant")

"""A policy as the page holds it: set through its controls, written into its address, and
shown by its views (the browser tests' one way to ask the page for a policy)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

from playwright.sync_api import Page, expect

import engine
from engine.fields import FIELDS_BY_NAME, Field
from harness.fixtures import STORE
from harness.results import result_of


def full_policy(partial: dict[str, Any], store: Any = None) -> dict[str, Any]:
    """Every field of the policy, the store's defaults (the default store's unless another
    is given) filling what ``partial`` leaves out."""
    return dict(result_of({"store": STORE if store is None else store, "policy": partial})["policy"])


def js_text(value: Any) -> str:
    """How the page writes a value into its URL (JavaScript's String())."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def form_encode(text: str) -> str:
    """As URLSearchParams writes a value: like quote_plus, except that "*" stays and "~" does not."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def query_of(policy: dict[str, Any]) -> str:
    """The page's query string for a policy (state.js writeQuery): an empty text field is left out."""
    return "&".join(
        f"{form_encode(field.name)}={form_encode(js_text(policy[field.name]))}"
        for field in engine.FIELDS
        if not (field.kind == "text" and policy[field.name] == "")
    )


def shown_values(value: str | tuple[str, ...]) -> tuple[str, ...]:
    """The values of the other field with which a field's control is shown (a row's shown_with)."""
    return (value,) if isinstance(value, str) else value


def is_shown(field: Field, policy: dict[str, Any]) -> bool:
    """Whether the page shows the field's control under this policy (its row's shown_with)."""
    return field.shown_with is None or policy[field.shown_with[0]] in shown_values(field.shown_with[1])


def set_policy(page: Page, partial: dict[str, Any]) -> dict[str, Any]:
    """Set every control through its accessible name, then wait for that result."""
    policy = full_policy(partial)
    for field in engine.FIELDS:
        control = page.get_by_label(field.label, exact=True)
        if field.control == "select":
            control.select_option(policy[field.name])
        elif field.control == "checkbox":
            control.set_checked(policy[field.name])
        elif field.control == "text" and field.replaces:
            # Its box is shown once the choice it replaces offers it; choosing a fixed
            # choice (above, in table order) has emptied it already.
            if policy[field.name]:
                page.get_by_label(FIELDS_BY_NAME[field.replaces].label, exact=True).select_option(label=field.option)
                control.fill(policy[field.name])
            else:
                expect(control).to_have_value("")
        elif field.shown_with and not is_shown(field, policy):
            # Hidden while the field it goes with has another value (BM25's k1 and b under
            # TF-IDF): shown for a moment, as a learner would, then hidden again; left alone
            # when it holds the value already (showing the embedding's settings would have the
            # page download its vectors).
            if control.input_value() == js_text(policy[field.name]):
                expect(control).to_be_hidden()
                continue
            other, shown_value = FIELDS_BY_NAME[field.shown_with[0]], shown_values(field.shown_with[1])[0]
            page.get_by_label(other.label, exact=True).select_option(shown_value)
            control.fill(js_text(policy[field.name]))
            page.get_by_label(other.label, exact=True).select_option(policy[other.name])
            expect(control).to_be_hidden()
        else:
            control.fill(js_text(policy[field.name]))
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", query_of(policy))
    return policy


def shows_policy(page: Page, partial: dict[str, Any], store: Any = None) -> None:
    """The views show the result for this policy (the worker has answered), in the default store or ``store``."""
    expect(page.locator("#experiment")).to_have_attribute("data-shown-policy", query_of(full_policy(partial, store)))
    expect(page.locator("#experiment")).not_to_have_attribute("data-pending", "")

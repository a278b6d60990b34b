"""Generated input for tests and benchmarks: synthetic N-record stores for scaling, and the
Hypothesis strategies for valid policies and records (random_store puts records in a store)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import strategies as st

from engine.fields import FIELDS, STORE_KINDS, Field
from engine.model import SESSIONS
from harness import ROOT

# The default store: random stores keep its title, tenants and questions.
BASE_STORE: dict[str, Any] = json.loads((ROOT / "fixtures" / "store.json").read_text(encoding="utf-8"))


def synthetic_store(size: int, seed: int = 7) -> dict[str, Any]:
    """Records of about 20 words drawn from a Zipf-like vocabulary, like real notes."""
    rng = random.Random(seed)
    vocabulary = [f"term{i}" for i in range(5_000)] + ["deployment", "region", "timeout", "checkout", "the", "a"]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    records = []
    for i in range(size):
        words = rng.choices(vocabulary, weights, k=rng.randint(15, 25))
        records.append(
            {
                "id": f"R{i}",
                "tenant": rng.choice(["team-a", "team-b"]),
                "store": rng.choice(STORE_KINDS),
                "session": rng.choice(SESSIONS),
                "age_hours": rng.randint(0, 400),
                "key": rng.choice([None, None, "k1", "k2", "k3"]),
                "text": " ".join(words),
            }
        )
    return {
        "schema": 1,
        "title": f"synthetic {size}",
        "tenants": [{"id": "team-a", "label": "Team A"}, {"id": "team-b", "label": "Team B"}],
        "questions": [
            {
                "id": "q",
                "text": "Which deployment region had the checkout timeout term3?",
                "supporting": {"team-a": [], "team-b": []},
            }
        ],
        "records": records,
    }


# Upper ends for the numbers drawn: on a store of about ten records the outcomes change
# below these, while the fields' own maxima would almost always keep or fit everything.
SMALL_STORE_SPANS: dict[str, float] = {"max_age_hours": 600, "budget_words": 80, "max_records": 6}


def policies(store: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid policies for ``store``, every field drawn from its row of engine.fields.FIELDS:
    the one place that turns the policy fields into generated values."""

    def values(field: Field) -> st.SearchStrategy[Any]:
        if field.choices_from:
            return st.sampled_from([entry["id"] for entry in store[field.choices_from]])
        if field.kind == "choice":
            return st.sampled_from(field.values)
        if field.kind == "bool":
            return st.booleans()
        if field.kind == "text":
            # Half the time the chosen question; otherwise a text of the store's question
            # words (stop words and words found in no record among them).
            words = sorted({word for question in store["questions"] for word in question["text"].split()})
            own = st.lists(st.sampled_from(words), min_size=1, max_size=8).map(" ".join)
            return st.just("") | own
        assert field.minimum is not None and field.maximum is not None
        high = min(field.maximum, SMALL_STORE_SPANS.get(field.name, field.maximum))
        # A whole default draws whole numbers too: records' ages are whole hours, and the
        # inclusive age limit is exercised only when the two can be equal.
        if field.kind == "int" or isinstance(field.default, int):
            return st.integers(int(field.minimum), int(high))
        return st.floats(field.minimum, high)

    return st.fixed_dictionaries({field.name: values(field) for field in FIELDS})


POLICIES = policies(BASE_STORE)

RECORD = st.fixed_dictionaries(
    {
        "tenant": st.sampled_from([tenant["id"] for tenant in BASE_STORE["tenants"]]),
        "store": st.sampled_from(list(STORE_KINDS)),
        "session": st.sampled_from(list(SESSIONS)),
        "age_hours": st.integers(0, 500) | st.floats(0, 500),
        "key": st.sampled_from([None, "k1", "k2"]),
        "text": st.lists(
            st.sampled_from(
                [
                    "deployment",
                    "region",
                    "timeout",
                    "checkout",
                    "roll",
                    "release",
                    "incident",
                    "on-call",
                    "payment",
                    "the",
                    "Mumbai",
                ]
            ),
            min_size=1,
            max_size=15,
        ).map(" ".join),
    }
)


def random_store(base: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """``base`` with ``records`` (given ids R0, R1, …) and no supporting facts."""
    store = dict(base)
    store["records"] = [{"id": f"R{i}", **record} for i, record in enumerate(records)]
    store["questions"] = [{**q, "supporting": {}} for q in base["questions"]]
    return store

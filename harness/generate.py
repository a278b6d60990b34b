"""Generated input for tests and benchmarks: synthetic N-record stores for scaling, valid
policies drawn from the field table (Hypothesis strategies, or seeded draws), and records
(random_store puts records in a store)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from hypothesis import strategies as st

from engine.fields import FIELDS, STORE_KINDS, Field
from engine.store_format import SESSIONS
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
# A minimum similarity is compared with static-embedding cosines between a question and a
# record, which mostly lie under 0.7: drawn up to the field's maximum of 1, many minima would
# exclude every record; drawn up to 0.7, most fall among the records' similarities.
SMALL_STORE_SPANS: dict[str, float] = {
    "max_age_hours": 600,
    "budget_words": 80,
    "max_records": 6,
    "min_similarity": 0.7,
    # Past the oldest record (500 hours in generated stores) no record existed yet.
    "as_of_hours": 600,
}
# The record key a number field is compared with: its values there are drawn half the
# time, since an inclusive limit is decided only where the two are equal.
RECORD_EDGES: dict[str, str] = {"max_age_hours": "age_hours", "as_of_hours": "age_hours"}
# Fields whose default turns something off (λ = 1: no diversity packing): it is drawn half the
# time, so generated policies exercise both sides.
OFF_AT_DEFAULT: tuple[str, ...] = ("mmr_lambda",)


@dataclass(frozen=True)
class Values:
    """What one policy field may hold in a generated policy: one of ``choices``; a boolean;
    a whole or real number from ``low`` to ``high`` (a multiple of ``step`` above ``low``
    where the page's control asks for one), half the time one of ``edges`` when there are
    any; or a text: empty, or words of ``choices``."""

    kind: Literal["choice", "bool", "int", "float", "text"]
    choices: tuple[str, ...] = ()
    low: float = 0
    high: float = 0
    step: Decimal | None = None
    edges: tuple[float, ...] = ()


def values_of(field: Field, store: dict[str, Any]) -> Values:
    """The values generated for ``field`` over ``store``, from its row of engine.fields.FIELDS:
    the one place that turns a policy field into generated values."""
    if field.choices_from:
        return Values("choice", tuple(entry["id"] for entry in store[field.choices_from]))
    if field.kind == "choice":
        return Values("choice", field.values)
    if field.kind == "bool":
        return Values("bool")
    if field.kind == "text":
        # The store's question words (stop words and words found in no record among them).
        return Values("text", tuple(sorted({word for q in store["questions"] for word in q["text"].split()})))
    assert field.minimum is not None and field.maximum is not None
    high = min(field.maximum, SMALL_STORE_SPANS.get(field.name, field.maximum))
    step = None if field.step == "any" else Decimal(field.step)
    key = RECORD_EDGES.get(field.name)
    edges = tuple(sorted({r[key] for r in store["records"] if field.minimum <= r[key] <= high})) if key else ()
    if field.name in OFF_AT_DEFAULT:
        edges = (field.default,)
    # A whole default draws whole numbers too: records' ages are whole hours, and the
    # inclusive age limit is exercised only when the two can be equal.
    if field.kind == "int" or isinstance(field.default, int):
        return Values("int", low=field.minimum, high=high, step=step, edges=edges)
    return Values("float", low=field.minimum, high=high, step=step, edges=edges)


def strategy(values: Values) -> st.SearchStrategy[Any]:
    """Hypothesis's strategy for these values (reals anywhere in their range, off the step too)."""
    if values.kind == "choice":
        return st.sampled_from(values.choices)
    if values.kind == "bool":
        return st.booleans()
    if values.kind == "text":  # half the time empty, so the chosen question is in force
        return st.just("") | st.lists(st.sampled_from(values.choices), min_size=1, max_size=8).map(" ".join)
    numbers = (
        st.integers(int(values.low), int(values.high)) if values.kind == "int" else st.floats(values.low, values.high)
    )
    return st.sampled_from(values.edges) | numbers if values.edges else numbers


def draw(values: Values, rng: random.Random, *, on_steps: bool) -> Any:
    """One value drawn with ``rng``; with ``on_steps``, numbers only where the page's control can hold them."""
    if values.kind == "choice":
        return rng.choice(values.choices)
    if values.kind == "bool":
        return rng.random() < 0.5
    if values.kind == "text":
        return "" if rng.random() < 0.5 else " ".join(rng.choices(values.choices, k=rng.randint(1, 8)))
    if values.edges and rng.random() < 0.5:
        return rng.choice(values.edges)
    if values.kind == "int":
        return rng.randint(int(values.low), int(values.high))
    if on_steps and values.step is not None:
        low = Decimal(repr(values.low))
        return float(low + values.step * rng.randint(0, int((Decimal(repr(values.high)) - low) / values.step)))
    return rng.uniform(values.low, values.high)


# The fields that move the moment a question is asked from (and the clock that says which
# fact is the latest). The seed's invariants speak of now: policies are drawn at their
# defaults unless drawn ``over_time``.
TIME_FIELDS: tuple[str, ...] = ("as_of_hours", "latest_by")


def _now(field: Field, over_time: bool) -> bool:
    """Whether ``field`` keeps its default (now, by the time written) in a policy drawn."""
    return not over_time and field.name in TIME_FIELDS


def policies(store: dict[str, Any], *, over_time: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Valid policies for ``store``, every field of engine.fields.FIELDS drawn (``over_time``:
    the time fields too; else they keep their defaults: now, by the time written)."""
    return st.fixed_dictionaries(
        {
            field.name: st.just(field.default) if _now(field, over_time) else strategy(values_of(field, store))
            for field in FIELDS
        }
    )


def random_policy(
    store: dict[str, Any], rng: random.Random, *, on_steps: bool = False, over_time: bool = False
) -> dict[str, Any]:
    """A valid policy for ``store``, every field of engine.fields.FIELDS drawn with ``rng`` (so
    a seed repeats it); with ``on_steps``, one a learner can set through the page's controls;
    ``over_time`` as for ``policies``."""
    return {
        field.name: field.default if _now(field, over_time) else draw(values_of(field, store), rng, on_steps=on_steps)
        for field in FIELDS
    }


POLICIES = policies(BASE_STORE)
POLICIES_OVER_TIME = policies(BASE_STORE, over_time=True)

# A record's text: a few of the default store's words (and a stop word).
RECORD_TEXT = st.lists(
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
).map(" ".join)

RECORD = st.fixed_dictionaries(
    {
        "tenant": st.sampled_from([tenant["id"] for tenant in BASE_STORE["tenants"]]),
        "store": st.sampled_from(list(STORE_KINDS)),
        "session": st.sampled_from(list(SESSIONS)),
        "age_hours": st.integers(0, 500) | st.floats(0, 500),
        "key": st.sampled_from([None, "k1", "k2"]),
        "text": RECORD_TEXT,
    },
    # How much it matters, 1 to 10, or left out (5).
    optional={"importance": st.integers(1, 10)},
)
# A word an agent's repeated observation adds to a record it copies ("" copies it exactly).
COPY_WORDS = ("", "again", "today", "the", "incident")


def near_copies(records: list[dict[str, Any]]) -> st.SearchStrategy[list[dict[str, Any]]]:
    """The records, then up to four near-copies of some of them (the same text with a word
    added, or none), each with an importance of its own: what makes a diversity packing choose."""
    copies = st.lists(
        st.tuples(st.integers(0, len(records) - 1), st.sampled_from(COPY_WORDS), st.integers(1, 10)), max_size=4
    )
    return copies.map(
        lambda picked: (
            records
            + [
                {**records[i], "text": f"{records[i]['text']} {word}".strip(), "importance": importance}
                for i, word, importance in picked
            ]
        )
    )


# Records with importance and near-copies among them.
RECORDS_WITH_COPIES = st.lists(RECORD, min_size=1, max_size=10).flatmap(near_copies)


# Records over time: ages and times-true drawn from a few values, so that ties in time (two
# records written, or true, at the same hour; an as-of on a record's very hour) are common;
# few keys, so that facts replace each other; each record true since its age, or since
# another hour (a late-filed note about an old state, or one announcing a later change).
HOURS_OVER_TIME = st.sampled_from([0, 1, 12, 24, 30, 96, 120, 300]) | st.integers(0, 500)
RECORD_OVER_TIME = st.fixed_dictionaries(
    {
        "tenant": st.sampled_from([tenant["id"] for tenant in BASE_STORE["tenants"]]),
        "store": st.sampled_from(list(STORE_KINDS)),
        "session": st.sampled_from(list(SESSIONS)),
        "age_hours": HOURS_OVER_TIME,
        "key": st.sampled_from([None, "k1", "k1", "k2"]),
        "text": RECORD_TEXT,
    },
    optional={"true_since_hours": HOURS_OVER_TIME},
)


def random_store(base: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """``base`` with ``records`` (given ids R0, R1, …), no supporting facts, and guides whose
    steps show no record (the base's records are gone)."""
    store = dict(base)
    store["records"] = [{"id": f"R{i}", **record} for i, record in enumerate(records)]
    store["questions"] = [{**q, "supporting": {}} for q in base["questions"]]
    store["guides"] = [
        {**guide, "steps": [{k: v for k, v in step.items() if k != "shows"} for step in guide["steps"]]}
        for guide in base.get("guides", [])
    ]
    return store

"""Generated policies come from the field table: every field drawn, every policy valid, and
the page's draws on its controls' steps."""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import given, settings

import engine
from engine.fields import FIELDS, POLICY_FIELDS
from harness.generate import BASE_STORE, POLICIES, random_policy, values_of
from harness.results import result_of


def test_a_random_policy_draws_every_field_and_is_valid() -> None:
    """Each field of the table is in every policy drawn, the engine takes each as it is,
    and over a hundred draws every field takes more than one value."""
    rng = random.Random(43)
    drawn = [random_policy(BASE_STORE, rng, over_time=True) for _ in range(100)]
    for policy in drawn:
        assert list(policy) == list(POLICY_FIELDS)
        assert result_of({"store": BASE_STORE, "policy": policy})["policy"] == policy
    for name in POLICY_FIELDS:
        assert len({repr(policy[name]) for policy in drawn}) > 1, name


def test_the_same_seed_draws_the_same_policies() -> None:
    first, second = random.Random(5), random.Random(5)
    assert [random_policy(BASE_STORE, first) for _ in range(10)] == [
        random_policy(BASE_STORE, second) for _ in range(10)
    ]


def test_on_steps_draws_only_what_the_page_controls_hold() -> None:
    """With on_steps, a number with a step in the table is a multiple of it, as its control
    would keep it; without, reals fall between the steps."""
    stepped = [f for f in FIELDS if f.kind == "number" and f.step != "any"]
    assert stepped, "no stepped number field to check"
    on, off = random.Random(1), random.Random(1)
    for _ in range(50):
        policy = random_policy(BASE_STORE, on, on_steps=True)
        for field in stepped:
            assert Decimal(repr(policy[field.name])) % Decimal(field.step) == 0, (field.name, policy[field.name])
    anywhere = [random_policy(BASE_STORE, off)[field.name] for field in stepped for _ in range(20)]
    assert any(Decimal(repr(v)) % Decimal(f.step) != 0 for v, f in zip(anywhere, stepped * 20, strict=False))


def test_a_limit_compared_with_records_draws_their_values() -> None:
    """The age limit is drawn at the records' own ages half the time, so the inclusive
    comparison is decided both ways."""
    ages = {record["age_hours"] for record in BASE_STORE["records"]}
    assert set(values_of(engine.fields.FIELDS_BY_NAME["max_age_hours"], BASE_STORE).edges) == ages
    rng = random.Random(2)
    drawn = [random_policy(BASE_STORE, rng)["max_age_hours"] for _ in range(200)]
    assert 60 < sum(age in ages for age in drawn) < 140


@settings(max_examples=50, deadline=None)
@given(policy=POLICIES)
def test_the_hypothesis_policies_draw_every_field_and_are_valid(policy: dict[str, object]) -> None:
    assert set(policy) == set(POLICY_FIELDS)
    assert "error" not in engine.run({"store": BASE_STORE, "policy": policy})


def test_random_minimum_similarities_fall_among_the_records_cosines() -> None:
    """The minimum similarity is drawn where static-embedding cosines lie: over a hundred
    policies under the embedding, most minima fall between the lowest and the highest of
    the store's similarities, fewer than a fifth lie above them all, and some below them all."""
    rng = random.Random(8)
    placed: list[str] = []
    for _ in range(100):
        policy = random_policy(BASE_STORE, rng) | {"scorer": "embedding"}
        similarities = [
            record["similarity"] for record in result_of({"store": BASE_STORE, "policy": policy})["records"]
        ]
        below = sum(similarity < policy["min_similarity"] for similarity in similarities)
        placed.append("above all" if below == len(similarities) else "below all" if below == 0 else "among")
    assert placed.count("among") > 50, placed
    assert placed.count("above all") < 20, placed
    assert placed.count("below all") > 0, placed

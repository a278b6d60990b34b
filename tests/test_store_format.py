"""The store format: fixtures/store.schema.json, the example stores, the README's examples, golden-support cases."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import engine
from harness.fixtures import FIXTURES, assert_golden_case, load_json
from harness.results import error_of, result_of

SCHEMA_PATH = FIXTURES / "store.schema.json"
README_PATH = FIXTURES / "README.md"
STORE_FILES = [
    FIXTURES / "store.json",
    FIXTURES / "support-store.json",
    FIXTURES / "agent-memory-store.json",
    FIXTURES / "timeline-store.json",
]
GOLDEN_SUPPORT_FILES = sorted((FIXTURES / "golden-support").glob("*.json"))


def readme_json_blocks() -> list[str]:
    return re.findall(r"^```json\n(.*?)^```$", README_PATH.read_text(encoding="utf-8"), flags=re.S | re.M)


def readme_example() -> Any:
    """The README's complete example store: its first ```json block that is a whole store."""
    return json.loads(next(block for block in readme_json_blocks() if '"schema"' in block))


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = load_json(SCHEMA_PATH)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(validator: Draft202012Validator, data: Any) -> list[str]:
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(data)]


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    """store.schema.json is itself a valid draft 2020-12 schema and declares that draft."""
    schema = load_json(SCHEMA_PATH)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_every_schema_property_has_a_description() -> None:
    """Every property and definition in the schema carries a description, for editor help."""
    missing: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for name, child in node.get("properties", {}).items():
                if "description" not in child:
                    missing.append(f"{path}.properties.{name}")
            for name, child in node.get("$defs", {}).items():
                if "description" not in child:
                    missing.append(f"{path}.$defs.{name}")
            for key, child in node.items():
                walk(child, f"{path}.{key}")

    walk(load_json(SCHEMA_PATH), "$")
    assert not missing


@pytest.mark.parametrize(
    "name, load",
    [
        ("readme-example", readme_example),
        *[(path.name, lambda path=path: load_json(path)) for path in STORE_FILES],
    ],
)
def test_store_is_valid_for_schema_and_engine(
    name: str, load: Callable[[], Any], validator: Draft202012Validator
) -> None:
    """The README example and both fixture stores pass the schema and engine.parse_store alike."""
    data = load()
    assert schema_errors(validator, data) == []
    engine.parse_store(data)


def test_readme_example_defaults_and_guide_steps_hold() -> None:
    """The README example's stated results are what the engine computes."""
    store = readme_example()
    default = result_of({"store": store})
    assert (default["selected"], default["coverage"]["found"]) == (["R4"], 0)
    first, second = (result_of({"store": store, "policy": s["policy"]}) for s in store["guides"][0]["steps"])
    assert first["selected"] == ["R2"]
    assert {r["id"]: r["outcome"] for r in first["records"]}["R1"] == "superseded"
    assert (first["coverage"]["found"], first["coverage"]["total"]) == (1, 1)
    assert second["selected"] == ["R1", "R2"]


def test_readme_golden_example_holds_on_readme_store() -> None:
    """The golden-case example in the README is true of the README's example store."""
    (block,) = [b for b in readme_json_blocks() if '"expected"' in b]
    check_golden(json.loads(block), readme_example())


def test_readme_own_words_step_is_the_default_store_s_and_its_reading_holds() -> None:
    """The README's step in the learner's own words is the default store's, verbatim, and the
    reading it shows for the example store is the command line's."""
    (step,) = [json.loads(b) for b in readme_json_blocks() if '"look_for"' in b and '"schema"' not in b]
    default = load_json(FIXTURES / "store.json")
    assert step in [s for guide in default["guides"] for s in guide["steps"]]
    text = README_PATH.read_text(encoding="utf-8")
    shown = re.search(r"^   Reading: .*?(?=\n   ```)", text, flags=re.M | re.S)
    assert shown is not None
    question = result_of({"store": readme_example(), "policy": {"question_text": "When can I send a book back?"}})[
        "question"
    ]
    assert [line.strip() for line in shown[0].removeprefix("   Reading:").splitlines()] == [
        claim["text"] for claim in question["reading"]
    ]
    returned = result_of(
        {
            "store": readme_example(),
            "policy": {
                "question_text": "When can I return a book?",
                "tenant": "alder-books",
                "store": "semantic",
                "previous_sessions": True,
            },
        }
    )
    assert returned["selected"] == ["R2"]


def first_record(data: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = data["records"][0]
    return record


def set_field(value: Any, field: str = "store") -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        first_record(data)[field] = value

    return change


def drop_field(field: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        del first_record(data)[field]

    return change


def add_top_level(data: dict[str, Any]) -> None:
    data["owner"] = "someone"


def add_record_field(data: dict[str, Any]) -> None:
    first_record(data)["priority"] = 1


def empty_records(data: dict[str, Any]) -> None:
    data["records"] = []


def bad_guide_budget(data: dict[str, Any]) -> None:
    data["guides"][0]["steps"][0]["policy"]["budget_words"] = 501


def bad_guide_store(data: dict[str, Any]) -> None:
    data["guides"][0]["steps"][0]["policy"]["store"] = "long-term"


def bad_guide_closing(data: dict[str, Any]) -> None:
    data["guides"][0]["closing"] = ["not", "text"]


# Each malformed variant of the support store, and the path the engine names for it.
MALFORMED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("unknown-store", set_field("long-term"), "records[0].store"),
    ("negative-age", set_field(-1, "age_hours"), "records[0].age_hours"),
    ("empty-text", set_field("   ", "text"), "records[0].text"),
    ("empty-key", set_field("", "key"), "records[0].key"),
    ("missing-key", drop_field("key"), "records[0].key"),
    ("missing-session", drop_field("session"), "records[0].session"),
    ("extra-record-field", add_record_field, "records[0].priority"),
    ("extra-top-level-field", add_top_level, "store.owner"),
    ("no-records", empty_records, "records"),
    ("guide-budget-out-of-range", bad_guide_budget, "guides[0].steps[0].policy.budget_words"),
    ("guide-unknown-store", bad_guide_store, "guides[0].steps[0].policy.store"),
    ("guide-closing-not-text", bad_guide_closing, "guides[0].closing"),
]


@pytest.mark.parametrize("name, change, engine_path", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_store_is_rejected_by_schema_and_engine(
    name: str, change: Callable[[dict[str, Any]], None], engine_path: str, validator: Draft202012Validator
) -> None:
    """A malformed store fails the schema, and the engine refuses it naming the bad value's path."""
    data = copy.deepcopy(load_json(FIXTURES / "support-store.json"))
    change(data)
    assert schema_errors(validator, data), "the schema accepted it"
    with pytest.raises(engine.InputError) as caught:
        engine.parse_store(data)
    assert caught.value.name == "InvalidStore"
    assert engine_path in [path for path, _ in caught.value.problems]
    error = error_of({"store": data})
    assert error["name"] == "InvalidStore"
    assert engine_path in [problem["path"] for problem in error["problems"]]


def test_a_step_shows_a_stage_a_record_of_the_store_and_a_known_part() -> None:
    """shows.stage 1 to 4, shows.record an id of the store, shows.part one of GUIDE_PARTS: each problem with its path."""
    data = copy.deepcopy(load_json(FIXTURES / "support-store.json"))
    data["guides"][0]["steps"][0]["shows"] = {"stage": 5, "record": "S99", "part": "footer"}
    with pytest.raises(engine.InputError) as caught:
        engine.parse_store(data)
    paths = [path for path, _ in caught.value.problems]
    assert paths == [f"guides[0].steps[0].shows.{name}" for name in ("stage", "record", "part")]
    data["guides"][0]["steps"][0]["shows"] = {"stage": 2, "record": "S1", "part": "table"}
    engine.parse_store(data)


def test_cross_field_rules_pass_the_schema_but_not_the_engine(validator: Draft202012Validator) -> None:
    """Duplicate ids and unknown supporting ids pass the schema; only the engine catches them."""
    data = copy.deepcopy(load_json(FIXTURES / "support-store.json"))
    data["records"][1]["id"] = data["records"][0]["id"]
    data["questions"][0]["supporting"]["harbor-coffee"] = ["S99"]
    assert schema_errors(validator, data) == []
    with pytest.raises(engine.InputError) as caught:
        engine.parse_store(data)
    paths = [path for path, _ in caught.value.problems]
    assert "records[1].id" in paths
    assert "questions[0].supporting.harbor-coffee[0]" in paths


def test_dollar_schema_key_is_accepted_by_schema_and_engine(validator: Draft202012Validator) -> None:
    """A "$schema" key pointing editors at the schema is allowed by both the schema and the engine."""
    data = load_json(FIXTURES / "support-store.json")
    data = {"$schema": "./store.schema.json", **data}
    assert schema_errors(validator, data) == []
    engine.parse_store(data)


def check_golden(case: dict[str, Any], store: Any) -> None:
    """The shared golden-case check, and a one-line description."""
    assert "\n" not in case["description"]
    assert_golden_case(case, store)


def test_golden_support_has_five_to_eight_cases() -> None:
    """fixtures/golden-support/ holds between five and eight cases."""
    assert 5 <= len(GOLDEN_SUPPORT_FILES) <= 8


@pytest.mark.parametrize("path", GOLDEN_SUPPORT_FILES, ids=lambda p: p.stem)
def test_golden_support_case(path: Path) -> None:
    """Each support-store golden case holds: tray, words used, every outcome, coverage."""
    check_golden(load_json(path), load_json(FIXTURES / "support-store.json"))


@pytest.mark.parametrize("path", STORE_FILES, ids=lambda p: p.stem)
def test_every_guide_step_policy_is_valid(path: Path) -> None:
    """Every guide step's policy in both stores passes engine.parse_policy."""
    data = load_json(path)
    store = engine.parse_store(data)
    steps = [step for guide in data["guides"] for step in guide["steps"]]
    assert steps
    for step in steps:
        engine.parse_policy(step.get("policy", {}), store)


def support_step(guide_id: str, number: int) -> dict[str, Any]:
    data = load_json(FIXTURES / "support-store.json")
    (guide,) = [g for g in data["guides"] if g["id"] == guide_id]
    result = engine.run({"store": data, "policy": guide["steps"][number - 1]["policy"]})
    assert "error" not in result
    return dict(result)


def outcomes(result: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["outcome"] for r in result["records"]}


def coverage_pair(result: dict[str, Any]) -> tuple[int, int]:
    return result["coverage"]["found"], result["coverage"]["total"]


def cosine_of(result: dict[str, Any], record_id: str) -> str:
    return next(f"{r['cosine']:.3f}" for r in result["records"] if r["id"] == record_id)


def test_support_guide_current_refund_rule_says_what_happens() -> None:
    """The support store's refund guide: each step's look_for matches the engine's result."""
    step = support_step("current-refund-rule", 1)
    assert (step["selected"], step["words_used"], coverage_pair(step)) == (["S5"], 12, (0, 1))
    assert outcomes(step)["S6"] == "no_shared_terms"

    step = support_step("current-refund-rule", 2)
    assert (step["selected"], coverage_pair(step), outcomes(step)["S1"]) == (["S2"], (1, 1), "superseded")
    assert (cosine_of(step, "S1"), cosine_of(step, "S2")) == ("0.339", "0.330")

    step = support_step("current-refund-rule", 3)
    assert (step["selected"], step["words_used"], coverage_pair(step)) == (["S1", "S2"], 35, (1, 1))

    step = support_step("current-refund-rule", 4)
    assert (step["selected"], coverage_pair(step)) == ([], (0, 1))
    assert (outcomes(step)["S1"], outcomes(step)["S2"]) == ("superseded", "previous_session")

    step = support_step("current-refund-rule", 5)
    assert (step["selected"], coverage_pair(step), outcomes(step)["S8"]) == (["S9"], (1, 1), "superseded")
    assert outcomes(step)["S2"] == "other_tenant"
    assert (cosine_of(step, "S2"), cosine_of(step, "S9")) == ("0.330", "0.327")


def test_support_guide_pack_the_tray_says_what_happens() -> None:
    """The support store's packing guide: greedy skip, exact fit, and no shared terms at recency 1."""
    step = support_step("pack-the-tray", 1)
    assert (step["ranked"], step["selected"], step["words_used"]) == (["S4", "S7"], ["S7"], 17)
    assert (outcomes(step)["S4"], coverage_pair(step)) == ("over_budget", (0, 1))

    step = support_step("pack-the-tray", 2)
    assert (step["selected"], step["words_used"], coverage_pair(step)) == (["S4"], 30, (1, 1))
    assert outcomes(step)["S7"] == "over_budget"

    step = support_step("pack-the-tray", 3)
    scores = {r["id"]: round(r["score"], 3) for r in step["records"]}
    assert step["policy"]["recency_weight"] == 1
    assert (step["selected"], outcomes(step)["S6"]) == (["S5"], "no_shared_terms")
    assert (scores["S6"], scores["S5"]) == (0.994, 0.986)
    assert max(scores, key=lambda rid: scores[rid]) == "S6"


def test_the_schema_lists_the_guide_parts_the_engine_knows() -> None:
    """A step's shows.part is one of engine.fields.GUIDE_PARTS, in the schema as in the parser."""
    from engine.fields import GUIDE_PARTS

    schema = json.loads((FIXTURES / "store.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["step"]["properties"]["shows"]["properties"]["part"]["enum"] == list(GUIDE_PARTS)


def test_the_schema_declares_the_objects_the_format_table_declares() -> None:
    """Each object of engine/store_format.py's table has, in the schema, the same fields in
    the same order and the same required ones (the editor's forms and the parser read the table)."""
    from engine.store_format import FORMAT

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    objects = {"store": schema, "shows": defs["step"]["properties"]["shows"]} | {
        kind: defs[kind] for kind in FORMAT if kind not in ("store", "shows")
    }
    for kind, rows in FORMAT.items():
        spec = objects[kind]
        assert list(spec["properties"]) == [f.name for f in rows], kind
        assert sorted(spec.get("required", [])) == sorted(f.name for f in rows if f.required), kind


def test_a_record_field_the_table_bounds_is_refused_out_of_bounds() -> None:
    """The parser reads each record field by its row: a missing required field, a choice
    outside its values and a negative age are each refused at that field's path."""
    from engine.store_format import RECORD

    store = load_json(FIXTURES / "store.json")
    for row in (row for row in RECORD if row.required):
        broken = copy.deepcopy(store)
        del broken["records"][2][row.name]
        problems = {p["path"]: p["message"] for p in error_of({"store": broken, "policy": {}})["problems"]}
        assert problems[f"records[2].{row.name}"].startswith("is missing"), row.name
    broken = copy.deepcopy(store)
    broken["records"][0] |= {"store": "attic", "age_hours": -1, "tenant": "team-z"}
    problems = {p["path"]: p["message"] for p in error_of({"store": broken, "policy": {}})["problems"]}
    assert problems["records[0].store"] == '"attic" is not one of semantic, episodic, procedural, working'
    assert problems["records[0].age_hours"] == "must not be negative, not -1"
    assert problems["records[0].tenant"].startswith('"team-z" is not one of the tenants (')


def test_a_record_may_state_its_importance_from_1_to_10_and_is_5_without() -> None:
    """Importance is optional: absent it is 5, a whole number from 1 to 10 is kept, and
    anything else is refused at its path with the row's rule."""
    store = load_json(FIXTURES / "store.json")
    rated = copy.deepcopy(store)
    rated["records"][0]["importance"] = 9
    rated["records"][1]["importance"] = 1
    rows = engine.run({"store": rated})["records"]  # type: ignore[typeddict-item]
    assert [row["importance"] for row in rows] == [9, 1] + [5] * 8
    for bad in (0, 11, 2.5, "7", True, None):
        broken = copy.deepcopy(store)
        broken["records"][4]["importance"] = bad
        problems = {p["path"]: p["message"] for p in error_of({"store": broken, "policy": {}})["problems"]}
        assert problems["records[4].importance"].startswith("must be a whole number from 1 to 10, not"), bad

"""The page's JSDoc types of the engine's JSON shapes are generated from engine/shapes.py
(sitebuild/shapes_js.py), and the committed copy is the generated one."""

from __future__ import annotations

import re
import typing
from typing import Any, Literal, TypedDict

import pytest

from engine import shapes
from harness import ROOT
from sitebuild.shapes_js import js_type, shape_classes, shapes_js

REGENERATE = "run `python build.py --write-tables` after editing engine/shapes.py"


def test_the_generated_shapes_module_is_current() -> None:
    """site/js/core/shapes.js is exactly what engine/shapes.py generates."""
    assert (ROOT / "site" / "js" / "core" / "shapes.js").read_text(encoding="utf-8") == shapes_js(), REGENERATE


def test_every_shape_becomes_one_typedef_with_every_key() -> None:
    """Each TypedDict in engine/shapes.py, and no other, has a typedef listing its keys
    (its bases' too) in declared order."""
    module = shapes_js()
    declared = [name for name, value in vars(shapes).items() if typing.is_typeddict(value)]
    assert [shape.__name__ for shape in shape_classes()] == declared
    assert re.findall(r"@typedef \{object\} (\w+)", module) == declared
    result = module.split("@typedef {object} Result\n")[1].split(" */")[0]
    keys = re.findall(r"@property \{[^}]+\} (\w+)", result)
    assert keys == [*shapes.Head.__annotations__, *shapes.Summary.__annotations__, "records"]


def test_python_types_read_as_their_json_types() -> None:
    """Numbers, strings, null, lists, unions, literals and shapes by name; the policy is
    the field table's Policy."""

    class Sample(TypedDict):
        count: int
        ratio: float
        flag: bool
        name: str | None
        ranks: list[int | None]
        parts: list[list[shapes.TermPart]] | None
        mode: Literal["a", "b"]
        extra: dict[str, Any]

    hints = typing.get_type_hints(Sample)
    assert {key: js_type(hint) for key, hint in hints.items()} == {
        "count": "number",
        "ratio": "number",
        "flag": "boolean",
        "name": "string | null",
        "ranks": "(number | null)[]",
        "parts": "TermPart[][] | null",
        "mode": '"a" | "b"',
        "extra": "Record<string, unknown>",
    }
    assert "@property {Policy} policy" in shapes_js()


def test_a_type_with_no_json_form_is_refused() -> None:
    """A shape holding something JSON cannot carry fails the generation, never reads as any."""
    with pytest.raises(TypeError, match="no JSDoc type"):
        js_type(set[str])


def test_the_answer_s_columns_are_the_unmarked_keys_of_a_record_and_each_scorer_s_own_score() -> None:
    """The answer carries exactly the record keys engine/shapes.py does not mark as held by
    the page, in record order; its score columns are the scorer rows' own, in table order,
    and the command line's column table names the same; recordAt reads every record key."""
    from engine.scorers import COLUMNS, SCORERS

    record_keys = list(typing.get_type_hints(shapes.RecordResult))
    assert list(shapes.RECORD_SOURCES) == record_keys
    assert list(shapes.ANSWER_COLUMNS) == [k for k in record_keys if shapes.RECORD_SOURCES[k] == shapes.ANSWER]
    answer = shapes.json_hints(shapes.Answer)
    keys = list(answer)
    at = keys.index("ids") + 1
    assert keys[at : at + len(shapes.ANSWER_COLUMNS)] == list(shapes.ANSWER_COLUMNS)
    assert [k for k in shapes.ANSWER_COLUMNS if k in COLUMNS] == [s.column for s in SCORERS] == list(COLUMNS)
    reads = re.findall(r"^    (\w+): ", shapes_js().split("export function recordAt")[1], flags=re.M)
    assert reads == record_keys

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

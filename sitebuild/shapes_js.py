"""site/js/core/shapes.js: the page's JSDoc types of the engine's JSON shapes, generated
from the TypedDicts in engine/shapes.py (`python build.py --write-tables` rewrites it)."""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from typing import Any

from engine import shapes

# A result's policy is described by the field table, whose generated tables.js gives the
# page its type (shapes.py types it as a plain dict for that reason).
OVERRIDES = {"policy": "Policy"}


def shape_classes() -> list[type]:
    """The TypedDicts engine/shapes.py declares, in the order it declares them."""
    return [
        value
        for value in vars(shapes).values()
        if typing.is_typeddict(value) and getattr(value, "__module__", None) == shapes.__name__
    ]


def shape_keys(shape: type) -> list[str]:
    """A shape's keys in JSON order, its bases' first (an answer's columns after ``ids``)."""
    return list(shapes.json_hints(shape))


def js_type(hint: Any) -> str:
    """The JSDoc (TypeScript) type of a TypedDict value's annotation."""
    simple = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null", Any: "unknown"}
    if hint in simple:
        return simple[hint]
    if typing.is_typeddict(hint):
        return str(hint.__name__)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        item = js_type(args[0])
        return f"({item})[]" if " | " in item else f"{item}[]"
    if origin is dict:
        return f"Record<{js_type(args[0])}, {js_type(args[1])}>"
    if origin in (types.UnionType, typing.Union):
        return " | ".join(js_type(arg) for arg in args)
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    raise TypeError(f"no JSDoc type for {hint!r}")


def _typedef(shape: type) -> str:
    doc = shape.__dict__.get("__doc__")
    # Docstrings mark code ``so``; JSDoc renders Markdown, where it is `so`.
    lines = re.sub(r"``([^`]+)``", r"`\1`", inspect.cleandoc(doc)).splitlines() if doc else []
    hints = shapes.json_hints(shape)
    properties = [f"@property {{{OVERRIDES.get(key) or js_type(hint)}}} {key}" for key, hint in hints.items()]
    body = [*lines, f"@typedef {{object}} {shape.__name__}", *properties]
    return "/**\n" + "".join(f" * {line}".rstrip() + "\n" for line in body) + " */\n"


# How the page reads a record's key at position ``i``, by where engine/shapes.py says it gets it.
_READS = {
    "store": "record.{key}",
    "opened": "opened.{key}[i]",
    "outcome": "outcomes[answer.outcome[i]].{key}",
    "parts": "parts[i]",
    "answer": "answer.{key}[i]",
}


def _opened_columns() -> str:
    """The open reply's per-record columns as a JSDoc object type's members."""
    hints = typing.get_type_hints(shapes.Opened)
    return ", ".join(f"{key}: {js_type(hint)}" for key, hint in hints.items() if key != "records")


def record_at_js() -> str:
    """``recordAt``: one record of a full result, its keys in order, each read from where
    the page gets it. Generated as one object literal, so the page builds every record of
    a large store as fast as code written out by hand."""
    hints = typing.get_type_hints(shapes.RecordResult)
    lines = []
    for key, source in shapes.RECORD_SOURCES.items():
        read = _READS[source].format(key=key)
        if source == "answer" and typing.get_origin(hints[key]) is dict:
            read = f"perScorer(answer.{key}, i)"
        lines.append(f"    {key}: {read},\n")
    return (
        "/**\n * The record at position i of a full result, each key read from where the page gets it\n"
        " * (RECORD_SOURCES): the store's record, the open reply, the outcome table, the answer's\n"
        " * columns or the per-term parts.\n"
        " * @param {any} record @param {number} i @param {Answer} answer\n"
        f" * @param {{{{{_opened_columns()}}}}} opened\n"
        ' * @param {typeof import("./tables.js").OUTCOME_TABLE} outcomes  the outcome table, by code\n'
        ' * @param {RecordResult["terms"][]} parts\n'
        " * @returns {RecordResult}\n */\n"
        "export function recordAt(record, i, answer, opened, outcomes, parts) {\n"
        "  return {\n" + "".join(lines) + "  };\n}\n\n"
        "/**\n * A record's value under each scorer, from one column per scorer.\n"
        " * @template T @param {Record<string, T[]>} columns @param {number} i @returns {Record<string, T>}\n */\n"
        "function perScorer(columns, i) {\n"
        "  /** @type {Record<string, T>} */\n"
        "  const values = {};\n"
        "  for (const scorer in columns) values[scorer] = columns[scorer][i];\n"
        "  return values;\n}\n"
    )


def shapes_js() -> str:
    """The generated module: one typedef per shape, and each shape's keys for tests."""
    classes = shape_classes()
    keys = {shape.__name__: shape_keys(shape) for shape in classes}
    return (
        "// The JSON shapes that cross the worker boundary, as JSDoc types: engine/shapes.py's.\n"
        "// Generated from it by `python build.py --write-tables`; do not edit.\n"
        "// tests/test_shapes_js.py checks this copy.\n\n"
        '/** @typedef {import("./tables.js").Policy} Policy  generated from engine/fields.py */\n\n'
        + "\n".join(_typedef(shape) for shape in classes)
        + "\n/** Each shape's keys in JSON order (a shape's bases first). */\n"
        + f"export const SHAPE_KEYS = Object.freeze({json.dumps(keys, indent=2)});\n"
        + "\n/**\n * Where the page gets each key of a record, in order: a column of the answer, the store it\n"
        + " * opened, the open reply, the outcome table (the row of the record's outcome), or the parts.\n"
        + f" * @type {{Readonly<Record<keyof RecordResult, {js_type(shapes.Source)}>>}}\n */\n"
        + f"export const RECORD_SOURCES = Object.freeze({json.dumps(shapes.RECORD_SOURCES, indent=2)});\n\n"
        + record_at_js()
    )

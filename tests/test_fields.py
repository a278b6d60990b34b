"""The field and outcome tables are the one source: the policy type, the command line,
the generated page table and the store schema all derive from them and stay in step."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys

import pytest

import engine
from engine import fields
from engine.model import Policy
from harness import ROOT
from harness.fixtures import FIXTURES

REGENERATE = "run `python build.py --write-tables` after editing engine/fields.py"


def test_the_generated_page_table_is_current() -> None:
    """site/js/core/tables.js is exactly what the field and outcome tables generate."""
    assert (ROOT / "site" / "js" / "core" / "tables.js").read_text(encoding="utf-8") == fields.tables_js(), REGENERATE


def test_the_generated_scorer_table_is_current() -> None:
    """site/js/core/scorers.js is exactly what engine/scorers.py generates."""
    from engine.scorers import scorers_js

    assert (ROOT / "site" / "js" / "core" / "scorers.js").read_text(encoding="utf-8") == scorers_js(), REGENERATE


def test_the_store_schema_declares_the_policy_the_table_defines() -> None:
    schema = json.loads((FIXTURES / "store.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["policy"] == fields.policy_schema(), REGENERATE


def test_policy_type_defaults_and_names_follow_the_table() -> None:
    names = [f.name for f in fields.FIELDS]
    assert [f.name for f in dataclasses.fields(Policy)] == names
    assert list(engine.POLICY_FIELDS) == names and list(engine.DEFAULT_POLICY) == names
    assert len(set(names)) == len(names) and len({f.label for f in fields.FIELDS}) == len(names)
    for field in fields.FIELDS:
        assert field.label and field.help, field.name
        if field.kind in ("number", "int"):
            assert field.minimum is not None and field.maximum is not None
            assert field.minimum <= engine.DEFAULT_POLICY[field.name] <= field.maximum
        if field.kind == "choice":
            assert bool(field.choices) != bool(field.choices_from), field.name


def test_every_field_is_a_command_line_flag_with_its_help() -> None:
    """--help names each field's flag and help sentence; each flag sets that field."""
    help_text = " ".join(
        subprocess.run(
            [sys.executable, "-m", "engine", "--help"], capture_output=True, text=True, cwd=ROOT
        ).stdout.split()
    )
    for field in fields.FIELDS:
        assert field.flag in help_text and field.help in help_text, field.name


def test_outcome_table_orders_the_checks_and_names_their_stages() -> None:
    assert engine.OUTCOMES == (
        "not_written_yet",
        "other_tenant",
        "not_true_yet",
        "superseded",
        "store_filtered",
        "previous_session",
        "too_old",
        "no_shared_terms",
        "below_similarity",
        "selected",
        "over_budget",
        "record_limit",
        "too_similar",
    )
    assert [o.stage for o in engine.OUTCOME_TABLE] == sorted(o.stage for o in engine.OUTCOME_TABLE)
    store = json.loads((FIXTURES / "store.json").read_text(encoding="utf-8"))
    result = engine.run({"store": store, "policy": {"store": "all", "previous_sessions": True}})
    for row in result["records"]:  # type: ignore[typeddict-item]
        assert row["stage"] == fields.OUTCOME_STAGE[row["outcome"]]


def scorer_identity_checks(text: str) -> list[tuple[int, str]]:
    """The lines of a source that branch on a scorer's name: compare a value with one
    (``== "bm25"``, ``in "hybrid"``, ``is``, ``case "tfidf"``), look one up (``["hybrid"]``,
    ``.get("embedding")``, ``.has(``, ``.includes(``), or test membership in a set of names
    derived from the table (``in EMBEDDING_SCORERS``, ``VECTOR_SCORERS.includes(``); a loop
    over such a set is no branch."""
    from engine.scorers import SCORER_IDS

    name = "[\"'](?:" + "|".join(SCORER_IDS) + ")[\"']"
    checks = re.compile(
        rf"(?:===?|!==?|\bin|\bis(?:\s+not)?)\s*{name}"
        rf"|{name}\s*(?:===?|!==?|\bin\b|\bis\b)"
        rf"|\bcase\s+{name}"
        rf"|\[\s*{name}\s*\]"
        rf"|\.(?:get|has|includes|indexOf|pop|setdefault)\(\s*{name}"
        r"|(?P<loop>\bfor\s+\w+\s+)?\bin\s+[A-Z]+_SCORERS\b"
        r"|\b[A-Z]+_SCORERS\.(?:includes|has|indexOf)\("
    )
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if any(not match.group("loop") for match in checks.finditer(line))
    ]


def test_the_identity_check_pattern_catches_every_form() -> None:
    """Each way of branching on a scorer's name is caught, and a loop or a declaration is not."""
    caught = [
        'if policy.scorer == "bm25":',
        "if (scorer === 'hybrid') {",
        'if "embedding" != scorer:',
        'if d.scoring is d.scorings.get("embedding") and first:',
        'fusion = scorings["hybrid"]',
        "const why = reasons['tfidf'];",
        'case "bm25":',
        "if policy.scorer in EMBEDDING_SCORERS:",
        "if (VECTOR_SCORERS.includes(scorer)) load();",
        'if scorer.words == "bm25":',
    ]
    passed = [
        'Scoring("tfidf", scores.cosines, parts)',
        'shown_with=("scorer", "bm25"),',
        "for name in EMBEDDING_SCORERS:",
        "EMBEDDING_SCORERS = tuple(s.id for s in SCORERS if s.vectors)",
        "row = SCORERS_BY_ID[policy.scorer]",
        "const total = r.bm25 + r.cosine;",
    ]
    assert [line for line in caught if not scorer_identity_checks(line)] == []
    assert [line for line in passed if scorer_identity_checks(line)] == []


def test_no_code_branches_on_a_scorer_s_name_outside_its_table() -> None:
    """No code outside engine/scorers.py and the generated files compares a scorer's id with
    a literal, looks one up by name, or tests membership in a set of names: everything asks
    the scorer table (a row's needs, columns, module, words, pieces, vectors)."""
    generated = {"site/js/core/scorers.js", "site/js/core/tables.js", "site/js/core/shapes.js", "engine/scorers.py"}
    found = []
    for folder, pattern in (("engine", "*.py"), ("site/js", "*.js"), ("sitebuild", "*.py"), ("tools", "*.mjs")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            name = path.relative_to(ROOT).as_posix()
            if name in generated:
                continue
            for number, line in scorer_identity_checks(path.read_text(encoding="utf-8")):
                found.append(f"{name}:{number}: {line}")
    assert found == []


def test_an_answer_reads_the_question_under_what_the_scorer_table_declares() -> None:
    """A row's needs come before it in the table; an answer ranked by a scorer reads the
    question under those every answer reads, that scorer and all it needs (its ranks name
    exactly those), and each scorer's own column is filled only when it was read."""
    from engine.scorers import READ_FOR, SCORERS

    order = [s.id for s in SCORERS]
    assert all(order.index(need) < order.index(s.id) for s in SCORERS for need in s.needs)
    assert [s.column for s in SCORERS] == list(dict.fromkeys(s.column for s in SCORERS))
    store = json.loads((FIXTURES / "store.json").read_text(encoding="utf-8"))
    session = engine.Session(engine.parse_store(store), vectors=engine.load_vectors)
    for row in SCORERS:
        read = [s.id for s in READ_FOR[row.id]]
        assert {row.id, *row.needs, *(s.id for s in SCORERS if s.every_answer)} <= set(read)
        assert all(set(SCORERS[order.index(name)].needs) <= set(read) for name in read)
        records = session.run({"scorer": row.id, "store": "all", "previous_sessions": True})["records"]  # type: ignore[typeddict-item]
        assert all(list(record["ranks"]) == read for record in records)
        assert [s.id for s in SCORERS if any(record[s.column] is not None for record in records)] == read


def test_every_row_names_an_engine_module_with_its_function() -> None:
    """A scorer's module reads (``read``), a blend's weighs (``weigh``), a packing rule's packs (``pack``)."""
    import importlib

    from engine.scorers import BLENDS, PACKINGS, SCORERS

    for rows, function in ((SCORERS, "read"), (BLENDS, "weigh"), (PACKINGS, "pack")):
        for row in rows:
            assert callable(getattr(importlib.import_module(f"engine.{row.module}"), function)), row.id


def test_the_session_blends_and_packs_by_the_rows_in_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """The score and the tray come from the engine functions the blend and packing rows name."""
    from engine import pack, scoring
    from engine.scorers import blend_for, packing_for

    default = engine.parse_policy(
        {}, engine.parse_store(json.loads((FIXTURES / "store.json").read_text(encoding="utf-8")))
    )
    assert (blend_for(default).module, packing_for(default).module) == ("scoring", "pack")
    monkeypatch.setattr(scoring, "weigh", lambda asking: lambda relevance, positions: [0.5 for _ in positions])
    monkeypatch.setattr(
        pack,
        "pack",
        lambda ranked, asking: [pack.Packed(c.id, place, "record_limit", "none") for place, c in enumerate(ranked, 1)],
    )
    result = engine.run({"store": json.loads((FIXTURES / "store.json").read_text(encoding="utf-8"))})
    assert {row["score"] for row in result["records"]} == {0.5}  # type: ignore[typeddict-item]
    assert result["selected"] == []  # type: ignore[typeddict-item]

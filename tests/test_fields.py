"""The field and outcome tables are the one source: the policy type, the command line,
the generated page table and the store schema all derive from them and stay in step."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys

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
        "other_tenant",
        "superseded",
        "store_filtered",
        "previous_session",
        "too_old",
        "no_shared_terms",
        "below_similarity",
        "selected",
        "over_budget",
        "record_limit",
    )
    assert [o.stage for o in engine.OUTCOME_TABLE] == sorted(o.stage for o in engine.OUTCOME_TABLE)
    store = json.loads((FIXTURES / "store.json").read_text(encoding="utf-8"))
    result = engine.run({"store": store, "policy": {"store": "all", "previous_sessions": True}})
    for row in result["records"]:  # type: ignore[typeddict-item]
        assert row["stage"] == fields.OUTCOME_STAGE[row["outcome"]]


def test_a_scorer_is_named_in_comparisons_in_few_places_outside_its_table() -> None:
    """Code compares a scorer's id with a literal in at most 4 places outside engine/scorers.py
    and the generated files: everything else asks the scorer table."""
    from engine.scorers import SCORER_IDS

    names = "|".join(SCORER_IDS)
    compared = re.compile(
        rf"""(?:===?|!==?|\bin\b)\s*["'](?:{names})["']|["'](?:{names})["']\s*(?:===?|!==?)|case\s+["'](?:{names})["']"""
    )
    generated = {"site/js/core/scorers.js", "site/js/core/tables.js", "site/js/core/shapes.js", "engine/scorers.py"}
    found = []
    for folder, pattern in (("engine", "*.py"), ("site/js", "*.js"), ("sitebuild", "*.py"), ("tools", "*.mjs")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            name = path.relative_to(ROOT).as_posix()
            if name in generated:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if compared.search(line):
                    found.append(f"{name}:{number}: {line.strip()}")
    assert len(found) <= 4, "\n".join(found)

"""The command line: table, JSON, flags spelled as the policy fields, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.fields import MIN_SIMILARITY
from harness import ROOT


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT)


def test_table_shows_records_tray_and_coverage() -> None:
    """The default run prints every record with its outcome, the tray and the coverage."""
    out = cli("--question", "timeout-incident", "--budget-words", "9")
    assert out.returncode == 0, out.stderr
    assert "Selected context: M5  (9 of 9 words)" in out.stdout
    assert "Coverage: 0 of 1 supporting (M3)" in out.stdout
    for rid in [f"M{i}" for i in range(1, 11)]:
        assert f"\n{rid} " in out.stdout
    assert "no_shared_terms" in out.stdout


def test_bm25_is_chosen_with_its_flags_and_the_table_shows_both_ranks() -> None:
    """--scorer bm25 --bm25-k1 --bm25-b: the table names the scorer and brackets TF-IDF's rank."""
    out = cli(
        *("--question-text", "checkout deployment", "--store", "all", "--previous-sessions"),
        *("--max-records", "2", "--scorer", "bm25", "--bm25-k1", "1.2", "--bm25-b", "0.75"),
    )
    assert out.returncode == 0, out.stderr
    assert "scorer=bm25 bm25_k1=1.2 bm25_b=0.75" in out.stdout
    assert "Score:    BM25 blended with recency; rank (TF-IDF) is the rank the other scorer gives" in out.stdout
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines() if line.startswith("M")}
    assert rows["M3"][5:7] == ["2", "(3)"] and rows["M10"][5:7] == ["3", "(2)"]
    assert "Selected context: M5, M3  (28 of 40 words)" in out.stdout


def test_json_output_equals_the_engine_result() -> None:
    """--json prints the result object, with the policy built from every flag."""
    out = cli(
        "--json",
        "--tenant",
        "team-b",
        "--store",
        "semantic",
        "--previous-sessions",
        "--max-age-hours",
        "500",
        "--no-latest-per-key",
        "--recency-weight",
        "0.25",
        "--budget-words",
        "30",
        "--max-records",
        "2",
    )
    result = json.loads(out.stdout)
    assert result["policy"] == {
        "question": "deployment-region",
        "tenant": "team-b",
        "store": "semantic",
        "previous_sessions": True,
        "max_age_hours": 500,
        "latest_per_key": False,
        "scorer": "tfidf",
        "bm25_k1": 1.2,
        "bm25_b": 0.75,
        "min_similarity": MIN_SIMILARITY,
        "rrf_k": 60,
        "recency_weight": 0.25,
        "budget_words": 30,
        "max_records": 2,
        "question_text": "",
    }
    assert result["selected"][0] == "M9"


def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    """Out-of-range values, bad types, missing or malformed files: status 2 and one line."""
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    cases = [
        (("--budget-words", "900"), "policy.budget_words: must be a whole number from 0 to 500"),
        (("--budget-words", "x"), "--budget-words: invalid int value"),
        (("--fixtures", str(tmp_path / "none.json")), "does not exist"),
        (("--fixtures", str(broken)), "is not valid JSON"),
        (("--store", "semntic"), "invalid choice"),
    ]
    for args, message in cases:
        out = cli(*args)
        assert out.returncode == 2, args
        assert out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr, out.stderr


def test_other_store_and_help() -> None:
    """--fixtures reads another store; --help explains every policy flag."""
    out = cli("--fixtures", str(ROOT / "fixtures" / "store.json"), "--json")
    assert json.loads(out.stdout)["counts"]["stored"] == 10
    help_text = cli("--help").stdout
    for flag in (
        "--question",
        "--tenant",
        "--store",
        "--previous-sessions",
        "--max-age-hours",
        "--latest-per-key",
        "--recency-weight",
        "--budget-words",
        "--max-records",
        "--fixtures",
        "--json",
    ):
        assert flag in help_text

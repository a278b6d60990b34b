"""The command line: table, JSON, flags spelled as the policy fields, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.__main__ import main
from engine.fields import FIELDS, MIN_SIMILARITY, Field
from engine.parse import NO_WORDS
from harness import ROOT
from harness.fixtures import STORE
from sitebuild.files import BuildError
from sitebuild.store import load_store


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
    """--scorer bm25 --bm25-k1 --bm25-b: the table names the scorer and gives TF-IDF's rank in a column named for it."""
    out = cli(
        *("--question-text", "checkout deployment", "--store", "all", "--previous-sessions"),
        *("--max-records", "2", "--scorer", "bm25", "--bm25-k1", "1.2", "--bm25-b", "0.75"),
    )
    assert out.returncode == 0, out.stderr
    assert "scorer=bm25 bm25_k1=1.2 bm25_b=0.75" in out.stdout
    assert "Score:    BM25: score = (1 - recency weight) x relative BM25 + recency weight x 2^(-age/24)" in out.stdout
    assert "ID     words    BM25  cosine   score #BM25 #TF-IDF  outcome and reason" in out.stdout
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines() if line.startswith("M")}
    assert rows["M3"][5:7] == ["2", "3"] and rows["M10"][5:7] == ["3", "2"]
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
        "--blend",
        "generative-agents",
        "--ga-decay",
        "0.99",
        "--ga-recency-weight",
        "0.5",
        "--ga-importance-weight",
        "2",
        "--ga-relevance-weight",
        "3",
        "--mmr-lambda",
        "0.7",
    )
    result = json.loads(out.stdout)
    assert result["policy"] == {
        "question": "deployment-region",
        "tenant": "team-b",
        "store": "semantic",
        "previous_sessions": True,
        "max_age_hours": 500,
        "latest_per_key": False,
        "as_of_hours": 0,
        "latest_by": "written",
        "scorer": "tfidf",
        "bm25_k1": 1.2,
        "bm25_b": 0.75,
        "min_similarity": MIN_SIMILARITY,
        "rrf_k": 60,
        "blend": "generative-agents",
        "recency_weight": 0.25,
        "ga_decay": 0.99,
        "ga_recency_weight": 0.5,
        "ga_importance_weight": 2,
        "ga_relevance_weight": 3,
        "budget_words": 30,
        "max_records": 2,
        "mmr_lambda": 0.7,
        "question_text": "",
    }
    assert result["selected"][0] == "M9"
    assert [term["weight"] for term in result["weighing"]["terms"]] == [0.5, 2, 3]


def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    """Out-of-range values, bad types, missing or malformed files: status 2 and one line."""
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    vectors = tmp_path / "vectors.rwse"
    vectors.write_bytes(b"NOPE and more")
    cases = [
        (("--budget-words", "900"), "error: --budget-words: must be a whole number from 0 to 500, not 900"),
        (("--budget-words", "x"), "error: --budget-words: must be a whole number from 0 to 500, not x"),
        (("--fixtures", str(tmp_path / "none.json")), "does not exist"),
        (("--fixtures", str(broken)), "is not valid JSON"),
        (("--store", "semntic"), 'error: --store: "semntic" is not one of semantic, episodic'),
        (
            ("--scorer", "embedding", "--vectors", str(vectors)),
            f'error: --vectors: {vectors}: not a vector file: it does not start with RWSE (it starts with "NOPE")',
        ),
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


def test_the_policy_line_names_the_question_actually_asked() -> None:
    """With an own question, the chosen question is not in force, so the policy line leaves it out."""
    own = cli("--question-text", "Which deploy did not fail?").stdout
    policy = next(line for line in own.splitlines() if line.startswith("Policy:"))
    assert "question=" not in policy.replace("question_text=", "")
    assert 'question_text="Which deploy did not fail?"' in policy
    assert "Question: Which deploy did not fail? (your own question)" in own
    assert (
        "TF-IDF matches only exact words, with no stemming: “deploy” is not “deployment”; “fail” is\n          not “failed”."
        in own
    )
    fixed = cli("--question", "timeout-incident").stdout
    assert "Policy:   question=timeout-incident tenant=team-a" in fixed and "no stemming" not in fixed
    # Under the embedding no word is matched exactly, so the hint is not given.
    meaning = cli("--question-text", "Which deploy did not fail?", "--scorer", "embedding").stdout
    assert "no stemming" not in meaning and "The embedding reads" in meaning


def test_a_malformed_store_is_refused_with_every_problem_and_its_path_as_the_build_does(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": 2, "title": "", "tenants": []}))
    out = cli("--fixtures", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    # A store's problems keep the paths of the store file: that is where they are mended.
    assert lines == [
        f"python -m engine: error: {bad} is not a valid store:",
        "  schema: must be 1, not 2",
        "  store.title: must not be empty",
        "  tenants: must not be empty",
        "  records: is missing",
        "  questions: is missing",
    ]
    with pytest.raises(BuildError) as refused:
        load_store(bad)
    assert str(refused.value).splitlines()[1:] == lines[1:]
    two = cli("--budget-words", "900", "--max-records", "99", "--recency-weight", "2")
    assert two.stderr.strip().splitlines() == [
        "python -m engine: error: these flags are not valid:",
        "  --recency-weight: must be a number from 0 to 1, not 2",
        "  --budget-words: must be a whole number from 0 to 500, not 900",
        "  --max-records: must be a whole number from 1 to 50, not 99",
    ]


BAD_SWITCHES = (("yes", "yes"), ("1", "1"), ("", '""'))


def bad_values(field: Field) -> list[tuple[list[str], str]]:
    """Values of the wrong kind or out of range for one field, each as typed on the command
    line, with the message that must follow its flag: the field's rule, the value as typed."""
    flag = field.flag
    if field.kind in ("number", "int"):
        assert field.minimum is not None and field.maximum is not None
        # "2" was echoed "2.0", and "1e9" "1000000000.0", once argparse had made them floats.
        typed = [f"{field.maximum + 1:g}", "1e9", "x", "nan", f"{field.minimum - 1:g}"]
        typed += ["2.5"] if field.kind == "int" else []
        return [([f"{flag}={value}"], f"{field.rule()}, not {value}") for value in typed]
    if field.kind == "bool":
        # An empty value is shown as "", so that the line does not end in "not ".
        return [([f"{flag}={value}"], f"must be true or false, not {shown}") for value, shown in BAD_SWITCHES]
    if field.kind == "choice":
        allowed = [item["id"] for item in STORE[field.choices_from]] if field.choices_from else list(field.values)
        return [([flag, value], f'"{value}" is not one of {", ".join(allowed)}') for value in ("nope", "SEMANTIC")]
    assert field.kind == "text" and field.max_length is not None
    too_long = "a" * (field.max_length + 1)
    return [([flag, too_long], f"{field.rule()} (this one has {field.max_length + 1})"), ([flag, " \t "], NO_WORDS)]


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The command line run in this process (fast: one store read, no interpreter start)."""
    try:
        status = main(args)
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("field", FIELDS, ids=lambda field: field.name)
def test_every_policy_flag_s_error_names_the_flag_and_echoes_the_value_as_typed(
    field: Field, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the field table: each flag's bad values are refused in one line that names the
    flag typed (not the policy path) and the value as typed (not as Python reads it)."""
    for args, message in bad_values(field):
        status, out, err = run_main(args, capsys)
        assert (status, out) == (2, ""), args
        assert err == f"python -m engine: error: {field.flag}: {message}\n", args


def test_switches_take_true_or_false_as_links_spell_them(capsys: pytest.CaptureFixture[str]) -> None:
    """--previous-sessions=true and --latest-per-key=false set the policy as the flags alone do;
    the --no- form takes no value."""
    status, out, _ = run_main(["--json", "--previous-sessions=true", "--latest-per-key", "false"], capsys)
    policy = json.loads(out)["policy"]
    assert status == 0 and policy["previous_sessions"] is True and policy["latest_per_key"] is False
    status, out, err = run_main(["--no-latest-per-key=true"], capsys)
    assert (status, out) == (2, "")
    assert err == "python -m engine: error: --no-latest-per-key takes no value, not true (see --help)\n"


def test_output_closed_early_ends_quietly() -> None:
    """python -m engine | head: no BrokenPipeError traceback, and status 0."""
    for args in ((), ("--json",)):
        process = subprocess.Popen(
            [sys.executable, "-m", "engine", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before the engine has even been imported, let alone printed
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0 and stderr == "", stderr


def flat(text: str) -> str:
    """Help text on one line, as argparse wrapped it (it breaks ids at their hyphens)."""
    return " ".join(text.split()).replace("- ", "-")


def test_help_lists_the_questions_and_tenants_of_the_store_it_names() -> None:
    """The README's `--fixtures fixtures/support-store.json --help` shows that store's ids."""
    support = json.loads((ROOT / "fixtures" / "support-store.json").read_text(encoding="utf-8"))
    default = json.loads((ROOT / "fixtures" / "store.json").read_text(encoding="utf-8"))
    theirs = flat(cli("--fixtures", "fixtures/support-store.json", "--help").stdout)
    ours = flat(cli("--help").stdout)
    for store, shown, other in ((support, theirs, ours), (default, ours, theirs)):
        for name in ("questions", "tenants"):
            ids = ", ".join(item["id"] for item in store[name])
            assert ids in shown and ids not in other, (name, ids)


def test_evaluate_says_an_own_question_is_not_evaluated(capsys: pytest.CaptureFixture[str]) -> None:
    """--evaluate measures the store's questions against their supporting records; a question
    of one's own has none, so the output says it is set aside (on stderr with --json, whose
    output stays the engine's object), and says nothing of it when none was typed."""
    own = ["--evaluate", "--question-text", "where do our servers live"]
    status, out, err = run_main(own, capsys)
    assert status == 0 and err == ""
    note = (
        'Not evaluated: your own question (--question-text "where do our servers live"): it has no '
        "supporting records to measure against, so the store's questions are measured instead."
    )
    assert out.splitlines()[2] == note
    status, out, err = run_main([*own, "--json"], capsys)
    assert status == 0 and json.loads(out)["k"] == 3
    assert err == f"python -m engine: note: {note}\n"
    for quiet in (["--evaluate"], ["--evaluate", "--question-text", ""], ["--question-text", "servers"]):
        status, out, err = run_main(quiet, capsys)
        assert status == 0 and err == "" and "Not evaluated" not in out, quiet

"""A learner's own question (policy field question_text): parsed with its limits, scored
by the same engine as a fixed question, read back term by term, honest about coverage,
and never a traceback, whatever the text."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import engine.fields
import engine.near_miss
import engine.parse
from engine.session import dumps
from harness import ROOT
from harness.fixtures import FIXTURES, GOLDEN_FILES, load_json

STORE = load_json(FIXTURES / "store.json")


def run(policy: dict[str, Any]) -> Any:
    return engine.run({"store": STORE, "policy": policy})


def open_session() -> engine.Session:
    opening = engine.open_json(json.dumps(STORE))
    assert opening.session is not None
    return opening.session


def test_empty_text_keeps_the_fixed_question_in_force() -> None:
    """The default, "", asks the chosen question: same result as before the field existed."""
    fixed = run({"question": "timeout-incident"})
    assert fixed["policy"]["question_text"] == ""
    assert fixed["question"]["id"] == "timeout-incident" and fixed["question"]["own"] is False
    assert fixed["question"]["text"] == "What caused the checkout timeout incident?"
    assert fixed["question"]["stop_words"] == ["what", "the"]
    assert (fixed["coverage"]["found"], fixed["coverage"]["total"]) == (0, 1)


def test_own_text_is_scored_with_the_same_terms_vocabulary_and_idf() -> None:
    """An own question with a fixed question's text gets exactly its cosines and parts."""
    fixed = run({"question": "timeout-incident", "store": "all", "previous_sessions": True})
    own = run(
        {
            "question": "deployment-region",
            "question_text": "What caused the checkout timeout incident?",
            "store": "all",
            "previous_sessions": True,
        }
    )
    assert own["question"]["own"] is True and own["question"]["id"] == ""
    assert own["question"]["terms"] == fixed["question"]["terms"]
    for mine, theirs in zip(own["records"], fixed["records"], strict=True):
        assert (mine["cosine"], mine["terms"], mine["outcome"]) == (
            theirs["cosine"],
            theirs["terms"],
            theirs["outcome"],
        )
    assert own["selected"] == fixed["selected"]


def test_coverage_of_an_own_question_is_nothing_declared() -> None:
    """An own question has no supporting facts: found 0 of total 0, even with M2 in the tray."""
    own = run({"question_text": "Which region?", "store": "semantic", "previous_sessions": True})
    assert own["selected"] == ["M2"]
    assert own["coverage"] == {"found": 0, "total": 0, "supporting": [], "found_ids": []}


def test_the_question_is_read_back_term_by_term() -> None:
    """Terms after lowercasing and stop words, the terms in no record, the stop words removed."""
    question = run({"question_text": "Where do we DEPLOY production, not Frankfurt?"})["question"]
    assert question["terms"] == ["frankfurt", "production"]
    assert question["dropped_terms"] == ["deploy"]
    assert question["stop_words"] == ["where", "do", "we", "not"]


def test_control_characters_are_stripped_before_the_length_is_counted() -> None:
    text = "pend\u0007ing\u0000 review\u009f" + "\x1b" * 300
    result = run({"question_text": text})
    assert result["policy"]["question_text"] == "pending review"
    assert result["question"]["text"] == "pending review"
    assert run({"question_text": "x" * 200})["policy"]["question_text"] == "x" * 200


@pytest.mark.parametrize("gap", ["\t", "\n", "\r\n", "\x0b", "\x0c", "\x1f", "\x85"])
def test_tabs_and_line_breaks_read_as_spaces_so_words_stay_apart(gap: str) -> None:
    """A pasted question keeps its words: "checkout<tab>incident" is two terms, not "checkoutincident"."""
    result = run({"question_text": f"checkout{gap}incident"})
    assert result["policy"]["question_text"] == "checkout" + " " * len(gap) + "incident"
    assert result["question"]["terms"] == ["checkout", "incident"]
    assert result["question"]["dropped_terms"] == []


@pytest.mark.parametrize("value", [" ", "\t", "\n\r\n", "\x00", "\x07\x1b\x7f", " \u00a0\u3000\u2028 ", "\x9f\t"])
def test_a_text_with_no_words_left_is_refused_not_taken_for_the_chosen_question(value: str) -> None:
    """Spaces and control characters alone would silently ask the chosen question instead."""
    error = run({"question_text": value})["error"]
    assert error["name"] == "InvalidPolicy"
    assert error["problems"] == [{"path": "policy.question_text", "message": engine.parse.NO_WORDS}]
    assert error["message"] == f"policy.question_text: {engine.parse.NO_WORDS}"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x" * 201, "policy.question_text: must be at most 200 characters (this one has 201)"),
        ("é" * 150 + "\x07" * 10 + "ü" * 51, "policy.question_text: must be at most 200 characters (this one has 201)"),
        ("é" * 150 + "\t" * 10 + "ü" * 41, "policy.question_text: must be at most 200 characters (this one has 201)"),
        (42, "policy.question_text: must be text, not 42"),
        (None, "policy.question_text: must be text, not null"),
        (["a"], "policy.question_text: must be text, not a list"),
        ("half \ud800 a pair", "policy.question_text: must be valid Unicode text"),
    ],
)
def test_bad_text_is_refused_naming_the_field(value: Any, message: str) -> None:
    error = run({"question_text": value})["error"]
    assert error["name"] == "InvalidPolicy"
    assert error["message"].startswith(message)


def test_a_session_keys_per_term_parts_by_the_text_in_force() -> None:
    """Each own text is its own question: the page never reuses another text's parts."""
    session = open_session()
    fixed = json.loads(session.answer_json(json.dumps({}))[0])
    own = json.loads(session.answer_json(json.dumps({"question_text": "pending review"}))[0])
    assert fixed["terms_key"].endswith(":Which region is our production deployment in?")
    assert own["terms_key"] == f"{session.name}:pending review"
    text, parts = session.answer_json(json.dumps({"question_text": "pending review"}), own["terms_key"])
    assert parts is None and json.loads(text)["question"] == own["question"]


def test_every_step_of_ask_it_your_way_is_a_golden_case() -> None:
    """The guide's Look-for lines are held by golden cases with the very same policies."""
    guide = next(g for g in STORE["guides"] if g["id"] == "ask-it-your-way")
    assert guide["title"] == "Ask it your way" and len(guide["steps"]) == 3
    golden = [load_json(path)["policy"] for path in GOLDEN_FILES]
    for step in guide["steps"]:
        assert step["policy"] in golden, step["title"]
        assert step["policy"]["question_text"]


def test_the_command_line_takes_and_reports_an_own_question() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine", "--question-text", "Where do we deploy production?", "--store", "all"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert "Question: Where do we deploy production? (your own question)" in out.stdout
    assert "Reading:  TF-IDF reads the terms production.\n          TF-IDF ignores deploy: in no record." in out.stdout
    assert "TF-IDF drops the stop words where, do, we." in out.stdout
    assert 'question_text="Where do we deploy production?"' in out.stdout
    assert "Coverage: not measured: your own question has no declared supporting facts" in out.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "engine", "--question-text", "pending\treview", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result = json.loads(as_json.stdout)
    assert result["policy"]["question_text"] == "pending review" and result["question"]["own"] is True


def flags(policy: dict[str, Any]) -> list[str]:
    """A policy as command-line flags, each spelled as its field."""
    args = []
    for name, value in policy.items():
        flag = engine.fields.FIELDS_BY_NAME[name].flag
        if isinstance(value, bool):
            args.append(flag if value else flag.replace("--", "--no-", 1))
        else:
            args += [flag, str(value)]
    return args


@pytest.mark.parametrize("path", [p for p in GOLDEN_FILES if p.stem.startswith("own-")], ids=lambda p: p.stem)
def test_the_command_line_equals_cpython_on_each_own_question_golden_case(path: Any) -> None:
    policy = load_json(path)["policy"]
    out = subprocess.run(
        [sys.executable, "-m", "engine", *flags(policy), "--json"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(dumps(run(policy)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--question-text", "x" * 201), "--question-text: must be at most 200 characters (this one has 201)"),
        # A byte that is not UTF-8 reaches Python as half of a surrogate pair.
        (("--question-text", b"caf\xe9"), "--question-text: must be valid Unicode text"),
        (("--question-text", "\t\n"), f"--question-text: {engine.parse.NO_WORDS}"),
    ],
)
def test_the_command_line_refuses_bad_text_in_one_line(args: tuple[Any, ...], message: str) -> None:
    out = subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, cwd=ROOT)
    stderr = out.stderr.decode("utf-8", "replace")
    assert out.returncode == 2 and out.stdout == b""
    assert len(stderr.strip().splitlines()) == 1 and message in stderr, stderr


# ------------------------------------------------------------------ any text at all

# Words of the store, stop words and control characters, so generated texts often match
# records, besides arbitrary Unicode (surrogates included).
PIECES = st.sampled_from(
    ["deployment", "Region", "frankfurt", "not", "the", "INC-42", " ", "  ", "\t", "\n", "\x00", "\x7f", "\x85", "?"]
)
# Deleting maps for str.translate: every control character, every Unicode space (Zs, Zl, Zp).
CONTROLS = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)])
SPACES = dict.fromkeys([0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000])
ANY_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=200),
    st.lists(PIECES | st.characters(exclude_categories=()), max_size=120).map("".join),
)


def check_answer(text: str, answer: dict[str, Any]) -> None:
    """A valid answer scores the cleaned text; an error object names question_text and why."""
    if "error" in answer:
        assert set(answer) == {"error"}
        problem = answer["error"]["problems"][0]
        assert problem["path"] == "policy.question_text"
        spaced = "".join(" " if c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85" else c for c in text)
        blank = text != "" and not spaced.translate(CONTROLS).translate(SPACES)
        assert problem["message"].startswith(("must be at most 200 characters", "must be valid Unicode text")) or (
            blank and problem["message"] == engine.parse.NO_WORDS
        )
        return
    cleaned = "".join(" " if c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85" else c for c in text).translate(CONTROLS)
    assert cleaned.translate(SPACES) or not text
    assert len(cleaned) <= 200
    assert answer["policy"]["question_text"] == cleaned
    assert answer["question"]["own"] is bool(cleaned)
    assert answer["coverage"]["total"] == (0 if cleaned else 1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ANY_TEXT)
def test_any_text_gives_a_result_or_a_clear_error_in_run(text: str) -> None:
    result = engine.run({"store": STORE, "policy": {"question_text": text}})
    check_answer(text, result)  # type: ignore[arg-type]
    # What the command line prints with --json, and the page's JSON, can always be written.
    dumps(result).encode("utf-8")
    json.dumps(result, ensure_ascii=False, indent=2).encode("utf-8")


SESSION = open_session()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ANY_TEXT, have=st.booleans())
def test_any_text_gives_a_result_or_a_clear_error_in_answer_json(text: str, have: bool) -> None:
    policy_text = json.dumps({"question_text": text, "store": "all", "previous_sessions": True})
    reply, parts = SESSION.answer_json(policy_text, f"{SESSION.name}:{text}" if have else "")
    for crossing in (reply, parts or ""):
        crossing.encode("utf-8")  # crosses into JavaScript as text
    check_answer(text, json.loads(reply))
    assert parts is None or "error" not in json.loads(reply)


def test_the_page_cleans_and_refuses_text_by_the_engine_s_very_rules() -> None:
    """state.js spells out the same character sets and the same message as engine/parse.py."""
    page = (ROOT / "site" / "js" / "core" / "state.js").read_text(encoding="utf-8")
    assert f'export const NO_WORDS = "{engine.parse.NO_WORDS}";' in page
    assert r"const CONTROL_SPACES = /[\t\n\v\f\r\u001c-\u001f\u0085]/g;" in page
    assert engine.parse.CONTROL_SPACES.pattern == r"[\t\n\x0b\x0c\r\x1c-\x1f\x85]"


# ------------------------------------------------------------------ near misses


@pytest.mark.parametrize(
    ("term", "stem"),
    [
        ("deploy", "deploy"),
        ("deployment", "deploy"),
        ("deployments", "deploy"),
        ("deploying", "deploy"),
        ("deployed", "deploy"),
        ("failures", "fail"),
        ("queries", "query"),
        ("rolls", "roll"),
        ("ties", "tie"),  # "ies" needs two letters before it to stand for "y"
        ("bus", "bus"),  # too short to lose its "s"
        ("ed", "ed"),
    ],
)
def test_one_common_ending_is_taken_off_when_enough_is_left(term: str, stem: str) -> None:
    assert engine.near_miss.stem(term) == stem


def test_near_misses_are_longer_forms_and_shared_stems_shortest_first() -> None:
    near = engine.near_miss.NearMisses(["deployment", "deployed", "deployments", "redeploy", "region", "regions", "de"])
    assert near.of(["deploy", "regional", "slow", "de"]) == [
        {"term": "deploy", "record_words": ["deployed", "deployment", "deployments"]},
    ]
    assert near.of(["deploying"]) == [{"term": "deploying", "record_words": ["deployed", "deployment", "deployments"]}]
    many = engine.near_miss.NearMisses([f"fail{ending}" for ending in ("ed", "s", "ing", "ure", "ures", "over")])
    assert many.of(["fail"]) == [{"term": "fail", "record_words": ["fails", "failed", "failing", "failure"]}]


def test_a_question_word_in_no_record_names_the_record_words_it_nearly_matches() -> None:
    """'deploy' is not 'deployment', 'fail' is not 'failed': the head says so, for dropped terms only."""
    question = run({"question_text": "Which deploy did not fail?"})["question"]
    assert question["dropped_terms"] == ["deploy", "fail"]
    assert question["near_misses"] == [
        {"term": "deploy", "record_words": ["deployment"]},
        {"term": "fail", "record_words": ["failed"]},
    ]
    slow = run({"question_text": "Why was the service so slow?"})["question"]
    assert slow["dropped_terms"] == ["service", "slow"] and slow["near_misses"] == []
    assert run({})["question"]["near_misses"] == []
    session = open_session()
    slim = json.loads(session.answer_json(json.dumps({"question_text": "Which deploy did not fail?"}))[0])
    assert slim["question"] == run({"question_text": "Which deploy did not fail?"})["question"]

"""The guided-claim check (engine/claims.py) catches a false "Look for" and passes a true one:
each number, count and record id of the fixture stores' steps changed, each caught at its
step with what the answer shows; sentences written from random answers' own numbers pass;
and the three uses say the same lines: ``python -m engine --check-guides``, the build's
store, and ``api.check_store_json``."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import Session, parse_store
from engine.__main__ import main
from engine.api import check_store, check_store_json, load_vectors
from engine.claims import check_look_for
from engine.fields import OUTCOMES_BY_CODE
from engine.shapes import FalseClaim
from harness import ROOT
from harness.fixtures import FIXTURES, load_json
from harness.generate import random_policy
from harness.results import result_of
from sitebuild.files import BuildError
from sitebuild.store import load_store

STORES = {
    name: load_json(FIXTURES / name)
    for name in ("store.json", "support-store.json", "agent-memory-store.json", "timeline-store.json")
}
# A numeral as the check reads one; "(\d+) of (\d+)" a count of a total.
NUMERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")
PAIR = re.compile(r"(?<![\w.])(\d+) of (\d+)(?!\w|\.\d)")


def look_fors() -> list[tuple[str, int, int, str]]:
    return [
        (name, g, s, step["look_for"])
        for name, store in STORES.items()
        for g, guide in enumerate(store["guides"])
        for s, step in enumerate(guide["steps"])
    ]


def rewritten(name: str, g: int, s: int, text: str) -> dict[str, Any]:
    store: dict[str, Any] = copy.deepcopy(STORES[name])
    store["guides"][g]["steps"][s]["look_for"] = text
    return store


@cache
def session(name: str) -> Session:
    """One session per fixture store: each rewritten step is answered on it."""
    return Session(parse_store(STORES[name]), vectors=load_vectors)


def caught(name: str, g: int, s: int, text: str) -> list[FalseClaim]:
    """The false claims the check finds in a fixture step's Look for rewritten: all of them at that step."""
    claims, _ = check_look_for(session(name), g, s, text)
    guide = STORES[name]["guides"][g]["id"]
    for claim in claims:
        assert (claim["guide"], claim["step"], claim["path"]) == (guide, s + 1, f"guides[{g}].steps[{s}].look_for")
        assert claim["text"] == f"{guide} step {s + 1}: “{claim['named']}”: {claim['shows']}"
    return claims


def one_more(number: str) -> str:
    """The number one unit more in its last place: 0.359 → 0.360, 2.01 → 2.02, 12 → 13."""
    places = len(number.partition(".")[2])
    units = int(number.replace(".", "")) + 1
    digits = str(units).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


DECIMALS = [
    (name, g, s, m.start(), m[0]) for name, g, s, text in look_fors() for m in NUMERAL.finditer(text) if "." in m[0]
]


@pytest.mark.parametrize("name, g, s, at, number", DECIMALS)
def test_every_fixture_decimal_changed_in_its_last_place_is_caught(
    name: str, g: int, s: int, at: int, number: str
) -> None:
    """Each fraction a fixture's Look for names (a cosine, an idf, a mean, an age…), one unit
    off in its last place, is one false claim naming it, and what the answer shows holds the
    number as it was written."""
    text = STORES[name]["guides"][g]["steps"][s]["look_for"]
    wrong = one_more(number)
    claims = caught(name, g, s, text[:at] + wrong + text[at + len(number) :])
    assert len(claims) == 1, claims
    assert wrong in claims[0]["named"] and re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", claims[0]["shows"])


PAIRS = [(name, g, s, m.start(), m[1], m[2]) for name, g, s, text in look_fors() for m in PAIR.finditer(text)]


@pytest.mark.parametrize("name, g, s, at, count, total", PAIRS)
def test_every_fixture_count_changed_is_caught(name: str, g: int, s: int, at: int, count: str, total: str) -> None:
    """Each "N of M" of a fixture ("coverage 0 of 1", "12 of 40 words") with N one more is
    caught, and the answer's own pair is what it shows."""
    text = STORES[name]["guides"][g]["steps"][s]["look_for"]
    claims = caught(name, g, s, text[:at] + one_more(count) + text[at + len(count) :])
    assert len(claims) == 1, claims
    assert f"{one_more(count)} of {total}" in claims[0]["named"] and f"{count} of {total}" in claims[0]["shows"]


IDS = [
    (name, g, s, m.start(), m[0])
    for name, g, s, text in look_fors()
    for m in re.finditer(r"(?<![\w-])[MS]\d+(?![\w-])", text)
]


@pytest.mark.parametrize("name, g, s, at, rid", IDS)
def test_every_fixture_record_id_made_unknown_is_caught(name: str, g: int, s: int, at: int, rid: str) -> None:
    """Each record id a fixture's Look for names, turned into one the store lacks (M1 → M199),
    is caught as no record of the store."""
    text = STORES[name]["guides"][g]["steps"][s]["look_for"]
    unknown = rid + "99"
    claims = caught(name, g, s, text[:at] + unknown + text[at + len(rid) :])
    assert {"named": unknown, "shows": f"{unknown} is not a record of this store"} in [
        {"named": c["named"], "shows": c["shows"].split(" (")[0]} for c in claims
    ]


# Sentences of the fixtures made false in what they say of a record or a scorer, and what the check names.
MADE_FALSE = [
    ("store.json", "two-ways-to-count-words", 0, "M5 holds both words", "M10 holds both words", "M10's cosine 0.359"),
    ("store.json", "two-ways-to-count-words", 1, "In M3's breakdown", "In M10's breakdown", "M10's breakdown"),
    ("store.json", "two-ways-to-count-words", 1, "In M3's breakdown", "In M10’s breakdown", "M10's breakdown"),
    ("store.json", "scope-before-recall", 1, "M1 is superseded by M2", "M2 is superseded by M1", "M2 superseded"),
    (
        "store.json",
        "current-vs-historical",
        1,
        "M5 is skipped as over budget",
        "M10 is skipped as over budget",
        "M10 over budget",
    ),
    (
        "store.json",
        "measure-dont-guess",
        1,
        "every mean but MRR",
        "every mean but nDCG@k",
        "Hybrid now leads on every mean but nDCG@k",
    ),
    (
        "store.json",
        "measure-dont-guess",
        1,
        "Hybrid now leads",
        "BM25 now leads",
        "BM25 now leads on every mean but MRR",
    ),
    (
        "support-store.json",
        "pack-the-tray",
        2,
        "S6 is the newest record",
        "S5 is the newest record",
        "S5 0.2 hours old",
    ),
    ("support-store.json", "pack-the-tray", 0, "S4 ranks first (score", "S7 ranks first (score", "S7's score 0.408"),
    ("support-store.json", "current-refund-rule", 0, "(12 of 40 words)", "(12 of 30 words)", "12 of 30 words"),
]


@pytest.mark.parametrize("name, guide, s, true, false, named", MADE_FALSE, ids=[row[4] for row in MADE_FALSE])
def test_what_a_step_says_of_a_record_or_a_scorer_is_checked(
    name: str, guide: str, s: int, true: str, false: str, named: str
) -> None:
    """A record's own number, age, outcome or breakdown, a count of words, and a scorer said to
    lead: each made false in a fixture's sentence is caught, naming what was said."""
    g = next(i for i, each in enumerate(STORES[name]["guides"]) if each["id"] == guide)
    text = STORES[name]["guides"][g]["steps"][s]["look_for"]
    assert true in text
    claims = caught(name, g, s, text.replace(true, false))
    assert named in [claim["named"] for claim in claims], claims


def test_a_store_whose_record_ids_are_numbers_has_its_counts_read_as_counts() -> None:
    """With ids "101" to "1010", "coverage is 1 of 1" is a count, not two unknown records,
    and "101" names a record; a number that is no id nor any number of the answer is caught."""
    store = json.loads(re.sub(r'"M(\d+)"', r'"10\1"', json.dumps(STORES["store.json"])))
    g = next(i for i, guide in enumerate(store["guides"]) if guide["id"] == "scope-before-recall")
    session = Session(parse_store(store), vectors=load_vectors)
    true = "101 is superseded by 102, which supplies Mumbai for Team A, and coverage is 1 of 1."
    assert check_look_for(session, g, 1, true) == ([], 4)
    claims, _ = check_look_for(session, g, 1, true.replace("by 102", "by 1012"))
    assert [claim["named"] for claim in claims] == ["1012"]


def true_sentences(result: dict[str, Any], rng: random.Random) -> str:
    """A Look for stating only what the answer holds, in its numbers as the page writes them."""
    said = []
    for row in rng.sample(result["records"], 4):
        label = OUTCOMES_BY_CODE[row["outcome"]].label.lower()
        # A record a normalising blend does not rank has no score to state.
        score = "" if row["score"] is None else f", at score {row['score']:.3f}"
        said.append(f"{row['id']} is {label}, {row['age_hours']:.1f} hours old{score}")
        said.append(f"{row['id']} has cosine {row['cosine']:.3f} and BM25 {row['bm25']:.2f} ({row['words']} words)")
        if row["terms"] and "idf" in row["terms"][0]:
            said.append(f"its first term's idf is {row['terms'][0]['idf']:.2f}")
    coverage = result["coverage"]
    said.append(f"Coverage is {coverage['found']} of {coverage['total']}")
    said.append(f"the tray uses {result['words_used']} of {result['budget_words']} words")
    said.append(f"{result['counts']['ranked']} records are ranked, {result['counts']['in_scope']} in scope")
    return ". ".join(said) + "."


@pytest.mark.parametrize("name", STORES)
def test_sentences_written_from_an_answers_own_numbers_all_hold(name: str) -> None:
    """For random policies, a Look for stating records' outcomes, ages, scores, cosines, BM25,
    words and idfs, the coverage, the tray's words and the counts, rounded as the page shows
    them, raises no claim; each of its numbers one more in its last place is caught."""
    rng = random.Random(56)
    store = copy.deepcopy(STORES[name])
    for _ in range(12):
        policy = random_policy(store, rng) | {"question_text": ""}
        result = result_of({"store": store, "policy": policy})
        text = true_sentences(dict(result), rng)
        shows = {"stage": 4, "record": result["records"][0]["id"], "part": "table"}
        store["guides"] = [
            {"id": "g", "title": "G", "steps": [{"title": "S", "policy": policy, "look_for": text, "shows": shows}]}
        ]
        checked = check_store(store)
        assert not checked["claims"], (text, checked["claims"])
        assert checked["checked"] >= len(NUMERAL.findall(text)) - len(PAIR.findall(text))
        numbers = [m for m in NUMERAL.finditer(text) if "." in m[0]]
        m = rng.choice(numbers)
        store["guides"][0]["steps"][0]["look_for"] = text[: m.start()] + one_more(m[0]) + text[m.end() :]
        assert check_store(store)["claims"], (text, m[0])


def test_the_command_line_prints_one_line_per_false_claim_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--check-guides: each fixture store "all N claims in M steps hold" with status 0; a store
    with two false claims, their two lines (guide, step, what is named, what the answer shows)
    and status 1; policy flags refused, as each step runs its own policy."""
    for name, store in STORES.items():
        assert main(["--fixtures", str(FIXTURES / name), "--check-guides"]) == 0
        steps = sum(len(guide["steps"]) for guide in store["guides"])
        assert re.fullmatch(rf"all \d+ claims in {steps} steps hold\n", capsys.readouterr().out)
    text = STORES["store.json"]["guides"][3]["steps"][0]["look_for"]
    bad = rewritten("store.json", 3, 0, text.replace("0.359", "0.360").replace("M10, second", "M12, second"))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["--fixtures", str(path), "--check-guides"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "two-ways-to-count-words step 1: “M12”: M12 is not a record of this store (its records are M1 to M10)",
        "two-ways-to-count-words step 1: “M5's cosine 0.360”: M5's cosine is 0.359",
    ]
    assert re.fullmatch(r"2 of \d+ claims in 20 steps are false\n", err)
    assert main(["--fixtures", str(path), "--check-guides", "--budget-words", "3"]) == 2
    assert "--check-guides runs each step's own policy, not --budget-words" in capsys.readouterr().err
    # Steps whose answer needs vectors that cannot be read are said to be unchecked, not passed.
    assert main(["--check-guides", "--vectors", str(tmp_path / "none.rwse")]) == 2
    unchecked = capsys.readouterr().err.splitlines()
    assert len(unchecked) == 7 and unchecked[0].startswith(
        "python -m engine: error: meaning-not-just-words step 1 not checked: the vector file"
    )
    assert main(["--fixtures", str(path), "--check-guides", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == check_store(bad)
    # The build refuses that store with the same lines.
    with pytest.raises(BuildError) as refused:
        load_store(path)
    assert str(refused.value).splitlines()[1:] == [f"  {line}" for line in out.splitlines()]


def test_check_store_json_gives_the_parsers_problems_or_the_claims(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """api.check_store_json, for the page's editor: a malformed store's problems with the paths
    and words ``python -m engine --fixtures`` prints (no claims then); text that is not JSON,
    one problem; a store with a false claim, that claim."""
    broken = copy.deepcopy(STORES["store.json"])
    broken["records"][0]["age_hours"] = -1
    broken["records"][1]["tenant"] = "team-z"
    reply = json.loads(check_store_json(json.dumps(broken)))
    assert reply["claims"] == [] and reply["unchecked"] == [] and reply["steps"] == 0
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    for flags in ([], ["--check-guides"]):
        assert main(["--fixtures", str(path), *flags]) == 2
        said = capsys.readouterr().err.splitlines()[1:]
        assert said == [f"  {p['path']}: {p['message']}" for p in reply["problems"]]
    assert len(said) == 3 and said[0].startswith("  records[0].age_hours: must not be negative")
    not_json = json.loads(check_store_json("{"))
    assert [p["path"] for p in not_json["problems"]] == ["store"]
    assert not_json["problems"][0]["message"].startswith("is not valid JSON")
    text = STORES["support-store.json"]["guides"][1]["steps"][1]["look_for"].replace("30 of 30", "29 of 30")
    reply = json.loads(check_store_json(json.dumps(rewritten("support-store.json", 1, 1, text))))
    assert reply["problems"] == [] and [c["named"] for c in reply["claims"]] == ["29 of 30 words"]
    assert reply["claims"][0]["path"] == "guides[1].steps[1].look_for"


def test_a_draft_checked_again_is_checked_against_its_own_records() -> None:
    """The page checks its draft at each edit, keeping the steps' answers: a Look for edited
    to a false count is caught, and so is a true one whose record was edited under it."""
    store = copy.deepcopy(STORES["support-store.json"])
    step = store["guides"][1]["steps"][1]
    assert "S4 now fits exactly (30 of 30 words)" in step["look_for"]
    assert json.loads(check_store_json(json.dumps(store)))["claims"] == []
    step["look_for"] = step["look_for"].replace("30 of 30", "29 of 30")
    assert [c["named"] for c in json.loads(check_store_json(json.dumps(store)))["claims"]] == ["29 of 30 words"]
    step["look_for"] = step["look_for"].replace("29 of 30", "30 of 30")
    store["records"][3]["text"] += " Today."
    claims = json.loads(check_store_json(json.dumps(store)))["claims"]
    assert "30 of 30 words" in [c["named"] for c in claims], claims


def test_the_check_is_imported_only_when_asked_for_and_kept_for_a_snapshot() -> None:
    """The page's Python opens a store and answers without importing the check (its boot gains
    no module); check_store_json brings it; import_everything, before the worker's memory
    snapshot, takes it in, as a restored Python has no files to import it from."""
    script = (
        "import json, sys, engine\n"
        "store = open(sys.argv[1]).read()\n"
        "opening = engine.open_json(store)\n"
        "opening.session.answer_json(json.dumps({'scorer': 'bm25'}))\n"
        "answered = 'engine.claims' in sys.modules\n"
        "engine.check_store_json(store)\n"
        "checked = 'engine.claims' in sys.modules\n"
        "print(json.dumps([answered, checked]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(FIXTURES / "support-store.json")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert json.loads(done.stdout) == [False, True]
    snapshot = "import sys, engine\nengine.import_everything()\nprint('engine.claims' in sys.modules)"
    kept = subprocess.run([sys.executable, "-c", snapshot], capture_output=True, text=True, check=True, cwd=ROOT)
    assert kept.stdout.strip() == "True"

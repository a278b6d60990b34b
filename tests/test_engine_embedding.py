"""The embedding scorer in the engine: similarity taken apart token by token (hand-checked on
exact 2-D vectors), the minimum similarity as a scope rule, relevance clipped at 0, ranks under
every scorer, neighbours, closest tokens, the map, how the vectors are loaded, and on the
shipped vectors the similarity against model2vec's StaticModel."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import engine.api
from engine.embedding import StaticEmbedding
from engine.plane import MAP_SAMPLE
from engine.wordpiece import BERT_SPECIAL_TOKENS
from harness import ROOT
from harness.fixtures import FIXTURES, load_json
from harness.rwse import read_rwse, write_rwse

# Two dimensions, scale 0.5, so every vector is exact: car (1, 0), vehicle (1, 0.5), red
# (0, 1), blue (0, -1), ##s (0.5, 0.5), the (0, 0).
TOKENS = [*BERT_SPECIAL_TOKENS, "car", "vehicle", "red", "blue", "##s", "the"]
ROWS = [[0, 0]] * 5 + [[2, 0], [2, 1], [0, 2], [0, -2], [1, 1], [0, 0]]
NEIGHBOURS = [[6, 9]] * 5 + [[6, 9], [5, 9], [9, 6], [5, 10], [6, 5], [5, 7]]
DATA = write_rwse(TOKENS, ROWS, [0.5] * len(TOKENS), NEIGHBOURS)
VECTORS = StaticEmbedding.from_bytes(DATA)
REAL_VECTORS = ROOT / "embedding" / "minilm-static.rwse"


def record(rid: str, text: str, **fields: Any) -> dict[str, Any]:
    base = {"id": rid, "tenant": "t", "store": "working", "session": "current", "age_hours": 24, "key": None}
    return base | {"text": text} | fields


STORE: dict[str, Any] = {
    "schema": 1,
    "title": "hand-made",
    "tenants": [{"id": "t", "label": "T"}, {"id": "u", "label": "U"}],
    "questions": [{"id": "q", "text": "car red", "supporting": {}}],
    "records": [
        record("V", "vehicle"),
        record("B", "blue"),
        record("C", "cars the car"),
        record("O", "red car", tenant="u"),
    ],
}


def session(store: dict[str, Any] = STORE) -> engine.Session:
    return engine.Session(engine.parse_store(store), embedding=VECTORS)


def rows_of(result: Any) -> dict[str, Any]:
    assert "error" not in result, result
    return {row["id"]: row for row in result["records"]}


def test_similarity_is_the_cosine_taken_apart_by_token() -> None:
    """ "car red": Σv = (1, 1), ‖Σv‖ = √2. V's unit vector is (1, 0.5)/√1.25, so car adds
    1/(√2·√1.25) and red 0.5/(√2·√1.25), together the cosine 1.5/(√2·√1.25)."""
    rows = rows_of(session().run({"scorer": "embedding", "min_similarity": 0}))
    v = rows["V"]
    root = math.sqrt(2) * math.sqrt(1.25)
    assert [(p["token"], p["count"]) for p in v["terms"]] == [("car", 1), ("red", 1)]
    assert v["terms"][0]["contribution"] == pytest.approx(1 / root, abs=1e-15)
    assert v["terms"][1]["contribution"] == pytest.approx(0.5 / root, abs=1e-15)
    assert v["similarity"] == pytest.approx(1.5 / root, abs=1e-15) == v["relevance"] == v["score"]
    # A token asked twice counts twice: "car car red" has Σv = (2, 1).
    twice = rows_of(session().run({"scorer": "embedding", "question_text": "car car red", "min_similarity": 0}))["V"]
    assert [(p["token"], p["count"]) for p in twice["terms"]] == [("car", 2), ("red", 1)]
    assert twice["terms"][0]["contribution"] == pytest.approx(2 / (math.sqrt(5) * math.sqrt(1.25)), abs=1e-15)


def test_under_the_minimum_a_record_is_excluded_with_both_numbers() -> None:
    """B (blue) points away from "car red" (cosine -0.5): excluded at any minimum, its relevance 0."""
    rows = rows_of(session().run({"scorer": "embedding", "min_similarity": 0.3, "recency_weight": 0.5}))
    b = rows["B"]
    assert b["similarity"] == pytest.approx(-1 / math.sqrt(2), abs=1e-15)
    assert (b["outcome"], b["stage"], b["rank"]) == ("below_similarity", 3, None)
    assert b["reason"] == "Similarity -0.707 is under the minimum 0.300, so it is excluded at any recency weight."
    assert b["relevance"] == 0.0 and b["score"] == pytest.approx(0.5 * 0.5, abs=1e-15)
    # The numbers are shown with as many places as it takes to tell them apart.
    just = rows_of(session().run({"scorer": "embedding", "min_similarity": 0.9487}))["V"]
    assert just["reason"].startswith("Similarity 0.94868 is under the minimum 0.94870,")


def test_an_embedding_answer_ranks_under_every_scorer() -> None:
    """V and C are candidates: the embedding ranks both; the lexical scorers rank only C (V shares no word)."""
    rows = rows_of(session().run({"scorer": "embedding", "min_similarity": 0.5}))
    assert rows["C"]["ranks"] == {"tfidf": 1, "bm25": 1, "embedding": 2}
    assert rows["V"]["ranks"] == {"tfidf": None, "bm25": None, "embedding": 1}
    assert (rows["V"]["rank"], rows["V"]["other_rank"], rows["C"]["other_rank"]) == (1, None, 1)
    assert rows["O"]["ranks"] == {"tfidf": None, "bm25": None, "embedding": None}


def test_lexical_answers_never_read_the_vectors() -> None:
    """A session without vectors answers TF-IDF and BM25 as before, with nothing of the embedding;
    an embedding policy then gets one clear error."""

    def no_vectors() -> StaticEmbedding:
        raise engine.InputError("MissingVectors", [("vectors", "none here")])

    bare = engine.Session(engine.parse_store(STORE), vectors=no_vectors)
    for scorer in ("tfidf", "bm25"):
        result: Any = bare.run({"scorer": scorer})
        assert {k: result["question"][k] for k in ("tokens", "unknown_tokens", "norm", "map")} == {
            "tokens": [],
            "unknown_tokens": [],
            "norm": None,
            "map": None,
        }
        assert all(row["similarity"] is None and row["rrf"] is None for row in result["records"])
        assert set(result["records"][2]["ranks"]) == {"tfidf", "bm25"}
    error = json.loads(bare.answer_json('{"scorer": "embedding"}')[0])["error"]
    assert (error["name"], error["message"]) == ("MissingVectors", "vectors: none here")


def test_question_tokens_neighbours_unknown_words_and_norm() -> None:
    result: Any = session().run({"scorer": "embedding", "question_text": "Red cars, zebra!"})
    question = result["question"]
    assert [(t["token"], t["count"]) for t in question["tokens"]] == [("red", 1), ("car", 1), ("##s", 1)]
    # red's neighbours from the file's table: ##s, then vehicle, with their cosines.
    assert question["tokens"][0]["neighbours"] == [
        {"token": "##s", "cosine": pytest.approx(1 / math.sqrt(2), abs=1e-15)},
        {"token": "vehicle", "cosine": pytest.approx(0.5 / math.sqrt(1.25), abs=1e-15)},
    ]
    assert question["unknown_tokens"] == [",", "zebra", "!"]
    assert question["norm"] == pytest.approx(math.hypot(1.5, 1.5), abs=1e-15)


def test_closest_tokens_are_given_for_records_in_scope() -> None:
    """C holds car, ##s and the: nearest to car are car, ##s, then the (cosine 0). O, another
    tenant's, keeps its contributions but no closest tokens."""
    rows = rows_of(session().run({"scorer": "embedding"}))
    car = rows["C"]["terms"][0]
    assert car["token"] == "car"
    assert [(near["token"], round(near["cosine"], 12)) for near in car["closest"]] == [
        ("car", 1.0),
        ("##s", round(1 / math.sqrt(2), 12)),
        ("the", 0.0),
    ]
    assert all(part["closest"] == [] for part in rows["O"]["terms"])
    assert math.fsum(part["contribution"] for part in rows["O"]["terms"]) == pytest.approx(rows["O"]["similarity"])


def test_the_map_keeps_distances_of_two_dimensional_vectors() -> None:
    """With 2-D vectors the records' plane is all there is: the map is a rotation (and maybe a
    flip) of the vectors, so every distance, the question's included, is kept."""
    result: Any = session().run({"scorer": "embedding"})
    plane = result["question"]["map"]
    assert sum(plane["explained"]) == pytest.approx(1.0, abs=1e-12)
    assert plane["explained"][0] >= plane["explained"][1]
    units = [VECTORS.embed(r["text"]).vector for r in STORE["records"]]
    question = VECTORS.embed("car red").vector
    points = [*plane["records"], plane["question"]]
    originals = [*units, question]
    for i in range(len(points)):
        for j in range(i):
            assert math.dist(points[i], points[j]) == pytest.approx(math.dist(originals[i], originals[j]), abs=1e-9)


def test_a_large_store_is_mapped_from_a_sample_of_its_records() -> None:
    """Past MAP_SAMPLE records the directions come from a sample, evenly spaced; every record is
    still placed, and with 2-D vectors the sample spans the plane, so distances are kept."""
    words = ["car", "vehicle", "red", "blue", "cars", "red car", "blue vehicle"]
    texts = [" ".join(words[(i * 7 + j) % len(words)] for j in range(1 + i % 3)) for i in range(3 * MAP_SAMPLE)]
    store = STORE | {"records": [record(f"R{i}", text) for i, text in enumerate(texts)]}
    plane = session(store).run({"scorer": "embedding"})["question"]["map"]  # type: ignore[typeddict-item]
    assert plane is not None and len(plane["records"]) == len(texts)
    units = [VECTORS.embed(text).vector for text in texts]
    for i in range(0, len(texts), 17):
        for j in range(i):
            assert math.dist(plane["records"][i], plane["records"][j]) == pytest.approx(
                math.dist(units[i], units[j]), abs=1e-9
            )


def test_parts_are_copies_and_answers_equal_the_full_result() -> None:
    """Editing a result's parts changes no later answer; the slim answer's columns are the result's."""
    s = session()
    policy = {"scorer": "embedding", "min_similarity": 0.1}
    before = s.answer_json(json.dumps(policy))
    for row in rows_of(s.run(policy)).values():
        for part in row["terms"]:
            part["closest"].clear()
    assert s.answer_json(json.dumps(policy)) == before
    slim, parts = json.loads(before[0]), json.loads(before[1] or "null")
    full = rows_of(s.run(policy))
    assert slim["similarity"] == [full[rid]["similarity"] for rid in slim["ids"]]
    assert slim["ranks"] == {
        name: [full[rid]["ranks"][name] for rid in slim["ids"]] for name in ("tfidf", "bm25", "embedding")
    }
    assert parts == [full[rid]["terms"] for rid in slim["ids"]]


def test_parts_are_keyed_by_scope_for_the_embedding_and_by_every_setting_for_hybrid() -> None:
    s = session()
    keys = {}
    for name, policy in {
        "base": {"scorer": "embedding"},
        "budget": {"scorer": "embedding", "budget_words": 3, "min_similarity": 0.8, "recency_weight": 0.3},
        "tenant": {"scorer": "embedding", "tenant": "u"},
        "hybrid": {"scorer": "hybrid"},
        "hybrid-k": {"scorer": "hybrid", "rrf_k": 5},
    }.items():
        text, parts = s.answer_json(json.dumps(policy))
        answer = json.loads(text)
        keys[name] = answer["terms_key"]
        held, no_parts = s.answer_json(json.dumps(policy), answer["terms_key"])
        assert parts is not None and no_parts is None and json.loads(held)["score"] == answer["score"]
    assert keys["base"] == keys["budget"]
    assert len({keys["base"], keys["tenant"], keys["hybrid"], keys["hybrid-k"]}) == 4


def test_load_embedding_replies_and_open_sessions_read_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's path: the file loaded last is what a session opened by open_json reads."""
    monkeypatch.setattr(engine.api, "_LOADED", [])  # this test's loading ends with it
    path = tmp_path / "vectors.rwse"
    path.write_bytes(DATA)
    assert json.loads(engine.load_embedding(str(path))) == {"tokens": len(TOKENS), "dims": 2}
    opening = engine.open_json(json.dumps(STORE))
    assert opening.session is not None
    answer = json.loads(opening.session.answer_json('{"scorer": "embedding", "min_similarity": 0}')[0])
    assert answer["similarity"][0] == pytest.approx(1.5 / (math.sqrt(2) * math.sqrt(1.25)), abs=1e-15)
    # run() reads the file it is given (by default, the repository's).
    ran = engine.run({"store": STORE, "policy": {"scorer": "embedding"}}, vectors=path)
    assert rows_of(ran)["V"]["similarity"] == answer["similarity"][0]
    broken = tmp_path / "broken.rwse"
    broken.write_bytes(b"RWSX" + DATA[4:])
    error = json.loads(engine.load_embedding(str(broken)))["error"]
    assert error["name"] == "InvalidVectors" and "not a vector file" in error["message"]
    missing = json.loads(engine.load_embedding(str(tmp_path / "none.rwse")))["error"]
    assert missing["name"] == "MissingVectors" and missing["message"].endswith("none.rwse does not exist")


def test_the_command_line_reads_vectors_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "vectors.rwse"
    path.write_bytes(DATA)
    store = tmp_path / "store.json"
    store.write_text(json.dumps(STORE))
    common = [sys.executable, "-m", "engine", "--fixtures", str(store), "--scorer", "embedding", "--json"]
    done = subprocess.run([*common, "--vectors", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["question"]["tokens"][0]["token"] == "car"
    missing = subprocess.run(
        [*common, "--vectors", str(tmp_path / "no.rwse")], capture_output=True, text=True, cwd=ROOT
    )
    assert missing.returncode == 2 and missing.stdout == ""
    assert (
        missing.stderr == f"python -m engine: error: --vectors: the vector file {tmp_path / 'no.rwse'} does not exist\n"
    )


WORDS = ["car", "cars", "vehicle", "red", "blue", "the", "zebra", "Car!"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join), min_size=1, max_size=8),
    question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
    minimum=st.floats(0, 1),
    weight=st.floats(0, 1),
)
def test_embedding_invariants(texts: list[str], question: str, minimum: float, weight: float) -> None:
    """Contributions add up to the similarity, which is the cosine of the two texts' vectors;
    relevance is it clipped at 0; candidates are exactly the records in scope at the minimum."""
    store = STORE | {"records": [record(f"R{i}", text) for i, text in enumerate(texts)]}
    policy = {"scorer": "embedding", "question_text": question, "min_similarity": minimum, "recency_weight": weight}
    rows = rows_of(session(store).run(policy))
    asked = VECTORS.embed(question).vector
    for i, text in enumerate(texts):
        row = rows[f"R{i}"]
        cosine = math.fsum(a * b for a, b in zip(asked, VECTORS.embed(text).vector, strict=True))
        assert row["similarity"] == pytest.approx(cosine, abs=1e-12)
        assert math.fsum(p["contribution"] for p in row["terms"]) == pytest.approx(row["similarity"], abs=1e-15)
        assert row["relevance"] == max(0.0, row["similarity"])
        assert (row["rank"] is not None) == (row["similarity"] >= minimum)


# ------------------------------------------------------------------ the shipped vectors


def test_similarity_equals_model2vec_on_the_shipped_vectors() -> None:
    """Every fixture record against each fixture question: the engine's similarity is the cosine
    of model2vec's StaticModel vectors (the shipped file, dequantised, and its tokenizer.json)
    within 1e-6, and its contributions add up to it."""
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    data = REAL_VECTORS.read_bytes()
    tokenizer = Tokenizer.from_file(str(ROOT / "embedding" / "tokenizer.json"))
    model = StaticModel(vectors=read_rwse(data).vectors, tokenizer=tokenizer, normalize=True)
    for store_file in ("store.json", "support-store.json"):
        store = load_json(FIXTURES / store_file)
        texts = [r["text"] for r in store["records"]]
        records = model.encode(texts)
        for question in store["questions"]:
            result = engine.run({"store": store, "policy": {"scorer": "embedding", "question": question["id"]}})
            rows = rows_of(result)
            asked = model.encode([question["text"]])[0]
            for r, vector in zip(store["records"], records, strict=True):
                row = rows[r["id"]]
                assert abs(row["similarity"] - float(np.dot(asked, vector))) < 1e-6, (question["id"], r["id"])
                assert math.fsum(p["contribution"] for p in row["terms"]) == pytest.approx(row["similarity"], abs=1e-12)


def test_every_step_of_meaning_not_just_words_is_a_golden_case() -> None:
    """The guide's Look-for lines are held by golden cases with the very same policies."""
    store = load_json(FIXTURES / "store.json")
    guide = next(g for g in store["guides"] if g["id"] == "meaning-not-just-words")
    assert guide["title"] == "Meaning, not just words" and len(guide["steps"]) == 3
    golden = [load_json(path)["policy"] for path in sorted((FIXTURES / "golden").glob("meaning-*.json"))]
    assert [step["policy"] for step in guide["steps"]] == [golden[i] for i in (2, 1, 0)]
    assert [step["policy"]["scorer"] for step in guide["steps"]] == ["embedding", "embedding", "hybrid"]


def test_the_default_minimum_similarity_is_the_one_the_guide_needs() -> None:
    """Step 1 needs M8 out and M2 in; step 3 needs M2 in the embedding's ranking and M1 out of
    it (else M1's first and third places beat M2's two seconds). The default lies between, on
    the control's step."""
    store = load_json(FIXTURES / "store.json")
    steps = next(g for g in store["guides"] if g["id"] == "meaning-not-just-words")["steps"]
    first, third = (rows_of(engine.run({"store": store, "policy": steps[i]["policy"]})) for i in (0, 2))
    low = max(first["M8"]["similarity"], third["M1"]["similarity"])
    high = min(first["M2"]["similarity"], third["M2"]["similarity"])
    assert low < engine.fields.MIN_SIMILARITY <= high
    assert round(engine.fields.MIN_SIMILARITY / 0.05, 9).is_integer()


# The modules only the embedding scorers use, in sorted order.
EMBEDDING_MODULES = (
    "engine.embedding",
    "engine.floats",
    "engine.packing",
    "engine.plane",
    "engine.semantic",
    "engine.wordpiece",
    "engine.wordpiece_tables",
)


def test_the_embedding_modules_load_only_when_a_policy_reads_the_vectors() -> None:
    """The page's Python is ready without them; the first embedding answer brings them."""
    script = (
        "import json, sys, engine\n"
        f"names = {EMBEDDING_MODULES!r}\n"
        "before = [n for n in names if n in sys.modules]\n"
        "store = json.load(open(sys.argv[1]))\n"
        "opening = engine.open_json(json.dumps(store))\n"
        "opening.session.answer_json(json.dumps({'scorer': 'bm25'}))\n"
        "lexical = [n for n in names if n in sys.modules]\n"
        "engine.run({'store': store, 'policy': {'scorer': 'embedding'}})\n"
        "print(json.dumps([before, lexical, [n for n in names if n in sys.modules]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(FIXTURES / "store.json")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    before, lexical, after = json.loads(done.stdout)
    assert (before, lexical) == ([], [])
    assert after == list(EMBEDDING_MODULES)
    # What the page's worker calls before its memory snapshot, which a restored Python needs.
    snapshot = "import json, sys, engine\nengine.import_everything()\nprint(json.dumps(sorted(sys.modules)))"
    imported = subprocess.run([sys.executable, "-c", snapshot], capture_output=True, text=True, check=True, cwd=ROOT)
    assert set(EMBEDDING_MODULES) <= set(json.loads(imported.stdout))

"""The static embedding: the .rwse file read and checked, a text's vector equal to model2vec's
StaticModel (hand-made vectors, random ones, and the shipped file), the cosine's parts adding up
to it, neighbours from the file's table, and the 2-D map of the vectors."""

from __future__ import annotations

import json
import math
import random
import re
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model2vec import StaticModel
from tokenizers import Tokenizer

from engine.embedding import (
    DEFAULT_MAX_LENGTH,
    StaticEmbedding,
    VectorFileError,
    default_vector_path,
)
from engine.plane import principal_plane
from engine.wordpiece import BERT_SPECIAL_TOKENS
from harness import ROOT
from harness.meaning import closest_tokens, cosine, parts
from harness.rwse import bert_tokenizer, read_rwse, write_rwse
from harness.tokenizer_json import wordpiece_from_tokenizer_json

REAL_VECTORS = ROOT / "embedding" / "minilm-static.rwse"
REAL_TOKENIZER = ROOT / "embedding" / "tokenizer.json"

# Two dimensions and a scale of 0.5, so every vector is exact: car (1, 0), vehicle (1, 0.5),
# red (0, 1), blue (0, -1), ##s (0.5, 0.5), the (0, 0); the special tokens are zero rows.
HAND_TOKENS = [*BERT_SPECIAL_TOKENS, "car", "vehicle", "red", "blue", "##s", "the"]
HAND_ROWS = [[0, 0]] * 5 + [[2, 0], [2, 1], [0, 2], [0, -2], [1, 1], [0, 0]]
CAR, VEHICLE, RED, BLUE, S, THE = range(5, 11)
HAND_NEIGHBOURS = [[VEHICLE, S]] * 5 + [[VEHICLE, S], [CAR, S], [S, VEHICLE], [CAR, THE], [VEHICLE, CAR], [CAR, RED]]


def hand_file(**header: Any) -> bytes:
    return write_rwse(HAND_TOKENS, HAND_ROWS, [0.5] * len(HAND_TOKENS), HAND_NEIGHBOURS, **header)


HAND = StaticEmbedding.from_bytes(hand_file())


def oracle(data: bytes, tokenizer: Tokenizer, max_length: int | None = DEFAULT_MAX_LENGTH) -> StaticModel:
    """model2vec's StaticModel over the file's vectors, dequantised in float32."""
    return StaticModel(vectors=read_rwse(data).vectors, tokenizer=tokenizer, normalize=True, max_length=max_length)


def test_hand_checked_vectors() -> None:
    """Mean of the tokens' vectors, then unit length; unknown words add nothing."""
    assert HAND.embed("car").vector == (1.0, 0.0)
    cars = HAND.embed("Cars")
    assert [(p.text, p.start, p.end) for p in cars.pieces] == [("car", 0, 3), ("##s", 3, 4)]
    assert cars.vector == pytest.approx((1.5 / math.sqrt(2.5), 0.5 / math.sqrt(2.5)), abs=1e-15)
    odd = HAND.embed("xyzzy, car")
    assert [p.text for p in odd.pieces] == ["car"]  # "," is not in this vocabulary either
    assert [(p.text, p.start, p.end) for p in odd.unknown] == [("[UNK]", 0, 5), ("[UNK]", 5, 6)]
    assert odd.vector == (1.0, 0.0)
    assert not odd.truncated


def test_texts_without_a_known_token_have_the_zero_vector() -> None:
    """Empty, only unknown words, or vectors cancelling out: zeros, as model2vec returns."""
    for text in ("", "   ", "xyzzy", "red blue", "the"):
        assert HAND.embed(text).vector == (0.0, 0.0), text
    assert [p.text for p in HAND.embed("red blue").pieces] == ["red", "blue"]
    assert [(p.piece.text, p.contribution) for p in parts(HAND, "red blue", (1.0, 0.0))] == [
        ("red", 0.0),
        ("blue", 0.0),
    ]
    assert [(p.piece.text, p.contribution) for p in parts(HAND, "car", HAND.embed("").vector)] == [("car", 0.0)]
    assert parts(HAND, "", (1.0, 0.0)) == ()


def test_parts_by_hand() -> None:
    """ "cars" against "vehicle": v·d / (‖Σv‖ ‖d‖) for car and ##s, adding up to the cosine."""
    record = HAND.embed("vehicle").vector
    shares = parts(HAND, "cars", record)
    assert [p.piece.text for p in shares] == ["car", "##s"]
    assert shares[0].contribution == pytest.approx(1 / math.sqrt(3.125), abs=1e-15)
    assert shares[1].contribution == pytest.approx(0.75 / math.sqrt(3.125), abs=1e-15)
    assert math.isclose(math.fsum(p.contribution for p in shares), 1.75 / math.sqrt(3.125), abs_tol=1e-15)
    assert math.isclose(cosine(HAND.embed("cars").vector, record), 1.75 / math.sqrt(3.125), abs_tol=1e-15)


def test_neighbours_come_from_the_table_with_their_cosines() -> None:
    assert [(n.token, round(n.cosine, 6)) for n in HAND.neighbours(CAR)] == [("vehicle", 0.894427), ("##s", 0.707107)]
    assert [(n.token, n.cosine) for n in HAND.neighbours(BLUE)] == [("car", 0.0), ("the", 0.0)]
    no_table = StaticEmbedding.from_bytes(write_rwse(HAND_TOKENS, HAND_ROWS, [0.5] * len(HAND_TOKENS)))
    assert no_table.neighbours(CAR) == ()


def test_closest_tokens_of_a_record() -> None:
    """Most similar first, each record token once, ties broken by the lower id."""
    closest = closest_tokens(HAND, CAR, [RED, VEHICLE, S, VEHICLE, THE], 3)
    assert [(n.token, round(n.cosine, 6)) for n in closest] == [("vehicle", 0.894427), ("##s", 0.707107), ("red", 0.0)]
    assert [n.token for n in closest_tokens(HAND, RED, [BLUE, CAR, THE], 2)] == ["car", "the"]


def test_long_texts_are_cut_as_model2vec_cuts_them() -> None:
    """At most max_length tokens, after cutting the text to max_length x the median entry length."""
    # Entry lengths 3,3,3,3,4,5,5,5,5,6,7: the median is 5, so 3 tokens read 15 characters.
    short = StaticEmbedding.from_bytes(hand_file(max_length=3))
    assert short.median_token_length == 5
    embedded = short.embed("car car car red")
    assert [p.text for p in embedded.pieces] == ["car"] * 3 and embedded.truncated
    assert short.embed("red  red  red  car").vector == (0.0, 1.0)  # "car" starts at character 15
    tokenizer = bert_tokenizer(HAND_TOKENS)
    model = oracle(hand_file(), tokenizer, max_length=3)
    for text in ("car car car red", "red  red  red  car", "xyzzy xyzzy red car"):
        assert np.allclose(short.embed(text).vector, model.encode(text), atol=1e-7), text


def random_vocabulary_file(seed: int, smallest_scale: float = 0.001) -> tuple[bytes, Tokenizer]:
    """Random int8 rows and float32 scales (up to 0.02) over letters, continuations and a few words."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = "server servers live where do our team production deploy ##ment ##ing un ##able 日 本 1 ##9".split()
    tokens = list(dict.fromkeys([*BERT_SPECIAL_TOKENS, *words, *letters, *("##" + x for x in letters), *"!?.,'-$%"]))
    rows = [[rng.randint(-127, 127) for _ in range(16)] for _ in tokens]
    scales = [
        struct.unpack("<f", struct.pack("<f", rng.choice([smallest_scale, rng.uniform(0.001, 0.02)])))[0]
        for _ in tokens
    ]
    return write_rwse(tokens, rows, scales), bert_tokenizer(tokens)


RANDOM_FILE, RANDOM_TOKENIZER = random_vocabulary_file(7)
RANDOM = StaticEmbedding.from_bytes(RANDOM_FILE)
RANDOM_ORACLE = oracle(RANDOM_FILE, RANDOM_TOKENIZER)

FRAGMENTS = ["Where do our servers live?", "Café", "naïve", "PRODUCTION", "deployment", "unable", "1999", "$5,000"]
FRAGMENTS += ["日本", "😀", "\t", "\n", "\x00", "[SEP]", "[UNK]", "xyzzy", "ß", "é" * 3, "q" * 101, "deploy" * 17]
texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5), st.just(" ")), max_size=14).map("".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, record=texts)
def test_random_vectors_equal_model2vec(text: str, record: str) -> None:
    embedded = RANDOM.embed(text)
    want = RANDOM_ORACLE.encode(text)
    assert np.allclose(embedded.vector, want, rtol=0, atol=1e-6)
    assert [p.id for p in embedded.pieces] == [
        i for i in RANDOM_TOKENIZER.encode(text, add_special_tokens=False).ids if i != RANDOM.unk_id
    ]
    assert RANDOM.token_ids(text) == [p.id for p in embedded.pieces]
    record_vector = RANDOM.embed(record).vector
    shares = parts(RANDOM, embedded, record_vector)
    assert math.isclose(
        math.fsum(p.contribution for p in shares), cosine(embedded.vector, record_vector), rel_tol=1e-12, abs_tol=1e-12
    )


# Scales from 1e-30 to 0.02: too far apart for the sums packed in 64-bit integers, added by fsum.
WIDE = StaticEmbedding.from_bytes(random_vocabulary_file(7, smallest_scale=1e-30)[0])


@pytest.mark.parametrize("embedding", [RANDOM, WIDE], ids=["packed", "fsum"])
@settings(max_examples=100, deadline=None)
@given(ids=st.lists(st.integers(0, RANDOM.size - 1), max_size=600))
def test_sums_are_exact(embedding: StaticEmbedding, ids: list[int]) -> None:
    """A text's vector is its tokens' exact sum rounded once (then scaled): fsum's bits, in any order."""
    text = " ".join(embedding.token(i).removeprefix("##") for i in ids if i != embedding.unk_id)
    embedded = embedding.embed(text)
    columns = zip(*(embedding.vector(p.id) for p in embedded.pieces), strict=True)
    sums = [math.fsum(column) for column in columns] or [0.0] * embedding.dims
    length = math.sqrt(math.fsum(x * x for x in sums))
    assert embedded.total_length == length
    assert embedded.vector == tuple(x / length if length else 0.0 for x in sums)


# What a Python value looks like when a message prints its repr: a byte literal (b'RWSE'), a
# quoted word ('dims', '[UNK]'), or a type's name ("a int").
PYTHON_REPR = re.compile(r"\bb'|'[^'\s]*'|\ba (int|str|bool)\b")


def test_the_file_is_checked_with_clear_messages(tmp_path: Any) -> None:
    """Read from memory and streamed from a file alike; the messages say what is wrong in words
    and JSON, never in Python's reprs."""
    good = hand_file()
    (length,) = struct.unpack_from("<I", good, 4)
    cases = {
        b"NOPE" + good[4:]: 'not a vector file: it does not start with RWSE (it starts with "NOPE")',
        b"\x89PNG\r\n\x1a\n" + good[8:]: "it does not start with RWSE (it starts with the bytes 89 50 4e 47)",
        b"": "not a vector file: it is empty",
        b"RWSE\0": "not a vector file: it is 5 bytes long, too short for a vector file's 8-byte start",
        good[:-1]: "the file is",
        good + b"\0": "makes",
        good[:8]
        + b"\xff"
        + good[9 : 8 + length]
        + good[8 + length :]: "the header is not UTF-8 text (from its byte 0)",
        good[:8] + b"[" + good[9 : 8 + length] + good[8 + length :]: "the header is not JSON",
        hand_file(format=2): "format 2 is not 1",
        hand_file(quantisation="float32"): 'quantisation "float32" is not "int8-row", the one this engine reads',
        hand_file(dims="2"): 'the header\'s "dims" should be a whole number, not "2"',
        hand_file(lowercase=None): 'the header\'s "lowercase" should be true or false, not null',
        hand_file(unk_token=1): 'the header\'s "unk_token" should be text, not 1',
        hand_file(strip_accents="yes"): 'the header\'s "strip_accents" should be true, false or null, not "yes"',
        hand_file(max_length=0): 'the header\'s "max_length" should be a whole number of at least 1, or null, not 0',
        hand_file(
            max_length=2.5
        ): 'the header\'s "max_length" should be a whole number of at least 1, or null, not 2.5',
        write_rwse(["a", "b"], [[1], [2]], [1.0, 1.0]): 'the unknown token "[UNK]" is not in the vocabulary',
        write_rwse(["[UNK]", "a", "a"], [[1], [2], [3]], [1.0] * 3): 'the vocabulary lists "a" twice',
        write_rwse(["[UNK]", "a"], [[1], [2]], [1.0, 1.0], special_tokens=["[CLS]"]): 'the special token "[CLS]"',
        write_rwse(["[UNK]", "a"], [[1], [2]], [1.0, float("nan")]): "scale is not a finite number",
        write_rwse(["[UNK]", "a", "b"], [[1], [2], [3]], [1.0] * 3, [[1], [2], [3]]): "neighbour id is not below 3",
    }
    header = json.loads(good[8 : 8 + length])
    for key in ("dims", "unk_token"):
        missing = json.dumps({k: v for k, v in header.items() if k != key}).encode()
        cases[good[:4] + struct.pack("<I", len(missing)) + missing + good[8 + length :]] = f'the header has no "{key}"'
    vocabulary = good.index(b"[PAD]")
    cases[good[:vocabulary] + b"\xff" + good[vocabulary + 1 :]] = "the vocabulary is not UTF-8 text (from its byte 0)"
    path = tmp_path / "case.rwse"
    for data, message in cases.items():
        with pytest.raises(VectorFileError, match=re.escape(message)) as raised:
            StaticEmbedding.from_bytes(data)
        assert not PYTHON_REPR.search(str(raised.value)), str(raised.value)
        path.write_bytes(data)
        with pytest.raises(VectorFileError, match=re.escape("case.rwse: ") + ".*" + re.escape(message)):
            StaticEmbedding.from_path(path)


def test_from_path_names_the_file(tmp_path: Any) -> None:
    path = tmp_path / "broken.rwse"
    path.write_bytes(b"RWSE")
    with pytest.raises(VectorFileError, match=r"broken\.rwse: not a vector file"):
        StaticEmbedding.from_path(path)
    path.write_bytes(hand_file())
    assert StaticEmbedding.from_path(path).embed("car").vector == (1.0, 0.0)


def test_default_vector_path_is_the_repository_file() -> None:
    assert default_vector_path() == REAL_VECTORS


def project_2d(vectors: list[Any]) -> list[tuple[float, float]]:
    """Each vector's place on the map's plane, the plane found to a tolerance far below the tests'."""
    return list(principal_plane(vectors, tolerance=1e-12).records)


def test_project_2d_of_points_on_a_line() -> None:
    """One axis along the line (its largest coordinate positive), the other all zeros."""
    points = project_2d([(0.0, 0.0, 1.0), (1.0, 1.0, 1.0), (3.0, 3.0, 1.0)])
    r = math.sqrt(2) / 3
    assert np.allclose(points, [(-4 * r, 0.0), (-r, 0.0), (5 * r, 0.0)], rtol=0, atol=1e-12)
    assert all(y == 0.0 for _, y in points)
    assert project_2d([]) == [] and project_2d([(3.0, 4.0)]) == [(0.0, 0.0)]


def test_project_2d_keeps_distances_of_a_plane_and_matches_numpy() -> None:
    """Points spread mostly along two directions of 6-D space: PCA as numpy's SVD finds it, up to sign."""
    rng = np.random.default_rng(3)
    basis = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    flat = rng.normal(size=(12, 2)) * [5.0, 2.0]
    noise = rng.normal(size=(12, 4)) * 0.01
    vectors = np.hstack([flat, noise]) @ basis.T + 3.0
    got = np.array(project_2d(vectors.tolist()))
    centred = vectors - vectors.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    want = u[:, :2] * s[:2]
    assert np.allclose(np.abs(got), np.abs(want), atol=1e-9)
    for axis in range(2):
        assert got[np.argmax(np.abs(got[:, axis])), axis] > 0
    assert project_2d(vectors.tolist()) == project_2d(vectors.tolist())


def test_project_2d_of_a_circle_keeps_its_distances() -> None:
    """Equal spread in two directions (the two top eigenvalues equal): any rotation of the
    circle in its plane is right, so the distances between points are what is checked."""
    rng = np.random.default_rng(5)
    basis = np.linalg.qr(rng.normal(size=(8, 8)))[0][:, :2]
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    circle = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    got = np.array(project_2d((circle @ basis.T + 1.0).tolist()))
    distances = np.linalg.norm(circle[:, None] - circle[None], axis=2)
    assert np.allclose(np.linalg.norm(got[:, None] - got[None], axis=2), distances, atol=1e-9)


def test_project_2d_with_more_vectors_than_dimensions_matches_numpy() -> None:
    rng = np.random.default_rng(8)
    vectors = rng.normal(size=(40, 3)) * [4.0, 2.0, 0.5]
    got = np.array(project_2d(vectors.tolist()))
    u, s, _ = np.linalg.svd(vectors - vectors.mean(axis=0), full_matrices=False)
    assert np.allclose(np.abs(got), np.abs(u[:, :2] * s[:2]), atol=1e-9)


# -- the shipped file ------------------------------------------------------------------------

needs_real = pytest.mark.skipif(
    not (REAL_VECTORS.exists() and REAL_TOKENIZER.exists()), reason="embedding/ has no vectors yet"
)
_REAL: dict[str, Any] = {}


def real() -> tuple[StaticEmbedding, StaticModel, Tokenizer]:
    if not _REAL:
        data = REAL_VECTORS.read_bytes()
        tokenizer = Tokenizer.from_file(str(REAL_TOKENIZER))
        _REAL["all"] = (StaticEmbedding.from_bytes(data), oracle(data, tokenizer), tokenizer)
    found: tuple[StaticEmbedding, StaticModel, Tokenizer] = _REAL["all"]
    return found


@needs_real
def test_the_shipped_vocabulary_is_the_tokenizers() -> None:
    """Row i is token id i of embedding/tokenizer.json, and the header's settings are its."""
    ours, model, tokenizer = real()
    assert list(ours.tokenizer.vocabulary) == list(model.tokens)
    assert ours.tokenizer.special_tokens == tuple(
        token.content for token in tokenizer.get_added_tokens_decoder().values() if token.special
    )
    assert ours.median_token_length == model.median_token_length
    theirs = wordpiece_from_tokenizer_json(REAL_TOKENIZER.read_text(encoding="utf-8"))
    settings = ("unk_token", "prefix", "max_input_chars_per_word", "lowercase", "strip_accents", "handle_chinese_chars")
    assert [getattr(ours.tokenizer, name) for name in settings] == [getattr(theirs, name) for name in settings]
    assert ours.tokenizer.clean_text == theirs.clean_text


@needs_real
def test_long_texts_on_the_shipped_file_are_cut_as_model2vec_cuts_them() -> None:
    """Past 512 tokens, or past 512 x the median entry length in characters, nothing counts.

    model2vec is given the vectors in double precision here: over hundreds of tokens its float32
    sums drift past 1e-6 (512 times "e" is off by 1.2e-6), while the engine's sums are exact.
    """
    ours, _, tokenizer = real()
    model = StaticModel(
        vectors=read_rwse(REAL_VECTORS.read_bytes()).vectors.astype(np.float64), tokenizer=tokenizer, normalize=True
    )
    for text in ("servers live " * 400, "é " * 2000, "日本" * 1000, "x" * 5000, "deployment, " * 300 + "cat " * 300):
        embedded = ours.embed(text)
        assert embedded.truncated
        assert ours.token_ids(text) == [p.id for p in embedded.pieces]
        assert np.allclose(embedded.vector, model.encode(text), rtol=0, atol=1e-6), text[:20]
    assert not ours.embed("servers live " * 100).truncated


@needs_real
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(texts, st.text(max_size=60)), record=texts)
def test_shipped_vectors_equal_model2vec(text: str, record: str) -> None:
    ours, model, _ = real()
    embedded = ours.embed(text)
    assert np.allclose(embedded.vector, model.encode(text), rtol=0, atol=1e-6)
    record_vector = ours.embed(record).vector
    shares = parts(ours, embedded, record_vector)
    assert math.isclose(
        math.fsum(p.contribution for p in shares), cosine(embedded.vector, record_vector), rel_tol=1e-12, abs_tol=1e-12
    )


@needs_real
def test_shipped_neighbours_are_the_nearest() -> None:
    """The table's neighbours of a few tokens are the nearest by cosine over the whole vocabulary."""
    ours, model, _ = real()
    vectors = model.embedding / np.maximum(np.linalg.norm(model.embedding, axis=1, keepdims=True), 1e-30)
    special = {ours.tokenizer.index[t] for t in BERT_SPECIAL_TOKENS if t in ours.tokenizer.index}
    for word in ("car", "server", "live", "where"):
        token_id = ours.tokenizer.index[word]
        near = ours.neighbours(token_id)
        cosines = vectors @ vectors[token_id]
        cosines[[token_id, *special]] = -2
        best = np.argsort(-cosines, kind="stable")[: len(near)]
        assert [n.id for n in near] == best.tolist(), word
        assert np.allclose([n.cosine for n in near], cosines[best], atol=1e-6)

"""The embedding scorer's store reading (engine/semantic.py, engine/packing.py): the records' sums packed in
integers give the same contributions, similarities and map as plain floating-point
arithmetic on the vectors model2vec's way gives them, and the same as the path that does
not pack (a file whose scales are negative), and two tokens' cosine in whole numbers equals
the cosine of their vectors."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.embedding import StaticEmbedding
from engine.plane import MAP_SAMPLE
from engine.semantic import score_question_embedding, store_vectors
from engine.wordpiece import BERT_SPECIAL_TOKENS
from harness.meaning import cosine, parts
from harness.rwse import write_rwse

WORDS = "server servers live where do our team production deploy region car vehicle red blue the a of".split()
TOKENS = [*BERT_SPECIAL_TOKENS, *WORDS, "##s", "##ment"]


def files(seed: int, dims: int = 24) -> tuple[StaticEmbedding, StaticEmbedding]:
    """The same vectors twice: with positive scales (their sums packed in integers), and with
    every row and scale negated (a negative scale: the sums are added as floats)."""
    rng = random.Random(seed)
    rows = [[rng.randint(-127, 127) for _ in range(dims)] for _ in TOKENS]
    scales = [rng.choice([0.5, 0.013, 0.0071, 0.002]) for _ in TOKENS]
    packed = StaticEmbedding.from_bytes(write_rwse(TOKENS, rows, scales))
    negated = [[-x for x in row] for row in rows]
    unpacked = StaticEmbedding.from_bytes(write_rwse(TOKENS, negated, [-scale for scale in scales]))
    return packed, unpacked


PACKED, UNPACKED = files(3)
texts = st.lists(st.sampled_from([*WORDS, "deployment", "cars", "xyzzy", ",", "?"]), max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(texts, min_size=1, max_size=8), question=texts)
def test_packed_sums_score_as_the_vectors_do(records: list[str], question: str) -> None:
    reference = [PACKED.embed(text).vector for text in records]
    asked = PACKED.embed(question)
    scored = {
        name: score_question_embedding(store_vectors(embedding, records), question)
        for name, embedding in (("packed", PACKED), ("floats", UNPACKED))
    }
    assert store_vectors(PACKED, records).packed is not None
    assert store_vectors(UNPACKED, records).packed is None
    for scores in scored.values():
        for position, vector in enumerate(reference):
            # Each distinct token's part: c_t (v_t · d) / ‖Σv‖, here from model2vec's vectors.
            want: dict[int, float] = {}
            for part in parts(PACKED, asked, vector):
                want[part.piece.id] = want.get(part.piece.id, 0.0) + part.contribution
            got = dict(zip((t.id for t in scores.tokens), scores.contributions[position], strict=True))
            assert got.keys() == want.keys()
            for token_id, value in want.items():
                assert math.isclose(got[token_id], value, rel_tol=1e-12, abs_tol=1e-15)
            assert math.isclose(scores.similarity[position], cosine(asked.vector, vector), rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("size", [5, 3 * MAP_SAMPLE])
def test_records_are_placed_on_the_map_as_their_unit_vectors(size: int) -> None:
    rng = random.Random(size)
    records = [" ".join(rng.choices(WORDS, k=rng.randint(0, 6))) for _ in range(size)]
    packed, unpacked = store_vectors(PACKED, records), store_vectors(UNPACKED, records)
    for plane in (packed.plane, unpacked.plane):
        assert len(plane.records) == size
        for record, place in zip(records, plane.records, strict=True):
            expected = plane.place(PACKED.embed(record).vector)
            assert place == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_token_cosines_in_whole_numbers_equal_the_vectors_cosine() -> None:
    for a in range(len(TOKENS)):
        for b in range(len(TOKENS)):
            want = cosine(PACKED.vector(a), PACKED.vector(b))
            assert PACKED.token_cosine(a, b) == pytest.approx(want, rel=1e-12, abs=1e-15)
            assert UNPACKED.token_cosine(a, b) == pytest.approx(want, rel=1e-12, abs=1e-15)

"""The engine's numbers: hand-checked TF-IDF on tiny stores, and scikit-learn parity."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

import engine
from engine.tfidf import build_index, query_vector


def tiny_store(texts: list[str], question: str, ages: list[float] | None = None) -> dict[str, Any]:
    ages = ages or [0.0] * len(texts)
    return {
        "schema": 1,
        "title": "tiny",
        "tenants": [{"id": "t", "label": "T"}],
        "questions": [{"id": "q", "text": question, "supporting": {"t": []}}],
        "records": [
            {
                "id": f"R{i}",
                "tenant": "t",
                "store": "working",
                "session": "current",
                "age_hours": age,
                "key": None,
                "text": text,
            }
            for i, (text, age) in enumerate(zip(texts, ages, strict=True))
        ],
    }


def run_ok(store: dict[str, Any], **policy: Any) -> dict[str, Any]:
    result = engine.run({"store": store, "policy": {"max_age_hours": 100000, **policy}})
    assert "error" not in result, result
    return result  # type: ignore[return-value]


def sklearn_cosines(texts: list[str], question: str) -> list[float]:
    vectorizer = TfidfVectorizer(sublinear_tf=True, smooth_idf=True, norm="l2", stop_words=sorted(engine.STOP_WORDS))
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # every text is only stop words or one-letter words: empty vocabulary
        return [0.0] * len(texts)
    query = vectorizer.transform([question])
    return [float(x) for x in (matrix @ query.T).toarray().ravel()]


def test_idf_and_tf_follow_the_smoothed_sublinear_formulas() -> None:
    """'apple' in 1 of 2 records gets idf ln(3/2)+1; a term counted twice gets tf 1+ln 2."""
    index = build_index(("apple apple pear", "pear plum"))
    assert index.idf["apple"] == pytest.approx(math.log(3 / 2) + 1, abs=1e-15)
    assert index.idf["pear"] == pytest.approx(math.log(3 / 3) + 1, abs=1e-15)
    first = index.documents[0]
    raw_apple = (1 + math.log(2)) * (math.log(3 / 2) + 1)
    raw_pear = 1.0 * 1.0
    length = math.hypot(raw_apple, raw_pear)
    assert first.weight("apple", index.idf) == pytest.approx(raw_apple / length, abs=1e-15)
    assert first.weight("pear", index.idf) == pytest.approx(raw_pear / length, abs=1e-15)


def test_cosine_of_hand_computed_example() -> None:
    """Question 'pear' against 'apple apple pear': the cosine is pear's normalised weight."""
    result = run_ok(tiny_store(["apple apple pear", "pear plum"], "pear"))
    raw_apple = (1 + math.log(2)) * (math.log(3 / 2) + 1)
    expected = 1.0 / math.hypot(raw_apple, 1.0)
    assert result["records"][0]["cosine"] == pytest.approx(expected, abs=1e-15)
    # The second record: pear (idf 1) and plum (idf ln(3/2)+1), cosine = pear's share.
    plum = math.log(3 / 2) + 1
    assert result["records"][1]["cosine"] == pytest.approx(1.0 / math.hypot(1.0, plum), abs=1e-15)


def test_stop_words_one_letter_words_and_unknown_query_terms_are_dropped() -> None:
    """'the', 'a' and 'zebra' (in no record) do not count; the question keeps only 'pear'."""
    result = run_ok(tiny_store(["the pear", "a plum"], "The pear a zebra"))
    assert result["question"]["terms"] == ["pear"]
    assert result["question"]["dropped_terms"] == ["zebra"]
    assert result["records"][0]["cosine"] == pytest.approx(1.0)
    assert result["records"][1]["outcome"] == "no_shared_terms"


def test_term_parts_add_up_to_the_cosine(store: dict[str, Any]) -> None:
    """Every record's per-term contributions sum to its cosine, each being weight × weight."""
    for question in store["questions"]:
        result = run_ok(store, question=question["id"])
        for row in result["records"]:
            assert math.fsum(p["contribution"] for p in row["terms"]) == pytest.approx(row["cosine"], abs=1e-15)
            for part in row["terms"]:
                assert part["contribution"] == part["record_weight"] * part["query_weight"]
                assert part["record_tf"] == 1 + math.log(part["record_count"])


def test_score_blends_cosine_and_half_life_recency() -> None:
    """Score = (1 − w)·cosine + w·2^(−age/24): a 48-hour-old record has recency 0.25."""
    result = run_ok(tiny_store(["pear plum", "pear"], "pear", ages=[48, 0]), recency_weight=0.4)
    row = result["records"][0]
    assert row["recency"] == 0.25
    assert row["score"] == pytest.approx(0.6 * row["cosine"] + 0.4 * 0.25, abs=1e-15)


def test_default_store_cosines_match_scikit_learn(store: dict[str, Any]) -> None:
    """On the ten fixture records, every cosine for every question equals sklearn's within 1e-12."""
    texts = [record["text"] for record in store["records"]]
    for question in store["questions"]:
        result = run_ok(store, question=question["id"])
        expected = sklearn_cosines(texts, question["text"])
        for row, want in zip(result["records"], expected, strict=True):
            assert math.isclose(row["cosine"], want, abs_tol=1e-12), (question["id"], row["id"])


# Words that exercise the tokenizer: punctuation, digits, hyphens, case, accents,
# one-letter words, stop words, and plenty of repeats so records share terms.
WORD = st.one_of(
    st.sampled_from(
        [
            "deploy",
            "Deploy",
            "DEPLOY",
            "région",
            "region",
            "x",
            "I",
            "a",
            "the",
            "is",
            "42",
            "inc-42",
            "café",
            "naïve",
            "über",
            "v2.1",
            "co-op",
            "it's",
            "timeout",
            "time_out",
        ]
    ),
    st.text(alphabet="abcéü01-_.'!? ", min_size=1, max_size=7),
)
TEXT = st.lists(WORD, min_size=1, max_size=12).map(" ".join).filter(lambda text: text.strip() != "")


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=8), question=TEXT)
def test_generated_stores_match_scikit_learn(texts: list[str], question: str) -> None:
    """On generated text with accents, digits, hyphens and one-letter words, cosines equal sklearn's."""
    result = run_ok(tiny_store(texts, question))
    for row, want in zip(result["records"], sklearn_cosines(texts, question), strict=True):
        assert math.isclose(row["cosine"], want, abs_tol=1e-12)
        assert 0.0 <= row["cosine"] <= 1.0


def test_query_vector_ignores_terms_outside_the_vocabulary() -> None:
    """Out-of-vocabulary question terms change neither the vector nor the cosine."""
    index = build_index(("pear plum",))
    with_extra, dropped = query_vector(index, "pear kiwi kiwi")
    plain, _ = query_vector(index, "pear")
    assert with_extra.counts == plain.counts and with_extra.length == plain.length
    assert dropped == ["kiwi"]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_text_is_tokenized_as_the_unicode_pattern_does(text: str) -> None:
    """The faster ASCII path finds exactly scikit-learn's token_pattern tokens."""
    lowered = text.lower()
    assert engine.text.tokens(lowered) == engine.text.TOKEN_PATTERN.findall(lowered)

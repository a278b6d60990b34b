"""tools/distill_embedding.py's recipe on tiny hand-made inputs, and the committed embedding/ folder
checked against the vector-file contract (layout, vocabulary, neighbours, licence, notice)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from harness.rwse import dequantise, read_rwse  # noqa: E402
from tools import distill_embedding as distiller  # noqa: E402

EMBEDDING = distiller.OUT_DIR
SHIPPED = EMBEDDING / distiller.VECTOR_FILE
# The committed file's header, tokens, dequantised vectors (numpy) and bytes.
Shipped = tuple[dict[str, Any], list[str], Any, bytes]


def test_sif_weights_follow_zipf_rank() -> None:
    """Weight r is a/(a + p_r) with p_r ∝ 1/(r+2): for three tokens p = (6, 4, 3)/13."""
    weights = distiller.sif_weights(3, coefficient=0.5)
    expected = [0.5 / (0.5 + p) for p in (6 / 13, 4 / 13, 3 / 13)]
    np.testing.assert_allclose(weights, expected, rtol=1e-12)


def test_principal_axes_are_orthonormal_and_signed_by_their_largest_loading() -> None:
    """Axes come out orthonormal, by falling variance, each with its largest |loading| positive."""
    rng = np.random.default_rng(3)
    rows = (rng.normal(size=(200, 6)) * [5, 4, 3, 2, 1, 0.5]).astype(np.float32)
    mean, axes = distiller.principal_axes(rows)
    np.testing.assert_allclose(mean, rows.astype(np.float64).mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(axes @ axes.T, np.eye(6), atol=1e-9)
    biggest = axes[np.arange(6), np.argmax(np.abs(axes), axis=1)]
    assert (biggest > 0).all()
    projected = distiller.distil(rows, 6, (mean, axes)) / distiller.sif_weights(200)[:, None]
    variances = projected.var(axis=0)
    assert list(variances) == sorted(variances, reverse=True)


def test_int8_rows_round_trip_within_half_a_step() -> None:
    """Each row's largest |value| is stored as ±127, every value within half its row's step; a zero row stays zero."""
    rng = np.random.default_rng(5)
    vectors = np.vstack([rng.normal(size=(4, 16)), np.zeros((1, 16))]).astype(np.float32)
    scales, stored = distiller.quantise(vectors, "int8-row")
    assert stored.dtype == np.int8
    assert (np.abs(stored[:4]).max(axis=1) == 127).all()
    back = dequantise(scales, stored)
    assert (np.abs(back - vectors) <= scales[:, None] / 2 + 1e-7).all()
    assert (back[4] == 0).all()


def test_neighbours_skip_self_and_special_tokens_and_break_ties_by_id() -> None:
    """Nearest first by cosine; a row is never its own neighbour, excluded rows never anyone's; equal cosines go to the lower id."""
    vectors = np.array([[1, 0], [1, 0.01], [2, 0.02], [0, 1], [1, 0.001]], dtype=np.float32)
    excluded = np.array([False, False, False, False, True])
    near = distiller.nearest_neighbours(vectors, excluded, 2)
    # Rows 1 and 2 point the same way: row 0's tie goes to 1; row 4 is excluded though nearest.
    assert near[0].tolist() == [1, 2]
    assert near[1].tolist() == [2, 0]
    assert near[4].tolist() == [0, 1]
    assert 4 not in near


def test_trimmed_tokenizer_has_exactly_the_kept_vocabulary() -> None:
    """The rewritten tokenizer.json numbers the kept tokens 0..N-1 and its special tokens with them;
    a word needing a dropped piece is [UNK]; no padding, truncation or [CLS]/[SEP] are added."""
    tokenizers = pytest.importorskip("tokenizers")

    def special(content: str, id_: int) -> dict[str, object]:
        return {
            "id": id_,
            "content": content,
            "special": True,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
        }

    original = {
        "version": "1.0",
        "truncation": {"max_length": 2, "strategy": "LongestFirst", "stride": 0, "direction": "Right"},
        "padding": {
            "strategy": {"Fixed": 8},
            "direction": "Right",
            "pad_to_multiple_of": None,
            "pad_id": 0,
            "pad_type_id": 0,
            "pad_token": "[PAD]",
        },
        "added_tokens": [special("[PAD]", 0), special("[UNK]", 9), special("[CLS]", 10)],
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [10], "tokens": ["[CLS]"]}},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {
                "[PAD]": 0,
                "[unused0]": 1,
                "play": 2,
                "##ing": 3,
                "##s": 4,
                "cl": 5,
                "[": 6,
                "]": 7,
                "x": 8,
                "[UNK]": 9,
                "[CLS]": 10,
            },
        },
    }
    kept = ["[PAD]", "play", "##ing", "cl", "[", "]", "[UNK]", "[CLS]"]
    trimmed = distiller.trimmed_tokenizer_json(original, kept)
    tokenizer = tokenizers.Tokenizer.from_str(json.dumps(trimmed))
    assert tokenizer.get_vocab() == {t: i for i, t in enumerate(kept)}
    assert [a["id"] for a in trimmed["added_tokens"]] == [0, 6, 7]
    assert tokenizer.encode("Playing plays [CLS]").tokens == ["play", "##ing", "[UNK]", "[CLS]"]
    assert tokenizer.encode("Playing plays [CLS]").ids == [1, 2, 6, 7]


def test_vector_file_round_trips(tmp_path: Path) -> None:
    """rwse_bytes writes what read_rwse reads back: the header's counts, the tokens, the dequantised rows."""
    rng = np.random.default_rng(9)
    rows = rng.normal(size=(8, 12)).astype(np.float32)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "##c"]
    static = distiller.build(rows, tokens, dims=4, quantisation="int8-row", trim="none", neighbours=2)
    path = tmp_path / "x.rwse"
    path.write_bytes(distiller.rwse_bytes(static))
    head, read_tokens, vectors = read_rwse(path.read_bytes())
    assert (head["tokens"], head["dims"], head["neighbours"]) == (8, 4, 2)
    assert read_tokens == tokens
    np.testing.assert_array_equal(vectors, static.vectors())
    # Only a, b and ##c can be neighbours here.
    assert set(static.neighbours.ravel().tolist()) <= {5, 6, 7}


@pytest.fixture(scope="module")
def shipped() -> Shipped:
    if not SHIPPED.exists():
        pytest.fail(f"{SHIPPED} is missing: run python tools/distill_embedding.py")
    head, tokens, vectors = read_rwse(SHIPPED.read_bytes())
    return head, tokens, vectors, SHIPPED.read_bytes()


def test_shipped_header_has_the_contract_fields(shipped: Shipped) -> None:
    """The committed file's header holds every field the format contract names, with its values."""
    head, tokens, _, data = shipped
    assert head["format"] == 1
    assert head["quantisation"] == "int8-row"
    assert head["tokens"] == len(tokens) == len(set(tokens))
    expected = {
        "normalize": True,
        "unk_token": "[UNK]",
        "continuing_subword_prefix": "##",
        "max_input_chars_per_word": 100,
        "lowercase": True,
        "strip_accents": None,
        "handle_chinese_chars": True,
        "clean_text": True,
        "source": "sentence-transformers/all-MiniLM-L6-v2",
        "licence": "Apache-2.0",
    }
    assert {k: head[k] for k in expected} == expected
    assert head["recipe"]
    n, d, k = head["tokens"], head["dims"], head["neighbours"]
    header_length = int.from_bytes(data[4:8], "little")
    assert len(data) == 8 + header_length + head["vocab_bytes"] + 4 * n + n * d + 2 * n * k


def test_shipped_tokenizer_lists_the_same_tokens_in_row_order(shipped: Shipped) -> None:
    """embedding/tokenizer.json's vocabulary is the vector file's, token i = row i, with the header's settings."""
    head, tokens, _, _ = shipped
    tokenizer = json.loads((EMBEDDING / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    assert sorted(vocab, key=vocab.__getitem__) == tokens
    assert sorted(vocab.values()) == list(range(len(tokens)))
    assert tokenizer["model"]["unk_token"] == head["unk_token"]
    assert tokenizer["model"]["continuing_subword_prefix"] == head["continuing_subword_prefix"]
    assert tokenizer["model"]["max_input_chars_per_word"] == head["max_input_chars_per_word"]
    normalizer = tokenizer["normalizer"]
    assert (normalizer["lowercase"], normalizer["strip_accents"]) == (head["lowercase"], head["strip_accents"])
    assert not any(t.startswith("[unused") for t in tokens)


def test_shipped_neighbours_are_the_nearest_by_cosine(shipped: Shipped) -> None:
    """For a sample of tokens, the stored neighbours are the nearest other non-special tokens by cosine."""
    head, tokens, vectors, data = shipped
    n, k = head["tokens"], head["neighbours"]
    stored = np.frombuffer(data, dtype="<u2", count=n * k, offset=len(data) - 2 * n * k).reshape(n, k)
    special = np.array([t in distiller.SPECIAL_TOKENS for t in tokens])
    assert not special[stored].any()
    unit = vectors.astype(np.float64) / np.linalg.norm(vectors.astype(np.float64), axis=1)[:, None]
    sample = np.random.default_rng(11).choice(n, size=100, replace=False)
    for i in sample:
        sims = unit @ unit[i]
        sims[special] = -np.inf
        sims[i] = -np.inf
        expected = np.lexsort((np.arange(n), -sims))[:k]
        assert stored[i].tolist() == expected.tolist(), tokens[i]


def test_shipped_folder_carries_licence_notice_and_fits_the_budget(
    shipped: Shipped,
) -> None:
    """The Apache-2.0 text and a notice naming the source and the rebuild command travel with the vectors, within 8 MB gzipped."""
    _, _, _, data = shipped
    assert "Apache License" in (EMBEDDING / "LICENSE").read_text(encoding="utf-8")
    notice = (EMBEDDING / "NOTICE.md").read_text(encoding="utf-8")
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice
    assert "python tools/distill_embedding.py" in notice
    assert len(gzip.compress(data, compresslevel=9, mtime=0)) <= 8_000_000

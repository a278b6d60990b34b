"""The ``.rwse`` vector files' one writer (layout in embedding/README.md), which writes the shipped
file (tools/distill_embedding.py) and the tests' small hand-made ones, and their one reader into
numpy (after the engine's header reader), whose dequantised vectors the distiller, the benchmark
and the model2vec oracle use; and a BERT WordPiece tokenizer built with Hugging Face
``tokenizers`` over any vocabulary (the oracle for engine/wordpiece.py)."""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.embedding import read_header
from engine.wordpiece import BERT_SPECIAL_TOKENS

# all-MiniLM-L6-v2's tokenizer settings (its tokenizer.json), as the format's header states them:
# the distiller writes them into the shipped file and the hand-made test files copy them.
MINILM_TOKENIZER: dict[str, Any] = {
    "normalize": True,
    "unk_token": "[UNK]",
    "continuing_subword_prefix": "##",
    "max_input_chars_per_word": 100,
    "lowercase": True,
    "strip_accents": None,
    "handle_chinese_chars": True,
    "clean_text": True,
}

# The header of a hand-made test file.
BERT_HEADER: dict[str, Any] = {
    "format": 1,
    "quantisation": "int8-row",
    **MINILM_TOKENIZER,
    "source": "hand-made test vectors",
    "licence": "MIT",
    "recipe": "written by hand",
}


def bert_tokenizer(vocabulary: Sequence[str], max_input_chars_per_word: int = 100, **normalizer: Any) -> Any:
    """A ``tokenizers.Tokenizer`` set up as all-MiniLM-L6-v2's is (BERT normaliser, pre-tokeniser,
    WordPiece, the special tokens matched as added tokens), over ``vocabulary`` in id order."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = {token: i for i, token in enumerate(vocabulary)}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=max_input_chars_per_word))
    options = {"clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True}
    tokenizer.normalizer = normalizers.BertNormalizer(**(options | normalizer))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.add_special_tokens([token for token in BERT_SPECIAL_TOKENS if token in vocab])
    return tokenizer


def encode_rwse(
    header: Mapping[str, Any],
    tokens: Sequence[str],
    rows: Sequence[Sequence[float]],
    scales: Sequence[float] | None,
    neighbours: Sequence[Sequence[int]] = (),
) -> bytes:
    """The one .rwse writer (layout in embedding/README.md): magic, header length and JSON header,
    vocabulary, scales, rows, neighbours, little-endian. The header gets the counts (dims, tokens,
    neighbours, vocab_bytes) unless ``header`` gives them itself, as a test of a lying file does.
    With ``scales`` the rows are int8; without (float32 files, for measurement) they are float32."""
    if any("\n" in token for token in tokens):
        raise ValueError("a token contains a newline")
    vocab = "\n".join(tokens).encode("utf-8")
    counts = {"dims": len(rows[0]), "tokens": len(tokens), "neighbours": len(neighbours[0]) if neighbours else 0}
    full = counts | {"vocab_bytes": len(vocab)} | dict(header)
    head = json.dumps(full, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    parts = [b"RWSE", struct.pack("<I", len(head)), head, vocab]
    if scales is None:
        parts += [struct.pack(f"<{len(row)}f", *row) for row in rows]
    else:
        parts.append(struct.pack(f"<{len(scales)}f", *scales))
        parts += [struct.pack(f"<{len(row)}b", *row) for row in rows]
    parts += [struct.pack(f"<{len(ids)}H", *ids) for ids in neighbours]
    return b"".join(parts)


def write_rwse(
    tokens: Sequence[str],
    rows: Sequence[Sequence[int]],
    scales: Sequence[float],
    neighbours: Sequence[Sequence[int]] = (),
    **header: Any,
) -> bytes:
    """A hand-made test file: each token's int8 row and float32 scale, and its nearest tokens' ids;
    ``header`` adds to or overrides BERT_HEADER and the counts."""
    return encode_rwse(BERT_HEADER | header, tokens, rows, scales, neighbours)


class Decoded(NamedTuple):
    """A vector file's header, tokens and dequantised vectors (a float32 numpy array)."""

    header: dict[str, Any]
    tokens: list[str]
    vectors: Any


def dequantise(scales: Any, rows: Any) -> Any:
    """Token i's vector = row_i * scale_i, in float32 (what model2vec is given; the engine's
    product is exact in a double)."""
    import numpy as np

    return (rows.astype(np.float32) * scales[:, None]).astype(np.float32)


def read_rwse(data: bytes) -> Decoded:
    """The file's header, tokens and vectors: int8 rows dequantised, or float32 rows as they are."""
    import numpy as np

    header, at = read_header(io.BytesIO(data), len(data))
    tokens = data[at : at + header["vocab_bytes"]].decode("utf-8").split("\n")
    at += header["vocab_bytes"]
    n, d = header["tokens"], header["dims"]
    if header["quantisation"] == "int8-row":
        scales = np.frombuffer(data, dtype="<f4", count=n, offset=at).astype(np.float32)
        rows = np.frombuffer(data, dtype=np.int8, count=n * d, offset=at + 4 * n).reshape(n, d)
        return Decoded(header, tokens, dequantise(scales, rows))
    vectors = np.frombuffer(data, dtype="<f4", count=n * d, offset=at).reshape(n, d).astype(np.float32)
    return Decoded(header, tokens, vectors)

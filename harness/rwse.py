"""Test material for the static embedding: small ``.rwse`` vector files (layout in engine/embedding.py),
their vectors dequantised as numpy does for the model2vec oracle, and a BERT WordPiece tokenizer
built with Hugging Face ``tokenizers`` over any vocabulary (the oracle for engine/wordpiece.py)."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import Any

from engine.wordpiece import BERT_SPECIAL_TOKENS

# What all-MiniLM-L6-v2's tokenizer.json sets, as the format's header states it.
BERT_HEADER: dict[str, Any] = {
    "format": 1,
    "quantisation": "int8-row",
    "normalize": True,
    "unk_token": "[UNK]",
    "continuing_subword_prefix": "##",
    "max_input_chars_per_word": 100,
    "lowercase": True,
    "strip_accents": None,
    "handle_chinese_chars": True,
    "clean_text": True,
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


def write_rwse(
    tokens: Sequence[str],
    rows: Sequence[Sequence[int]],
    scales: Sequence[float],
    neighbours: Sequence[Sequence[int]] = (),
    **header: Any,
) -> bytes:
    """A vector file: each token's int8 row and float32 scale, and its nearest tokens' ids."""
    vocab = "\n".join(tokens).encode("utf-8")
    k = len(neighbours[0]) if neighbours else 0
    full = BERT_HEADER | {"dims": len(rows[0]), "tokens": len(tokens), "neighbours": k, "vocab_bytes": len(vocab)}
    head = json.dumps(full | header).encode("utf-8")
    body = [b"RWSE", struct.pack("<I", len(head)), head, vocab, struct.pack(f"<{len(scales)}f", *scales)]
    body += [struct.pack(f"<{len(row)}b", *row) for row in rows]
    body += [struct.pack(f"<{len(ids)}H", *ids) for ids in neighbours]
    return b"".join(body)


def dequantised(data: bytes) -> Any:
    """The file's vectors as a float32 numpy array, row times scale in float32 (what model2vec is given)."""
    import numpy as np

    (length,) = struct.unpack_from("<I", data, 4)
    header = json.loads(data[8 : 8 + length])
    n, d = header["tokens"], header["dims"]
    at = 8 + length + header["vocab_bytes"]
    scales = np.frombuffer(data, dtype="<f4", count=n, offset=at)
    rows = np.frombuffer(data, dtype=np.int8, count=n * d, offset=at + 4 * n).reshape(n, d)
    return rows.astype(np.float32) * scales[:, None].astype(np.float32)

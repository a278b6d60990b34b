"""Static embeddings: reading and checking a ``.rwse`` vector file (its layout is in
embedding/README.md), and a text's vector exactly as model2vec's ``StaticModel.encode``
computes it.

A text's vector, as model2vec computes it (``normalize=True``, ``max_length`` 512)::

    text      cut to its first max_length * m characters, m = the median length of the
              vocabulary's entries (``##`` counted), before tokenizing
    tokens    WordPiece without special tokens added, the first max_length kept, then every
              unknown token ([UNK]) dropped: an unknown word adds nothing
    vector    the mean of the tokens' vectors, divided by its length; a text left with no
              token (empty, or only unknown words) has the zero vector and scores 0

Each token's vector is the file's int8 row times the row's float32 scale, a product a double
holds exactly (model2vec is given it rounded to float32, and adds in float32: the two agree
within about 1e-7). A text's sum of token vectors is exact (``packing.py``), then rounded
once, so it has the same bits in every Python; two tokens' cosine is their int8 rows', in
whole numbers.
"""

from __future__ import annotations

import io
import json
import math
import os
import struct
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .floats import norm
from .packing import IntegerRows, little_endian_array
from .wordpiece import Piece, WordPiece

MAGIC = b"RWSE"
FORMAT = 1
# model2vec's StaticModel default: at most 512 tokens (and 512 times the median entry's length
# in characters) of a text count.
DEFAULT_MAX_LENGTH = 512
DEFAULT_VECTORS = Path(__file__).resolve().parent.parent / "embedding" / "minilm-static.rwse"

# Header keys the engine needs, with their types; `strip_accents` may also be null.
_HEADER_KEYS: dict[str, type] = {
    "format": int,
    "dims": int,
    "tokens": int,
    "neighbours": int,
    "quantisation": str,
    "normalize": bool,
    "unk_token": str,
    "continuing_subword_prefix": str,
    "max_input_chars_per_word": int,
    "lowercase": bool,
    "handle_chinese_chars": bool,
    "clean_text": bool,
    "vocab_bytes": int,
}


# Each header type as a message names it, in JSON's words rather than Python's.
_KIND_WORDS = {int: "a whole number", str: "text", bool: "true or false"}


class VectorFileError(ValueError):
    """The bytes are not a vector file this engine can read; the message says what is wrong."""


def _json(value: Any) -> str:
    """A header value as its JSON text, cut short: the file's own spelling, not Python's."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _not_utf8(what: str, error: UnicodeDecodeError) -> VectorFileError:
    return VectorFileError(f"{what} is not UTF-8 text (from its byte {error.start})")


@dataclass(frozen=True, slots=True)
class Embedded:
    """A text's vector, the tokens averaged into it, and what was left out."""

    vector: tuple[float, ...]  # unit length (the mean if the file says normalize: false); zeros if no token is left
    pieces: tuple[Piece, ...]  # the tokens whose vectors were averaged, in order
    unknown: tuple[Piece, ...]  # unknown tokens, dropped as model2vec drops them
    truncated: bool  # the text was longer than model2vec reads
    total_length: float  # ‖Σ v_j‖, the length of the tokens' vectors added up (0 when none)


@dataclass(frozen=True, slots=True)
class Near:
    """A vocabulary token and its cosine with another token."""

    id: int
    token: str
    cosine: float


def default_vector_path() -> Path:
    """Where the repository keeps its vector file (it may not exist, e.g. in an installed wheel)."""
    return DEFAULT_VECTORS


class StaticEmbedding:
    """One vector per vocabulary token, read from a ``.rwse`` file, and the tokenizer that goes with it.

    Made by ``from_bytes`` or ``from_path``, which check the file first.
    """

    def __init__(self, header: dict[str, Any], tokens: list[str], scales: array[float], body: bytearray) -> None:
        """``body`` is the file from the rows on: the int8 rows, then the neighbour table."""
        self.header = header
        self.dims: int = header["dims"]
        self.size: int = header["tokens"]
        self.neighbour_count: int = header["neighbours"]
        self.normalize: bool = header["normalize"]
        self.max_length: int | None = header.get("max_length", DEFAULT_MAX_LENGTH)
        self.tokenizer = WordPiece(
            tokens,
            unk_token=header["unk_token"],
            continuing_subword_prefix=header["continuing_subword_prefix"],
            max_input_chars_per_word=header["max_input_chars_per_word"],
            lowercase=header["lowercase"],
            strip_accents=header["strip_accents"],
            handle_chinese_chars=header["handle_chinese_chars"],
            clean_text=header["clean_text"],
            special_tokens=header.get("special_tokens"),
        )
        self.unk_id = self.tokenizer.unk_id
        self.median_token_length = _median_length(tokens)
        if not all(math.isfinite(scale) for scale in scales):
            raise ValueError("a row's scale is not a finite number")
        self._scales = scales
        rows_end = self.size * self.dims
        # Sums of rows and rows' dot products are taken in whole numbers.
        self.integers = IntegerRows(memoryview(body)[:rows_end], self.dims, scales)
        self._neighbours = _little_endian_view("H", body, rows_end, len(body))
        self._vectors: dict[int, array[float]] = {}

    # -- reading --------------------------------------------------------------------------

    @classmethod
    def from_path(cls, path: str | Path) -> StaticEmbedding:
        """Read a vector file; errors name the file. The rows are read straight into the
        buffer that keeps them: the file is never held whole beside them."""
        try:
            with open(path, "rb") as file:
                return cls._read(file, os.fstat(file.fileno()).st_size)
        except VectorFileError as error:
            raise VectorFileError(f"{path}: {error}") from None

    @classmethod
    def from_bytes(cls, data: bytes) -> StaticEmbedding:
        """Parse and check a vector file held in memory."""
        return cls._read(io.BytesIO(data), len(data))

    @classmethod
    def _read(cls, file: io.BufferedIOBase, size: int) -> StaticEmbedding:
        """Parse and check a vector file of ``size`` bytes, read from its start."""
        header, vocabulary_start = read_header(file, size)
        _check_header(header)
        n, d, k = header["tokens"], header["dims"], header["neighbours"]
        expected = vocabulary_start + header["vocab_bytes"] + 4 * n + n * d + 2 * n * k
        if size != expected:
            raise VectorFileError(
                f"the file is {size} bytes, but its header ({n} tokens of {d} dimensions, {k} neighbours each, "
                f"{header['vocab_bytes']} bytes of vocabulary) makes {expected}"
            )
        try:
            tokens = file.read(header["vocab_bytes"]).decode("utf-8").split("\n")
        except UnicodeDecodeError as error:
            raise _not_utf8("the vocabulary", error) from None
        if len(tokens) != n:
            raise VectorFileError(f"the vocabulary holds {len(tokens)} tokens, the header says {n}")
        scales = little_endian_array("f", file.read(4 * n))
        body = bytearray(n * d + 2 * n * k)
        if file.readinto(body) != len(body):
            raise VectorFileError("the file ended before its rows and neighbours did (was it changed while read?)")
        try:
            embedding = cls(header, tokens, scales, body)
        except ValueError as error:
            raise VectorFileError(str(error)) from None
        if k and max(embedding._neighbours) >= n:
            raise VectorFileError(f"a neighbour id is not below {n}, the number of tokens")
        return embedding

    # -- tokens and their vectors ---------------------------------------------------------

    def token(self, token_id: int) -> str:
        """The vocabulary entry with this id."""
        return self.tokenizer.vocabulary[token_id]

    def vector(self, token_id: int) -> array[float]:
        """A token's vector, decoded from its int8 row once and kept."""
        vector = self._vectors.get(token_id)
        if vector is None:
            if not 0 <= token_id < self.size:
                raise IndexError(f"token id {token_id} is not below {self.size}")
            scale = self._scales[token_id]
            vector = self._vectors[token_id] = array("d", [q * scale for q in self.integers.row(token_id)])
        return vector

    def token_cosine(self, a: int, b: int) -> float:
        """The cosine of two tokens' vectors: their scales cancel but for their signs, so it is
        the int8 rows' dot product over their lengths, whole numbers until the one division."""
        sign = self._scales[a] * self._scales[b]
        squares = self.integers.square(a) * self.integers.square(b)
        if not sign or not squares:
            return 0.0
        cosine = self.integers.dot(a, b) / math.sqrt(squares)
        return cosine if sign > 0 else -cosine

    # -- texts ------------------------------------------------------------------------------

    def embed(self, text: str) -> Embedded:
        """The text's vector as model2vec's ``StaticModel.encode`` gives it, with the tokens behind it."""
        cut = self._cut(text)
        pieces = self.tokenizer.encode(cut)
        truncated = len(cut) < len(text)
        if self.max_length is not None and len(pieces) > self.max_length:
            pieces = pieces[: self.max_length]
            truncated = True
        used = tuple(piece for piece in pieces if piece.id != self.unk_id)
        unknown = tuple(piece for piece in pieces if piece.id == self.unk_id)
        sums = self._sums([piece.id for piece in used])
        length = norm(sums)
        if not length:
            vector = tuple(0.0 for _ in range(self.dims))
        elif self.normalize:
            vector = tuple(s / length for s in sums)
        else:
            vector = tuple(s / len(used) for s in sums)
        return Embedded(vector, used, unknown, truncated, length)

    def token_ids(self, text: str) -> list[int]:
        """The ids of the tokens ``embed`` averages, in order, found without their spans."""
        ids = self.tokenizer.ids(self._cut(text))
        if self.max_length is not None:
            ids = ids[: self.max_length]
        return [token_id for token_id in ids if token_id != self.unk_id]

    def _cut(self, text: str) -> str:
        """The text as model2vec reads it: its first ``max_length`` times the median entry's length characters."""
        return text if self.max_length is None else text[: self.max_length * self.median_token_length]

    def _sums(self, ids: Sequence[int]) -> list[float]:
        """Σ of the tokens' vectors, each component the exact sum rounded once."""
        sums = self.integers.sums(ids)
        if sums is None:
            return [math.fsum(column) for column in zip(*(self.vector(i) for i in ids), strict=True)] or [
                0.0
            ] * self.dims
        return sums

    # -- neighbours -------------------------------------------------------------------------

    def neighbours(self, token_id: int) -> tuple[Near, ...]:
        """The token's nearest vocabulary tokens, from the file's table (nearest first), with their cosines."""
        if not 0 <= token_id < self.size:
            raise IndexError(f"token id {token_id} is not below {self.size}")
        k = self.neighbour_count
        ids = self._neighbours[token_id * k : (token_id + 1) * k]
        return tuple(Near(other, self.token(other), self.token_cosine(token_id, other)) for other in ids)


def read_header(file: io.BufferedIOBase, size: int) -> tuple[Any, int]:
    """The JSON header of a vector file of ``size`` bytes, read from its start (not checked
    further), and where the vocabulary after it starts."""
    start = file.read(8)
    if not start:
        raise VectorFileError("not a vector file: it is empty")
    if start[:4] != MAGIC[: len(start)]:
        head = start[:4]
        # Text when it is printable (another format's own magic, often), else the bytes in hex.
        shown = json.dumps(head.decode()) if all(32 <= b < 127 for b in head) else "the bytes " + head.hex(" ")
        raise VectorFileError(f"not a vector file: it does not start with {MAGIC.decode()} (it starts with {shown})")
    if len(start) < 8:
        raise VectorFileError(
            f"not a vector file: it is {len(start)} bytes long, too short for a vector file's 8-byte start"
        )
    (header_length,) = struct.unpack_from("<I", start, 4)
    if 8 + header_length > size:
        raise VectorFileError(f"the header says it is {header_length} bytes long, past the file's end")
    try:
        text = file.read(header_length).decode("utf-8")
    except UnicodeDecodeError as error:
        raise _not_utf8("the header", error) from None
    try:
        header = json.loads(text)
    except json.JSONDecodeError as error:
        raise VectorFileError(f"the header is not JSON (at line {error.lineno}, column {error.colno})") from None
    return header, 8 + header_length


def _check_header(header: Any) -> None:
    if not isinstance(header, dict):
        raise VectorFileError("the header is not a JSON object")
    for key, kind in _HEADER_KEYS.items():
        if key not in header:
            raise VectorFileError(f"the header has no {_json(key)}")
        value = header[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise VectorFileError(f"the header's {_json(key)} should be {_KIND_WORDS[kind]}, not {_json(value)}")
    if header["format"] != FORMAT:
        raise VectorFileError(f"format {header['format']} is not {FORMAT}, the one this engine reads")
    if header["quantisation"] != "int8-row":
        raise VectorFileError(
            f'quantisation {_json(header["quantisation"])} is not "int8-row", the one this engine reads'
        )
    if header.get("strip_accents", None) not in (None, True, False):
        raise VectorFileError(
            f'the header\'s "strip_accents" should be true, false or null, not {_json(header["strip_accents"])}'
        )
    header.setdefault("strip_accents", None)
    for key in ("dims", "tokens", "max_input_chars_per_word"):
        if header[key] < 1:
            raise VectorFileError(f"the header's {_json(key)} should be at least 1, not {header[key]}")
    for key in ("neighbours", "vocab_bytes"):
        if header[key] < 0:
            raise VectorFileError(f"the header's {_json(key)} should not be negative, not {header[key]}")
    if header["neighbours"] >= header["tokens"]:
        raise VectorFileError(f"{header['neighbours']} neighbours per token, but only {header['tokens']} tokens")
    max_length = header.get("max_length", DEFAULT_MAX_LENGTH)
    if max_length is not None and (not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1):
        raise VectorFileError(
            f'the header\'s "max_length" should be a whole number of at least 1, or null, not {_json(max_length)}'
        )
    special = header.get("special_tokens")
    if special is not None and not (isinstance(special, list) and all(isinstance(s, str) for s in special)):
        raise VectorFileError('the header\'s "special_tokens" should be a list of texts')


def _median_length(tokens: Sequence[str]) -> int:
    """numpy's median of the entries' lengths (the mean of the middle two for an even count),
    cut to an int as model2vec does; counted by length rather than sorted."""
    counts = Counter(map(len, tokens))
    middle = len(tokens) // 2
    wanted = (middle,) if len(tokens) % 2 else (middle - 1, middle)
    found: list[int] = []
    seen = 0
    for length in sorted(counts):
        seen += counts[length]
        found += [length for index in wanted[len(found) :] if index < seen]
    return int(sum(found) / len(found)) if found else 0


def _little_endian_view(code: str, data: bytes | bytearray, start: int, end: int) -> Sequence[Any]:
    """Little-endian numbers in ``data[start:end]``, read in place where the machine's order is theirs."""
    if sys.byteorder == "little":
        view: Any = memoryview(data)[start:end]
        numbers: Sequence[Any] = view.cast(code)
        return numbers
    return little_endian_array(code, data[start:end])

"""WordPiece tokenizing exactly as Hugging Face ``tokenizers`` runs a BERT ``tokenizer.json``.

The pipeline, in ``tokenizers``' order::

    special tokens  found in the raw text first (leftmost, longest), kept whole, never normalised
    clean_text      drop NUL, U+FFFD and control/format/private-use characters; whitespace -> " "
    chinese chars   a space either side of each CJK ideograph, so each is a word of its own
    strip_accents   (when None, follows lowercase) NFD, then drop the nonspacing marks (Mn)
    lowercase       character by character (Rust's char::to_lowercase: no final-sigma rule)
    pre-tokenize    split on whitespace (dropped) and around each punctuation character (kept);
                    punctuation is ASCII's (so ``$+<=>^`|~`` too) plus Unicode's P* categories
    WordPiece       per word, greedy longest match first from the left, later pieces looked up
                    with the ``##`` prefix; a word with a part no entry matches, or longer than
                    ``max_input_chars_per_word`` characters, becomes one unknown token

``tokenizers`` classifies characters with older Unicode tables than Python's and lowercases
with newer ones, so which characters are controls, punctuation, marks or decompose comes from
``wordpiece_tables``, measured on ``tokenizers`` itself; ``unicodedata`` supplies only the
decompositions and combining classes those tables say ``tokenizers`` knows too.
Offsets count code points of the text given, as ``tokenizers``' Python ``Encoding.offsets`` do.
"""

from __future__ import annotations

import json
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from . import wordpiece_tables

# BERT's special tokens: tokenizer.json lists them as added tokens, matched in the raw text.
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

# The caches of characters and words are bounded so that no text, however long or strange,
# can grow them without end.
_CHAR_CACHE_LIMIT = 20_000
_WORD_CACHE_LIMIT = 200_000

_WORD, _SPACE, _PUNCTUATION = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Piece:
    """One token: its vocabulary entry (``##ing``, or the unknown token), id and source span."""

    text: str
    id: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Classes:
    """The character tables, parsed once."""

    removed: tuple[int, ...]
    to_space: tuple[int, ...]
    whitespace: tuple[int, ...]
    punctuation: tuple[int, ...]
    chinese: tuple[int, ...]
    marks: tuple[int, ...]
    decomposed: tuple[int, ...]
    combining: tuple[int, ...]
    lowercase: dict[str, str]


def _bounds(text: str) -> tuple[int, ...]:
    """``a-b c`` ranges (hexadecimal, ends included) as alternating starts and exclusive ends."""
    bounds: list[int] = []
    for word in text.split():
        first, _, last = word.partition("-")
        bounds += (int(first, 16), int(last or first, 16) + 1)
    return tuple(bounds)


@cache
def _classes() -> _Classes:
    t = wordpiece_tables
    lowercase = {}
    for entry in t.LOWERCASE.split():
        code, _, lowered = entry.partition(":")
        lowercase[chr(int(code, 16))] = "".join(chr(int(x, 16)) for x in lowered.split(","))
    return _Classes(
        removed=_bounds(t.REMOVED),
        to_space=_bounds(t.TO_SPACE),
        whitespace=_bounds(t.WHITESPACE),
        punctuation=_bounds(t.PUNCTUATION),
        chinese=_bounds(t.CHINESE),
        marks=_bounds(t.NONSPACING_MARKS),
        decomposed=_bounds(t.DECOMPOSED),
        combining=_bounds(t.COMBINING),
        lowercase=lowercase,
    )


class WordPiece:
    """A BERT WordPiece tokenizer over a vocabulary (token id = position in the list)."""

    def __init__(
        self,
        vocabulary: Sequence[str],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
        lowercase: bool = True,
        strip_accents: bool | None = None,
        handle_chinese_chars: bool = True,
        clean_text: bool = True,
        special_tokens: Sequence[str] | None = None,
    ) -> None:
        self.vocabulary: tuple[str, ...] = tuple(vocabulary)
        self.index: dict[str, int] = {}
        for i, token in enumerate(self.vocabulary):
            if token in self.index:
                raise ValueError(
                    f"the vocabulary lists {json.dumps(token, ensure_ascii=False)} twice (ids {self.index[token]} and {i})"
                )
            self.index[token] = i
        if unk_token not in self.index:
            raise ValueError(f"the unknown token {json.dumps(unk_token, ensure_ascii=False)} is not in the vocabulary")
        if max_input_chars_per_word < 1:
            raise ValueError(f"max_input_chars_per_word must be at least 1, not {max_input_chars_per_word}")
        self.unk_token = unk_token
        self.unk_id = self.index[unk_token]
        self.prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.lowercase = lowercase
        self.strip_accents = lowercase if strip_accents is None else strip_accents
        self.handle_chinese_chars = handle_chinese_chars
        self.clean_text = clean_text
        if special_tokens is None:
            special_tokens = [token for token in BERT_SPECIAL_TOKENS if token in self.index]
        for token in special_tokens:
            if token not in self.index or not token:
                raise ValueError(f"the special token {json.dumps(token, ensure_ascii=False)} is not in the vocabulary")
        self.special_tokens: tuple[str, ...] = tuple(special_tokens)
        self._longest = max(len(token) for token in self.vocabulary)
        self._classes = _classes()
        # ASCII text (most of it) takes a shortcut: no character of it decomposes, is a mark or
        # CJK, so cleaning is a translation and the words a regular expression's matches.
        ascii_chars = [chr(code) for code in range(128)]
        self._ascii_clean = {ord(c): self._spaced(c) or None for c in ascii_chars if self._spaced(c) != c}
        spaces = "".join(f"\\x{ord(c):02x}" for c in ascii_chars if self._kind(c) == _SPACE)
        marks = "".join(f"\\x{ord(c):02x}" for c in ascii_chars if self._kind(c) == _PUNCTUATION)
        self._ascii_words = re.compile(f"[^{spaces}{marks}]+|[{marks}]")
        # Per character: its normalised text, and whether canonical reordering could move it.
        self._chars: dict[str, tuple[str, bool]] = {}
        self._kinds: dict[str, int] = {}
        self._words: dict[str, tuple[tuple[str, int, int, int], ...]] = {}

    # -- the public surface -------------------------------------------------------------

    def encode(self, text: str) -> list[Piece]:
        """The text's tokens, as ``Tokenizer.encode(text, add_special_tokens=False)`` gives them."""
        pieces: list[Piece] = []
        for segment, base, special in self._segments(text):
            if special is None:
                self._encode_segment(segment, base, pieces)
            else:
                pieces.append(Piece(special, self.index[special], base, base + len(special)))
        return pieces

    def tokens(self, text: str) -> list[str]:
        """The tokens' vocabulary entries."""
        return [piece.text for piece in self.encode(text)]

    def ids(self, text: str) -> list[int]:
        """The tokens' ids, as ``encode`` gives them, without working out where each came from."""
        ids: list[int] = []
        for segment, _, special in self._segments(text):
            if special is None:
                normalized = self._normalize(segment, 0)[0]
                for a, b in self._spans(normalized):
                    ids += [token_id for _, token_id, _, _ in self._word_pieces(normalized[a:b])]
            else:
                ids.append(self.index[special])
        return ids

    def normalize(self, text: str) -> str:
        """The normaliser alone (``BertNormalizer.normalize_str``)."""
        return self._normalize(text, 0)[0]

    def pre_tokenize(self, normalized: str) -> list[tuple[str, tuple[int, int]]]:
        """The pre-tokeniser alone on normalised text (``BertPreTokenizer.pre_tokenize_str``)."""
        return [(normalized[a:b], (a, b)) for a, b in self._word_spans(normalized)]

    # -- the steps ----------------------------------------------------------------------

    def _special_matches(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping special tokens in the text, leftmost first and longest at a place."""
        found = []
        for token in self.special_tokens:
            at = text.find(token)
            while at >= 0:
                found.append((at, -len(token), token))
                at = text.find(token, at + 1)
        matches = []
        end = 0
        for at, minus_length, token in sorted(found):
            if at >= end:
                end = at - minus_length
                matches.append((at, end, token))
        return matches

    def _segments(self, text: str) -> Iterator[tuple[str, int, str | None]]:
        """The text cut at its special tokens: each part, where it starts, and the special
        token it is (None for the text between them, which may be empty)."""
        at = 0
        for start, end, special in self._special_matches(text):
            yield text[at:start], at, None
            yield special, start, special
            at = end
        yield text[at:], at, None

    def _encode_segment(self, segment: str, base: int, pieces: list[Piece]) -> None:
        if not segment:
            return
        normalized, origins = self._normalize(segment, base)
        for a, b in self._spans(normalized):
            for text, token_id, start, end in self._word_pieces(normalized[a:b]):
                span = origins[a + start : a + end]
                pieces.append(Piece(text, token_id, min(span), max(span) + 1))

    def _spans(self, normalized: str) -> list[tuple[int, int]]:
        """The words' spans in normalised text; ASCII text by one regular expression."""
        if normalized.isascii():
            return [m.span() for m in self._ascii_words.finditer(normalized)]
        return self._word_spans(normalized)

    def _normalize(self, segment: str, base: int) -> tuple[str, Sequence[int]]:
        """The normalised text, with each of its characters' index in the original text."""
        if segment.isascii():
            cleaned = segment.translate(self._ascii_clean)
            if self.lowercase:
                cleaned = cleaned.lower()
            if len(cleaned) == len(segment):
                return cleaned, range(base, base + len(segment))
            return cleaned, [i for i, c in enumerate(segment, base) if self._ascii_clean.get(ord(c), c)]
        parts: list[str] = []
        origins: list[int] = []
        chars = self._chars
        for i, c in enumerate(segment, base):
            entry = chars.get(c)
            if entry is None:
                if len(chars) >= _CHAR_CACHE_LIMIT:
                    chars.clear()
                entry = chars[c] = self._char(c)
            out, movable = entry
            if movable:
                return self._normalize_reordering(segment, base)
            if len(out) == 1:
                parts.append(out)
                origins.append(i)
            elif out:
                parts.append(out)
                origins.extend([i] * len(out))
        return "".join(parts), origins

    def _char(self, c: str) -> tuple[str, bool]:
        """One character normalised alone, and whether NFD's reordering could move what is left of it."""
        units = self._units(c)
        if not self.strip_accents:
            return "".join([self._lower(u) for u, _ in units]), False
        marks = self._classes.marks
        kept = [(u, k) for u, k in units if not bisect_right(marks, ord(u)) & 1]
        return "".join([self._lower(u) for u, _ in kept]), any(k for _, k in kept)

    def _units(self, c: str) -> list[tuple[str, int]]:
        """A character after cleaning, CJK spacing and decomposition, each part with its combining class."""
        return [unit for x in self._spaced(c) for unit in self._decomposed(x)]

    def _spaced(self, c: str) -> str:
        """A character after cleaning and CJK spacing."""
        classes = self._classes
        code = ord(c)
        if self.clean_text:
            if 0xD800 <= code <= 0xDFFF or bisect_right(classes.removed, code) & 1:
                return ""
            if bisect_right(classes.to_space, code) & 1:
                return " "
        if self.handle_chinese_chars and bisect_right(classes.chinese, code) & 1:
            return f" {c} "
        return c

    def _decomposed(self, c: str) -> list[tuple[str, int]]:
        """NFD of one character as ``tokenizers`` knows it, each part with its combining class."""
        classes = self._classes
        if not self.strip_accents or (c < "\x80"):
            return [(c, 0)]
        parts = unicodedata.normalize("NFD", c) if bisect_right(classes.decomposed, ord(c)) & 1 else c
        combining = classes.combining
        return [(u, unicodedata.combining(u) if bisect_right(combining, ord(u)) & 1 else 0) for u in parts]

    def _normalize_reordering(self, segment: str, base: int) -> tuple[str, list[int]]:
        """The full NFD path: canonical reordering of each run of marks before they are stripped.

        Sources follow ``tokenizers``: the first part of a decomposition stands for its
        character and the rest are added after it, and when marks are reordered, each part
        that stands for a character takes the source of the next character in order, while
        added parts share the source of the part before them.
        """
        sources: list[int] = []
        units: list[tuple[str, int, bool]] = []
        for i, c in enumerate(segment, base):
            for x in self._spaced(c):
                sources.append(i)
                units += [(u, k, j == 0) for j, (u, k) in enumerate(self._decomposed(x))]
        i = 0
        while i < len(units):
            if units[i][1] == 0:
                i += 1
                continue
            j = i
            while j < len(units) and units[j][1] != 0:
                j += 1
            units[i:j] = sorted(units[i:j], key=lambda unit: unit[1])
            i = j
        parts: list[str] = []
        origins: list[int] = []
        marks = self._classes.marks
        taken = -1
        for u, _, stands_for_one in units:
            if stands_for_one:
                taken += 1
            if bisect_right(marks, ord(u)) & 1:
                continue
            out = self._lower(u)
            parts.append(out)
            origins.extend([sources[max(taken, 0)]] * len(out))
        return "".join(parts), origins

    def _lower(self, c: str) -> str:
        if not self.lowercase:
            return c
        return self._classes.lowercase.get(c) or c.lower()

    def _word_spans(self, normalized: str) -> list[tuple[int, int]]:
        """Words between whitespace, with each punctuation character a word of its own."""
        kinds = self._kinds
        spans = []
        start = -1
        for i, c in enumerate(normalized):
            kind = kinds.get(c)
            if kind is None:
                if len(kinds) >= _CHAR_CACHE_LIMIT:
                    kinds.clear()
                kind = kinds[c] = self._kind(c)
            if kind == _WORD:
                if start < 0:
                    start = i
                continue
            if start >= 0:
                spans.append((start, i))
                start = -1
            if kind == _PUNCTUATION:
                spans.append((i, i + 1))
        if start >= 0:
            spans.append((start, len(normalized)))
        return spans

    def _kind(self, c: str) -> int:
        code = ord(c)
        if bisect_right(self._classes.whitespace, code) & 1:
            return _SPACE
        if bisect_right(self._classes.punctuation, code) & 1:
            return _PUNCTUATION
        return _WORD

    def _word_pieces(self, word: str) -> tuple[tuple[str, int, int, int], ...]:
        """A word's pieces as (entry, id, start, end) within it; cached, words repeat."""
        pieces = self._words.get(word)
        if pieces is None:
            if len(self._words) >= _WORD_CACHE_LIMIT:
                self._words.clear()
            pieces = self._words[word] = self._split_word(word)
        return pieces

    def _split_word(self, word: str) -> tuple[tuple[str, int, int, int], ...]:
        whole = ((self.unk_token, self.unk_id, 0, len(word)),)
        if len(word) > self.max_input_chars_per_word:
            return whole
        index = self.index
        pieces = []
        start = 0
        while start < len(word):
            end = min(len(word), start + self._longest)
            while end > start:
                entry = word[start:end] if start == 0 else self.prefix + word[start:end]
                token_id = index.get(entry)
                if token_id is not None:
                    pieces.append((entry, token_id, start, end))
                    break
                end -= 1
            else:
                return whole
            start = end
        return tuple(pieces)

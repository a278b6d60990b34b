"""The engine's WordPiece tokenizer equals Hugging Face ``tokenizers`` (tokens, ids and offsets):
on a small BERT-like tokenizer.json built here, on every code point's normalisation, and on the
shipped embedding/tokenizer.json."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from engine import wordpiece_tables
from engine.wordpiece import BERT_SPECIAL_TOKENS, WordPiece
from harness import ROOT
from harness.rwse import bert_tokenizer
from harness.tokenizer_json import wordpiece_from_tokenizer_json

REAL_TOKENIZER = ROOT / "embedding" / "tokenizer.json"

LETTERS = "abcdefghijklmnopqrstuvwxyz"
WORDS = "un ##aff ##able play ##ing ##ed server ##s live cafe naive the where do our 日 本 σ ##ς straße".split()
WORDS += ["1", "##2", "##3", "i", "##\u0307", "$", "!", "?", ",", ".", "'", "-"]
SPECIAL_AND_WORDS = [*BERT_SPECIAL_TOKENS, *WORDS, *LETTERS, *("##" + x for x in LETTERS), *"0123456789"]
SMALL_VOCABULARY = list(dict.fromkeys(SPECIAL_AND_WORDS))


def small_tokenizer(max_input_chars_per_word: int = 100, **normalizer: Any) -> Tokenizer:
    tokenizer: Tokenizer = bert_tokenizer(SMALL_VOCABULARY, max_input_chars_per_word, **normalizer)
    return tokenizer


def assert_same(ours: WordPiece, theirs: Tokenizer, text: str) -> None:
    """Tokens, ids and code-point offsets, as ``encode(text, add_special_tokens=False)`` gives them."""
    want = theirs.encode(text, add_special_tokens=False)
    got = ours.encode(text)
    assert [p.text for p in got] == want.tokens, text
    assert [p.id for p in got] == want.ids, text
    assert [(p.start, p.end) for p in got] == want.offsets, text
    assert ours.tokens(text) == want.tokens and ours.ids(text) == want.ids


SMALL = small_tokenizer()
OURS = wordpiece_from_tokenizer_json(SMALL.to_str())

# Pieces of text that exercise each step: accents (composed and combining), case with special
# rules (İ, final sigma, ß), CJK, emoji old and new, controls and odd whitespace, soft hyphen and
# zero-width characters, special tokens (only exact case counts), punctuation ASCII and Unicode,
# digits, marks that NFD reorders (musical symbols), and words too long for WordPiece.
FRAGMENTS = [
    *["Unaffable", "PLAYED", "Café", "naïve", "Straße", "İ", "ΣΑΣ", "Where do our servers live?", "日本語", "한국어"],
    *["😀", "🥰", "👍🏽", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x85", "\u00a0", "\u3000", "\u2028", "\x00"],
    *["\ufffd", "\u00ad", "\u200b", "\u200d", "\ufeff", "[SEP]", "[sep]", "[UNK]", "[CLS]x[MASK]", "[PAD"],
    *["e\u0301", "a\u0323\u0302", "$5,000", "3.14", "½", "٣", "¿Qué?", "«»", "—", "…", "⹏", "U+2E4F"],
    *["\U0001d165\U0001d16d", "\U0001d16d\U0001d165", "ǘ\U0001d16d", "\u0f71\u0f72", " ", "  "],
    *["x" * 100, "y" * 101, "ab" * 60],
]
texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4), st.sampled_from(SMALL_VOCABULARY), st.just(" ")),
    max_size=12,
).map("".join)


def test_hand_checked_tokens() -> None:
    """Greedy longest match, ## continuations, punctuation split, accents and case gone, unknown words whole."""
    encoded = OURS.encode("Unaffable! Where's our CAFÉ 日本? zzq\u00a0playing")
    assert [(p.text, p.start, p.end) for p in encoded] == [
        ("un", 0, 2),
        ("##aff", 2, 5),
        ("##able", 5, 9),
        ("!", 9, 10),
        ("where", 11, 16),
        ("'", 16, 17),
        ("s", 17, 18),
        ("our", 19, 22),
        ("cafe", 23, 27),
        ("日", 28, 29),
        ("本", 29, 30),
        ("?", 30, 31),
        ("z", 32, 33),
        ("##z", 33, 34),
        ("##q", 34, 35),
        ("play", 36, 40),
        ("##ing", 40, 43),
    ]
    assert OURS.tokens("语 x[SEP]y") == ["[UNK]", "x", "[SEP]", "y"]  # 语 is not in the vocabulary
    assert OURS.tokens("straße STRASSE") == ["straße", "s", "##t", "##r", "##a", "##s", "##s", "##e"]


def test_unknown_and_long_words_become_one_unknown_token() -> None:
    """A word with a part no entry matches, or over max_input_chars_per_word characters, is one [UNK]."""
    assert OURS.tokens("ab" * 50) == ["a", *["##b", "##a"] * 49, "##b"]
    assert [(p.text, p.start, p.end) for p in OURS.encode(" " + "ab" * 50 + "a")] == [("[UNK]", 1, 102)]
    assert OURS.ids("play€") == [OURS.unk_id]
    short = WordPiece(SMALL_VOCABULARY, max_input_chars_per_word=4)
    assert short.tokens("play plays") == ["play", "[UNK]"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_equals_tokenizers_on_generated_texts(text: str) -> None:
    assert_same(OURS, SMALL, text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(st.characters(max_codepoint=127), max_size=30)
    | st.lists(st.sampled_from(SMALL_VOCABULARY)).map(" ".join)
)
def test_equals_tokenizers_on_ascii_texts(text: str) -> None:
    """ASCII text takes a shortcut (a translation and a regular expression): the same tokens."""
    assert_same(OURS, SMALL, text)


@pytest.mark.parametrize(
    "options",
    [
        {"lowercase": False},
        {"lowercase": True, "strip_accents": False},
        {"lowercase": False, "strip_accents": True},
        {"clean_text": False, "handle_chinese_chars": False},
    ],
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_equals_tokenizers_with_other_normaliser_settings(options: dict[str, Any], text: str) -> None:
    theirs = small_tokenizer(max_input_chars_per_word=12, **options)
    assert_same(wordpiece_from_tokenizer_json(theirs.to_str()), theirs, text)


def every_code_point() -> list[int]:
    """Planes 0 and 1 whole, each end of every range in the character tables, and a sample of the rest."""
    edges = set()
    for table in (wordpiece_tables.REMOVED, wordpiece_tables.PUNCTUATION, wordpiece_tables.CHINESE):
        for word in table.split() + wordpiece_tables.DECOMPOSED.split() + wordpiece_tables.COMBINING.split():
            first, _, last = word.partition("-")
            edges.update({int(first, 16) - 1, int(first, 16), int(last or first, 16), int(last or first, 16) + 1})
    points = edges | set(range(0x20000)) | set(range(0xE0000, 0xE1000)) | set(range(0x20000, 0x110000, 61))
    return sorted(cp for cp in points if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF)


def test_every_code_point_normalises_and_splits_as_tokenizers() -> None:
    """Each character alone between letters, and runs of neighbours (so NFD can reorder marks)."""
    normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, lowercase=True)
    splitter = pre_tokenizers.BertPreTokenizer()
    ours = WordPiece(SMALL_VOCABULARY)
    points = every_code_point()
    for i in range(0, len(points), 2048):
        run = "".join(map(chr, points[i : i + 2048]))
        for text in (run, "a".join(run)):
            normalized = normalizer.normalize_str(text)
            assert ours.normalize(text) == normalized, f"from U+{points[i]:04X}"
            assert ours.pre_tokenize(normalized) == splitter.pre_tokenize_str(normalized), f"from U+{points[i]:04X}"


def test_vocabulary_problems_are_refused() -> None:
    with pytest.raises(ValueError, match='lists "a" twice'):
        WordPiece(["[UNK]", "a", "b", "a"])
    with pytest.raises(ValueError, match='unknown token "\\[UNK\\]" is not in the vocabulary'):
        WordPiece(["a", "b"])
    bpe = Tokenizer(models.BPE(unk_token="[UNK]"))
    with pytest.raises(ValueError, match="model is not WordPiece"):
        wordpiece_from_tokenizer_json(bpe.to_str())


@pytest.mark.skipif(not REAL_TOKENIZER.exists(), reason="embedding/tokenizer.json is not there yet")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(texts, st.text(max_size=40)))
def test_equals_tokenizers_on_the_shipped_tokenizer(text: str) -> None:
    assert_same(real_ours(), real_theirs(), text)


_REAL: dict[str, Any] = {}


def real_theirs() -> Tokenizer:
    """The shipped tokenizer.json with its own truncation and padding off: whole texts compared."""
    if "theirs" not in _REAL:
        tokenizer = Tokenizer.from_file(str(REAL_TOKENIZER))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        _REAL["theirs"] = tokenizer
    theirs: Tokenizer = _REAL["theirs"]
    return theirs


def real_ours() -> WordPiece:
    if "ours" not in _REAL:
        _REAL["ours"] = wordpiece_from_tokenizer_json(REAL_TOKENIZER.read_text(encoding="utf-8"))
    ours: WordPiece = _REAL["ours"]
    return ours

"""Writes engine/wordpiece_tables.py: which characters Hugging Face ``tokenizers`` cleans away,
splits off as punctuation, strips as accents, decomposes and lowercases, measured by asking
``tokenizers`` itself about every code point.

Its BERT normaliser and pre-tokeniser classify characters with an old copy of the Unicode
tables (``unicode_categories``, ``unicode-normalization-alignments``), and lowercase with
Rust's newer ones, so Python's ``unicodedata`` alone would disagree on hundreds of characters
(``U+2E4F`` is punctuation to Python and a letter to ``tokenizers``; ``U+A7CB`` lowercases in
Rust and not in Python 3.11). The engine uses ``unicodedata`` only for what these tables say
``tokenizers`` also knows: the decomposition of a character it decomposes and the combining
class of a mark it reorders, both fixed by Unicode's stability policy once assigned.

usage: .venv/bin/python -m harness.wordpiece_tables   (about a minute; rewrites the module)
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable

import tokenizers
from tokenizers.normalizers import NFD, BertNormalizer, Lowercase
from tokenizers.pre_tokenizers import BertPreTokenizer

from harness import ROOT

TARGET = ROOT / "engine" / "wordpiece_tables.py"


def code_points() -> Iterable[int]:
    """Every Unicode scalar value (surrogates cannot cross into ``tokenizers``)."""
    return (cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


def ranges_text(points: list[int]) -> str:
    """Sorted code points as hexadecimal ``start-end`` ranges (end included), ten to a line."""
    runs: list[list[int]] = []
    for cp in points:
        if runs and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    words = [f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in runs]
    return "\n".join(" ".join(words[i : i + 10]) for i in range(0, len(words), 10))


def reorders(first: str, second: str, nfd: NFD) -> bool:
    """Whether ``tokenizers``' NFD swaps two characters that do not decompose."""
    return nfd.normalize_str(first + second) == second + first


def measure() -> dict[str, str]:
    """Each table's text, from ``tokenizers``' answers for every code point."""
    clean = BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    chinese = BertNormalizer(clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False)
    strip = BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    nfd, lower, pre = NFD(), Lowercase(), BertPreTokenizer()
    removed: list[int] = []
    to_space: list[int] = []
    whitespace: list[int] = []
    punctuation: list[int] = []
    chinese_chars: list[int] = []
    marks: list[int] = []
    decomposed: list[int] = []
    lowercase: list[str] = []
    for cp in code_points():
        c = chr(cp)
        cleaned = clean.normalize_str(c)
        if cleaned == "":
            removed.append(cp)
        elif cleaned == " " and c != " ":
            to_space.append(cp)
        elif cleaned != c:
            raise AssertionError(f"clean_text turns U+{cp:04X} into {cleaned!r}")
        pieces = pre.pre_tokenize_str("a" + c + "a")
        if len(pieces) == 2:
            whitespace.append(cp)
        elif len(pieces) == 3:
            punctuation.append(cp)
        if chinese.normalize_str(c) == f" {c} ":
            chinese_chars.append(cp)
        decomposition = nfd.normalize_str(c)
        if decomposition != c:
            if decomposition != unicodedata.normalize("NFD", c):
                raise AssertionError(f"Python decomposes U+{cp:04X} differently")
            decomposed.append(cp)
        elif strip.normalize_str(c) == "":
            marks.append(cp)
        lowered = lower.normalize_str(c)
        if lowered != c.lower():
            lowercase.append(f"{cp:x}:" + ",".join(f"{ord(x):x}" for x in lowered))
    return {
        "REMOVED": ranges_text(removed),
        "TO_SPACE": ranges_text(to_space),
        "WHITESPACE": ranges_text(whitespace),
        "PUNCTUATION": ranges_text(punctuation),
        "CHINESE": ranges_text(chinese_chars),
        "NONSPACING_MARKS": ranges_text(marks),
        "DECOMPOSED": ranges_text(decomposed),
        "COMBINING": ranges_text(combining(nfd)),
        "LOWERCASE": "\n".join(" ".join(lowercase[i : i + 8]) for i in range(0, len(lowercase), 8)),
    }


def combining(nfd: NFD) -> list[int]:
    """Marks whose combining class ``tokenizers`` knows (the same as Python's), found by reordering.

    A mark of class k after one of a higher class is moved before it, and before one of a lower
    class is moved after it; a mark ``tokenizers`` does not know stays put (class 0 to it).
    """
    marks = [cp for cp in code_points() if unicodedata.combining(chr(cp)) and nfd.normalize_str(chr(cp)) == chr(cp)]
    # One long-assigned mark of each class as a reference.
    references: dict[int, str] = {}
    for cp in marks:
        if cp < 0x1000:
            references.setdefault(unicodedata.combining(chr(cp)), chr(cp))
    known: list[int] = []
    for cp in marks:
        c = chr(cp)
        k = unicodedata.combining(c)
        others = [(v, r) for v, r in references.items() if r != c]
        as_python = all(reorders(r, c, nfd) == (v > k) and reorders(c, r, nfd) == (k > v) for v, r in others)
        as_zero = not any(reorders(r, c, nfd) or reorders(c, r, nfd) for _, r in others)
        if as_python:
            known.append(cp)
        elif not as_zero:
            raise AssertionError(f"tokenizers gives U+{cp:04X} a combining class other than Python's or 0")
    return known


def render(tables: dict[str, str]) -> str:
    """The module's source."""
    lines = [
        f'"""Character classes of Hugging Face ``tokenizers`` {tokenizers.__version__} (BERT normaliser, pre-tokeniser',
        "and NFD), measured on every code point by harness/wordpiece_tables.py: regenerate, do not edit.",
        "",
        "Range tables: hexadecimal code points, ``start-end`` with both ends included. LOWERCASE lists",
        "``code:lowercase`` where Rust's ``char::to_lowercase`` differs from Python 3.11's ``str.lower``.",
        '"""',
        "",
    ]
    for name, text in tables.items():
        lines += [f'{name} = """', text, '"""', ""]
    return "\n".join(lines)


def main() -> None:
    """Measure and write the module."""
    if unicodedata.unidata_version != "14.0.0":
        sys.exit("run this under Python 3.11 (Unicode 14.0.0): LOWERCASE is relative to its str.lower")
    TARGET.write_text(render(measure()), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

"""How the question in force is read, as claims in the words of the scorer in force.

Each claim names the scorer it is about, the items it names and, for the embedding's
per-piece parts, the record and the values; its ``text`` is the sentence the page and
the command line print. A scorer reads exact words (``Scorer.words``), word pieces
(``Scorer.pieces``) or both, and only what the scorers in force do is said: a word a
lexical scorer ignores is still read by the embedding, and the sentence says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .scorers import SCORER_NAMES, Scorer
from .shapes import EmbeddingPart, NearMiss, ReadingClaim

# The runs of word characters the token pattern (two or more) leaves out: one-letter words.
_SHORT_WORD = re.compile(r"(?u)\b\w\b")


def short_words(text: str) -> list[str]:
    """The one-letter words of a text ("I", "a"), each once, as written: too short to be terms."""
    return list(dict.fromkeys(_SHORT_WORD.findall(text)))


def _listed(items: Sequence[str]) -> str:
    return ", ".join(items)


def word_claims(
    scorer: Scorer,
    text: str,
    terms: Sequence[str],
    dropped: Sequence[str],
    stop_words: Sequence[str],
    near_misses: Sequence[NearMiss],
) -> list[ReadingClaim]:
    """What the scorer that matches exact words reads of the question, and what it drops."""
    lexical = scorer.words
    assert lexical is not None
    name = SCORER_NAMES[lexical]
    # Under hybrid the embedding reads what BM25 drops: each sentence says so.
    also = "; the embedding reads {} as word pieces" if scorer.pieces else ""
    claims: list[ReadingClaim] = [
        _claim(
            "terms",
            lexical,
            terms,
            f"{name} reads the terms {_listed(terms)}."
            if terms
            else f"{name} finds no term of the question in any record.",
        )
    ]
    # What the lexical scorer leaves out, and the sentence that says so (before the embedding's note).
    left_out = (
        ("ignored", dropped, "{} ignores {}: in no record"),
        ("stop_words", stop_words, "{} drops the stop words {}"),
        ("short_words", short_words(text), "{} drops one-letter words, too short to be terms: {}"),
    )
    for kind, items, sentence in left_out:
        if items:
            them = "it" if len(items) == 1 else "them"
            claims.append(_claim(kind, lexical, items, sentence.format(name, _listed(items)) + also.format(them) + "."))
    if near_misses:
        pairs = "; ".join(
            f"“{miss['term']}” is not " + " or ".join(f"“{word}”" for word in miss["record_words"])
            for miss in near_misses
        )
        claims.append(
            _claim(
                "near_miss",
                lexical,
                [miss["term"] for miss in near_misses],
                f"{name} matches only exact words, with no stemming: {pairs}.",
            )
        )
    return claims


def piece_claims(
    sequence: Sequence[str],
    unknown: Sequence[str],
    top: tuple[str, float, Sequence[EmbeddingPart]] | None,
) -> list[ReadingClaim]:
    """What the embedding reads: every word piece in order, the words its vocabulary lacks,
    and (when the embedding ranks, with a record ranked first) each distinct piece's part of
    that record's similarity."""
    count = len(sequence)
    claims: list[ReadingClaim] = [
        _claim(
            "pieces",
            "embedding",
            sequence,
            f"The embedding reads {count} word piece{'' if count == 1 else 's'}, in order: {' '.join(sequence)}."
            if sequence
            else "The embedding finds no word piece of the question in its vocabulary.",
        )
    ]
    if unknown:
        claims.append(
            _claim(
                "unknown_pieces",
                "embedding",
                unknown,
                f"The embedding ignores {_listed(unknown)}: unknown to its vocabulary.",
            )
        )
    if top is not None and sequence:
        record, similarity, parts = top
        values = [part["contribution"] for part in parts]
        listed = ", ".join(f"{_times(part['token'], part['count'])} {part['contribution']:.3f}" for part in parts)
        claim = _claim(
            "piece_parts",
            "embedding",
            [part["token"] for part in parts],
            f"Each piece's part of {record}'s similarity {similarity:.3f} (ranked first): {listed}.",
        )
        claim["record"] = record
        claim["values"] = values
        claims.append(claim)
    return claims


def _times(token: str, count: int) -> str:
    return f"{token} ×{count}" if count > 1 else token


def _claim(kind: str, scorer: str, items: Sequence[str], text: str) -> ReadingClaim:
    return {"kind": kind, "scorer": scorer, "items": list(items), "text": text, "record": None, "values": []}

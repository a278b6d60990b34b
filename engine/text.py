"""Text handling: the tokenizer, the fixed stop-word list and budget word counts.

Tokens follow scikit-learn's default ``token_pattern`` on lowercased text, so the
engine's vocabulary is the one ``TfidfVectorizer`` would build.
"""

from __future__ import annotations

import re
from collections import Counter

# scikit-learn's default token_pattern: runs of two or more word characters.
# Python's ``re`` is Unicode-aware by default, which is what ``(?u)`` asks for.
TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
# The same pattern for ASCII text, where \w is [A-Za-z0-9_] under either flag; matching
# without Unicode's character tables is faster, and opening a store tokenizes every record.
_ASCII_TOKEN_PATTERN = re.compile(r"\b\w\w+\b", re.ASCII)


def tokens(lowered: str) -> list[str]:
    """TOKEN_PATTERN's tokens of a lowercased text, stop words included."""
    pattern = _ASCII_TOKEN_PATTERN if lowered.isascii() else TOKEN_PATTERN
    return pattern.findall(lowered)


# Function words that carry no topic. Kept short and plain on purpose: the page
# prints this list so a learner can check why a word of the question was ignored.
STOP_WORDS: frozenset[str] = frozenset(
    """
    about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during
    each few for from further had has have having he her here hers herself him
    himself his how if in into is it its itself just me more most my myself no nor
    not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves
    """.split()
)


def tokenize(text: str) -> list[str]:
    """Return the text's index terms in order: lowercased tokens minus stop words."""
    stop = STOP_WORDS  # a local name: this runs for every record of a store
    return [token for token in tokens(text.lower()) if token not in stop]


def stop_words_in(text: str) -> list[str]:
    """The stop words a text contains, lowercased, each once, in order of appearance."""
    return list(dict.fromkeys(token for token in tokens(text.lower()) if token in STOP_WORDS))


def term_counts(text: str) -> Counter[str]:
    """How often each index term occurs in the text (``Counter(tokenize(text))``)."""
    counts = Counter(tokens(text.lower()))
    # Stop words are removed from the few distinct words rather than from every token:
    # this runs for every record when a store is opened.
    for word in STOP_WORDS.intersection(counts):
        del counts[word]
    return counts


def word_count(text: str) -> int:
    """Count words the way budgets do: whitespace-separated pieces, not model tokens."""
    return len(text.split())


def hours(value: float) -> str:
    """An age for a sentence: ``410 hours``, ``1 hour``, ``2.5 hours``."""
    shown = f"{value:g}"
    return f"{shown} hour" if shown == "1" else f"{shown} hours"


def number(value: float) -> str:
    """A score or cosine for a sentence, at the precision the table shows."""
    return f"{value:.3f}"


def ordinal(value: int) -> str:
    suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
    return f"{value}{suffix}"

"""Near misses: a question's terms that are in no record, and the record terms close to them.

Both lexical scorers match whole terms exactly, with no stemming, so "deploy" finds
nothing where the records say "deployment". The page and the command line say so where
they list such a term. A record term is a near miss of a question's term when it begins
with that term ("deploy" -> "deployment"), or when the two share a stem once one common
English ending is taken off each ("deploying" -> "deployed"): a deliberately simple rule
a learner can check by eye, not a stemmer.
"""

from __future__ import annotations

import bisect
from collections.abc import Container, Iterable

from .shapes import NearMiss

# Longest first where one ends another ("ments" before "ment" and "s"), so each term
# loses the longest ending it has.
_ENDINGS = ("ments", "ment", "ings", "ing", "ions", "ion", "ures", "ure", "ers", "er", "es", "ed", "ly", "s")
# Endings that were a "y" before the ending was added (query -> queries, queried).
_Y_ENDINGS = ("ies", "ied")
# Shorter stems and prefixes match too much to be worth a learner's attention ("in", "re").
MIN_STEM = 3
# At most this many record terms are named for one question term, shortest first.
MOST_WORDS = 4


def stem(term: str) -> str:
    """``term`` without its one common ending, when at least MIN_STEM characters are left."""
    for ending in _Y_ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= MIN_STEM - 1:
            return term[: -len(ending)] + "y"
    for ending in _ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= MIN_STEM:
            return term[: -len(ending)]
    return term


class NearMisses:
    """A store's vocabulary, sorted and by stem, to find any question's near misses quickly."""

    def __init__(self, vocabulary: Iterable[str]) -> None:
        self.terms = sorted(vocabulary)
        self.by_stem: dict[str, list[str]] = {}
        for term in self.terms:
            self.by_stem.setdefault(stem(term), []).append(term)

    def of(self, dropped: Iterable[str], within: Container[str] | None = None) -> list[NearMiss]:
        """Each dropped term that has near misses, in the order given, with its record terms
        (only those ``within`` a smaller vocabulary when given: the records that existed at
        an earlier moment)."""
        found: list[NearMiss] = []
        for term in dropped:
            words = set(self.by_stem.get(stem(term), ())) if len(stem(term)) >= MIN_STEM else set()
            if len(term) >= MIN_STEM:
                start = bisect.bisect_right(self.terms, term)
                for candidate in self.terms[start:]:
                    if not candidate.startswith(term):
                        break
                    words.add(candidate)
            words.discard(term)
            if within is not None:
                words = {word for word in words if word in within}
            if words:
                found.append({"term": term, "record_words": sorted(words, key=lambda w: (len(w), w))[:MOST_WORDS]})
        return found

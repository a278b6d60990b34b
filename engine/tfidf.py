"""Lexical similarity: TF-IDF vectors over the store and their cosine with a question.

The formulas, for a store of ``n`` records::

    tf(t, d)  = 1 + ln(count of t in d)            (sublinear term frequency)
    idf(t)    = ln((1 + n) / (1 + df(t))) + 1      (smoothed; df counts records)
    w(t, d)   = tf(t, d) * idf(t), then divided by the vector's L2 length
    cosine    = sum over shared terms of w(t, record) * w(t, question)

This is exactly scikit-learn's ``TfidfVectorizer(sublinear_tf=True,
smooth_idf=True, norm="l2", stop_words=STOP_WORDS)`` fitted on the record texts and
applied to the question. The textbook idf ``ln(n / df)`` differs in two ways: the
"+1" inside acts as if one extra record held every term (no division by zero for
unseen terms), and the "+1" outside keeps terms found in every record from
vanishing. The vocabulary and document frequencies always come from every record in
the store, whatever the filters, so a policy never changes a record's vector.
Query terms found in no record are dropped, as the vectorizer's ``transform`` does.

Sums use ``math.fsum`` over terms in sorted order, so CPython and Pyodide produce
the same bits regardless of string hashing. ``read`` is the TF-IDF scorer as an answer
reads it (engine/scorers.py), and ``store_index`` the index it and BM25 read.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from .model import Policy
from .near_miss import NearMisses
from .scope import Exclusion
from .scoring import AnyScoring, Asking, Holder, Moment, Scoring, unmatched_at_zero
from .shapes import TermPart
from .text import term_counts, tokenize


@dataclass(frozen=True)
class Vector:
    """A document's term counts and the L2 length of its raw tf·idf weights.

    Normalised weights are computed on demand, only for the terms a cosine needs:
    a question shares a handful of terms with a record, so a large store never pays
    for a full dictionary of weights per record.
    """

    counts: dict[str, int]
    length: float

    def weight(self, term: str, idf: dict[str, float]) -> float:
        count = self.counts.get(term, 0)
        if count == 0 or self.length == 0.0:
            return 0.0
        return sublinear_tf(count) * idf[term] / self.length


@dataclass(frozen=True)
class Index:
    """The store's vocabulary: each term's document frequency and idf, each record's vector."""

    n_documents: int
    document_frequency: dict[str, int]
    idf: dict[str, float]
    documents: tuple[Vector, ...]


def sublinear_tf(count: int) -> float:
    return 1.0 + math.log(count)


def smoothed_idf(n_documents: int, document_frequency: int) -> float:
    return math.log((1 + n_documents) / (1 + document_frequency)) + 1.0


# 1 + ln(count) for the counts most terms have, computed once: building an index needs
# it for every term of every record.
_SMALL_TF = (0.0, *(1.0 + math.log(count) for count in range(1, 64)))


def _vector(counts: dict[str, int], idf: dict[str, float], log: Any = math.log) -> Vector:
    # fsum is correctly rounded, so the order of terms cannot change the length. The
    # expression is sublinear_tf(count) * idf[term], inlined (the same floats).
    small = _SMALL_TF
    length = math.sqrt(
        math.fsum(
            [((small[count] if count < 64 else 1.0 + log(count)) * idf[term]) ** 2 for term, count in counts.items()]
        )
    )
    return Vector(counts, length)


def build_index(
    texts: tuple[str, ...], counted: tuple[int, ...] | None = None, counts: Sequence[dict[str, int]] | None = None
) -> Index:
    """Fit the vocabulary and idf on every record text, or only on the texts at the positions
    ``counted`` (the records that existed at an earlier moment): the others are left out of
    the index as if they were not there, each an empty vector, sharing no term with any question.
    ``counts`` are the texts' term counts when known already (another index of the same texts)."""
    token_counts: list[dict[str, int]] = list(counts) if counts is not None else [term_counts(t) for t in texts]
    fitted = token_counts if counted is None else [token_counts[position] for position in counted]
    # Iterating a record's counts yields each of its terms once: their tally is the df.
    document_frequency = Counter(chain.from_iterable(fitted))
    n = len(fitted)
    frequencies = dict(sorted(document_frequency.items()))
    idf = {term: smoothed_idf(n, df) for term, df in frequencies.items()}
    if counted is not None:
        kept = set(counted)
        token_counts = [held if position in kept else {} for position, held in enumerate(token_counts)]
    return Index(n, frequencies, idf, tuple(_vector(counts, idf) for counts in token_counts))


def query_vector(index: Index, text: str) -> tuple[Vector, list[str]]:
    """Vectorise a question with the store's vocabulary; also return the dropped terms."""
    tokens = tokenize(text)
    kept = Counter(token for token in tokens if token in index.idf)
    dropped = list(dict.fromkeys(token for token in tokens if token not in index.idf))
    return _vector(kept, index.idf), dropped


def _query_side(index: Index, query: Vector) -> dict[str, tuple[int, float, float]]:
    """Each question term's count, tf and normalised weight: the same for every record."""
    return {
        term: (count, sublinear_tf(count), query.weight(term, index.idf))
        for term, count in sorted(query.counts.items())
    }


def cosine_parts(
    index: Index, document: Vector, query: Vector, asked: dict[str, tuple[int, float, float]] | None = None
) -> list[TermPart]:
    """Each shared term's contribution to the cosine, in alphabetical order.

    ``asked`` is ``_query_side(index, query)``, passed in when scoring many records."""
    asked = _query_side(index, query) if asked is None else asked
    counts, idf, length = document.counts, index.idf, document.length
    parts: list[TermPart] = []
    for term, (query_count, query_tf, query_weight) in asked.items():  # sorted by term
        count = counts.get(term)
        if count is None:
            continue
        record_tf = sublinear_tf(count)
        # Vector.weight's expression, inlined: this runs for every shared term of every record.
        record_weight = record_tf * idf[term] / length
        parts.append(
            {
                "term": term,
                "record_count": count,
                "query_count": query_count,
                "record_tf": record_tf,
                "query_tf": query_tf,
                "idf": idf[term],
                "record_weight": record_weight,
                "query_weight": query_weight,
                "contribution": record_weight * query_weight,
            }
        )
    return parts


def cosine(parts: list[TermPart]) -> float:
    """The cosine as the exact sum of its parts, clamped against rounding past 1."""
    return min(1.0, math.fsum(part["contribution"] for part in parts))


@dataclass(frozen=True)
class QuestionScores:
    """A question against every record: its kept and dropped terms, each record's parts and cosine."""

    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    parts: tuple[tuple[TermPart, ...], ...]
    cosines: tuple[float, ...]


def score_question(index: Index, text: str) -> QuestionScores:
    """Score a question against every record (a Session keeps the result per question)."""
    query, dropped = query_vector(index, text)
    terms = query.counts.keys()
    # Most records share no term with a question: they are told apart by one set test.
    asked = _query_side(index, query)
    parts = tuple(
        () if terms.isdisjoint(document.counts) else tuple(cosine_parts(index, document, query, asked))
        for document in index.documents
    )
    return QuestionScores(
        terms=tuple(sorted(terms)),
        dropped=tuple(dropped),
        parts=parts,
        cosines=tuple(cosine(list(p)) if p else 0.0 for p in parts),
    )


# ------------------------------------------------------------ the scorer, as an answer reads it

NO_SHARED_TERMS = Exclusion(
    "no_shared_terms", "Shares no term with the question (cosine 0), so it is excluded at any recency weight."
)


def store_index(session: Holder, moment: Moment | None = None) -> Index:
    """The store's index as the agent had it at ``moment`` (now when None: every record),
    built once per session and set of records that existed (BM25 reads it too)."""
    if moment is None or moment.index_key is None:
        return session.keep("tfidf index", None, lambda: build_index(tuple(session.texts)))
    # The texts' term counts are the same at every moment: read from the index of now.
    now = store_index(session)
    return session.keep(
        "tfidf index",
        moment.index_key,
        lambda: build_index(tuple(session.texts), moment.written, [document.counts for document in now.documents]),
    )


def _near_misses(session: Holder) -> NearMisses:
    """The store's vocabulary by stem, made the first time a question has a term in no record."""
    return session.keep("near misses", None, lambda: NearMisses(store_index(session).document_frequency))


def read(asking: Asking, ranks: bool, needed: Sequence[AnyScoring]) -> Scoring[TermPart]:
    """TF-IDF's reading (engine/scorers.py): the cosine is the relevance, and a record sharing
    no term (cosine 0) is not matched; the reading is kept by the question's text and the
    records that existed at the moment asked. The answer's question gets its terms, those
    in no record, and their near misses."""
    session, text, moment = asking.session, asking.text, asking.moment
    key = text if moment.index_key is None else (text, moment.index_key)
    return session.keep(
        "tfidf", key, lambda: _reading(session, score_question(store_index(session, moment), text), moment)
    )


def _reading(session: Holder, scores: QuestionScores, moment: Moment) -> Scoring[TermPart]:
    def question(policy: Policy) -> dict[str, Any]:
        dropped = scores.dropped
        return {
            "terms": list(scores.terms),
            "dropped_terms": list(dropped),
            # At an earlier moment, only the words of the records that existed then.
            "near_misses": _near_misses(session).of(
                dropped, None if moment.index_key is None else store_index(session, moment).document_frequency
            )
            if dropped
            else [],
        }

    unmatched = unmatched_at_zero(scores.cosines, NO_SHARED_TERMS)
    return Scoring("tfidf", scores.cosines, scores.parts, unmatched, scores.cosines, question)


def likeness(asking: Asking) -> Callable[[int, int], float]:
    """The cosine of two records' TF-IDF vectors (by store position), over the terms they share:
    how alike the lexical scorers see them, for a diversity packing. Each record's unit
    weights are made the first time it is compared, and kept; ``fsum`` is correctly rounded,
    so the order the shared terms come in cannot change the sum."""
    session = asking.session
    index = store_index(session)
    idf, documents = index.idf, index.documents
    units: dict[int, dict[str, float]] = session.keep("tfidf unit weights", None, dict)

    def unit(position: int) -> dict[str, float]:
        made = units.get(position)
        if made is None:
            document = documents[position]
            made = units[position] = {term: document.weight(term, idf) for term in document.counts}
        return made

    def cosine_of(a: int, b: int) -> float:
        first, second = unit(a), unit(b)
        if len(second) < len(first):
            first, second = second, first
        return min(1.0, math.fsum([weight * second[term] for term, weight in first.items() if term in second]))

    return cosine_of

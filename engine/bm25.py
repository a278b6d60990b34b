"""BM25, as Lucene scores it, over the same terms as the TF-IDF cosine.

For a store of ``N`` records, a term found in ``n`` of them, a record of ``len`` terms
(tokens after stop words) and the store's mean record length ``avg_len``::

    idf(t)        = ln(1 + (N - n + 0.5) / (n + 0.5))
    length factor = 1 - b + b * len / avg_len
    part(t, d)    = q(t) * idf(t) * tf / (tf + k1 * length factor)
    bm25(d)       = sum of the parts over the question's terms

with ``tf`` the term's count in the record and ``q(t)`` its count in the question (a
term asked twice counts twice). Unlike the textbook Robertson form this has no
``(k1 + 1)`` numerator, as in Lucene since version 8 (it scales every score alike,
so rankings do not change); the idf's ``1 +`` keeps it positive for a term found in
most records. Terms found in no record are dropped, as for the cosine, and a record
sharing no term with the question scores 0. Sums use ``math.fsum`` over terms in
sorted order, so CPython and Pyodide give the same bits.

BM25 has no upper bound, so a score is blended with recency as its share of the
highest BM25 for the question among the records of the same tenant (relative-score
fusion), which lies in [0, 1]: the tenant is a hard filter for this divisor too. The
idf still counts every record of the store, as one index shared by the tenants does,
which is how such an index lets one tenant's records move another's scores. ``read`` is
the BM25 scorer as an answer reads it (engine/scorers.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .model import Policy
from .scope import Exclusion
from .scoring import AnyScoring, Asking, Holder, Scoring, unmatched_at_zero
from .shapes import BM25Part
from .text import tokenize
from .tfidf import Index, store_index

DEFAULT_K1 = 1.2
DEFAULT_B = 0.75


@dataclass(frozen=True)
class BM25Scores:
    """A question against every record: each record's parts and its BM25."""

    parts: tuple[tuple[BM25Part, ...], ...]
    scores: tuple[float, ...]
    average_length: float


@dataclass(frozen=True)
class Shares:
    """Each record's BM25 as a share of the best in its group (its tenant), and each
    group's best record (the first in store order holding that best; None when the best is 0)."""

    relative: tuple[float, ...]
    best: dict[str, int | None]


def shares_within(scores: tuple[float, ...], groups: Sequence[str]) -> Shares:
    """Divide each score by the highest score of its group: no group's records move another's shares."""
    best: dict[str, int | None] = {}
    top: dict[str, float] = {}
    for position, (score, group) in enumerate(zip(scores, groups, strict=True)):
        if score > top.get(group, 0.0):
            top[group], best[group] = score, position
        else:
            best.setdefault(group, None)
    relative = tuple(
        score / top[group] if top.get(group, 0.0) > 0.0 else 0.0 for score, group in zip(scores, groups, strict=True)
    )
    return Shares(relative, best)


def lucene_idf(n_documents: int, document_frequency: int) -> float:
    return math.log(1.0 + (n_documents - document_frequency + 0.5) / (document_frequency + 0.5))


def record_lengths(index: Index) -> tuple[int, ...]:
    """Each record's length in index terms (stop words removed), BM25's ``len``."""
    return tuple(sum(document.counts.values()) for document in index.documents)


def score_question_bm25(
    index: Index,
    lengths: tuple[int, ...],
    text: str,
    *,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
    with_parts: bool = True,
) -> BM25Scores:
    """Score a question against every record with BM25.

    Without ``with_parts`` each record's parts are left empty and only the scores are
    computed, with the very same floats: the ranking beside another scorer needs no more."""
    asked = Counter(token for token in tokenize(text) if token in index.idf)
    terms = sorted(asked)
    idf = {term: lucene_idf(index.n_documents, index.document_frequency[term]) for term in terms}
    # The mean over the records in the index (those that existed at the moment asked; a
    # record left out has length 0, which adds nothing to the sum).
    average = math.fsum(lengths) / index.n_documents if index.n_documents else 0.0
    parts: list[tuple[BM25Part, ...]] = []
    scores: list[float] = []
    asked_terms = asked.keys()
    for document, length in zip(index.documents, lengths, strict=True):
        # Most records share no term with a question: they are told apart by one set test.
        if asked_terms.isdisjoint(document.counts):
            parts.append(())
            scores.append(0.0)
            continue
        counts = document.counts
        # average > 0 here: this record holds at least one term.
        factor = 1.0 - b + b * length / average
        shared = [term for term in terms if term in counts]
        contributions = [asked[term] * idf[term] * counts[term] / (counts[term] + k1 * factor) for term in shared]
        scores.append(math.fsum(contributions))
        if not with_parts:
            parts.append(())
            continue
        parts.append(
            tuple(
                {
                    "term": term,
                    "record_count": counts[term],
                    "query_count": asked[term],
                    "idf": idf[term],
                    "record_length": length,
                    "length_factor": factor,
                    "contribution": contribution,
                }
                for term, contribution in zip(shared, contributions, strict=True)
            )
        )
    return BM25Scores(tuple(parts), tuple(scores), average)


# ------------------------------------------------------------ the scorer, as an answer reads it

NO_SHARED_TERMS = Exclusion(
    "no_shared_terms", "Shares no term with the question (BM25 0), so it is excluded at any recency weight."
)


def read(asking: Asking, ranks: bool, needed: Sequence[AnyScoring]) -> Scoring[BM25Part]:
    """BM25's reading (engine/scorers.py): its share of the best BM25 among the tenant's own
    records (the tenant is a hard filter) is the relevance, and a record sharing no term
    (BM25 0) is not matched. Its per-term parts only when it ranks: beside another scorer
    only its ranking is shown. The reading is kept by question, k1, b and whether it
    carries parts; the shares by question, k1 and b alone (the scores are the same floats
    either way), so a change of budget or recency divides nothing again. The answer's
    question gets the best BM25 among the policy tenant's records, that record, and the
    store's mean record length."""
    session, policy, text, moment = asking.session, asking.policy, asking.text, asking.moment
    k1, b = policy.bm25_k1, policy.bm25_b
    # The statistics of the records that existed at the moment asked (every record, now).
    at: tuple[Any, ...] = () if moment.index_key is None else (moment.index_key,)

    def score() -> Scoring[BM25Part]:
        index = store_index(session, moment)
        lengths = session.keep("bm25 lengths", moment.index_key, lambda: record_lengths(index))
        scores = score_question_bm25(index, lengths, text, k1=k1, b=b, with_parts=ranks)
        shares = session.keep("bm25 shares", (text, k1, b, *at), lambda: shares_within(scores.scores, session.tenants))
        return _reading(session, scores, shares)

    return session.keep("bm25", (text, k1, b, ranks, *at), score)


def _reading(session: Holder, scores: BM25Scores, shares: Shares) -> Scoring[BM25Part]:
    def question(policy: Policy) -> dict[str, Any]:
        best = shares.best.get(policy.tenant)
        return {
            "best_bm25": 0.0 if best is None else scores.scores[best],
            "best_bm25_record": None if best is None else session.ids[best],
            "average_length": scores.average_length,
        }

    unmatched = unmatched_at_zero(scores.scores, NO_SHARED_TERMS)
    return Scoring("bm25", shares.relative, scores.parts, unmatched, scores.scores, question)

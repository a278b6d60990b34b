"""A store opened once, answering policy after policy.

A ``Session`` holds one validated store, its TF-IDF index, its newest record per key,
its word counts and the scores of the questions asked so far; once an answer needs the
static embedding, also every record's vector and the store's map. Every answer scores the
question with both lexical scorers (TF-IDF cosine and BM25), and an embedding or hybrid
answer with the embedding too, each read as a ``scoring.Scoring``: the policy's scorer
ranks and packs, and the others rank the same candidates beside it, so a learner sees
where they disagree. ``retrieve`` gives the full result (the command line, ``api.run``);
``answer`` gives the slim answer the page's worker sends: only what a policy decides plus
the question's per-record scores, never the record texts again, since the page already
holds the store it opened.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from .bm25 import BM25Scores, Shares, record_lengths, score_question_bm25, shares_within
from .errors import InputError, error_result, internal_error
from .fields import EMBEDDING_SCORERS, OTHER_SCORER, OUTCOME_STAGE
from .model import Policy, Store
from .near_miss import NearMisses
from .pack import Candidate, Packed, pack, rank
from .parse import parse_policy
from .reading import (
    negated_first_claims,
    negation_piece_claims,
    negation_word_claims,
    negations_in,
    piece_claims,
    word_claims,
)
from .recent import Recent
from .scope import Exclusion, ScopeChecker
from .scorers import SCORERS_BY_ID
from .scoring import AnyScoring, Fusion, blend, bm25_scoring, embedding_scoring, fuse, recency, tfidf_scoring
from .shapes import (
    Answer,
    AskedToken,
    Columns,
    Coverage,
    EmbeddingPart,
    ErrorResult,
    Head,
    NearMiss,
    Opened,
    QuestionMap,
    ReadingClaim,
    RecordResult,
    Result,
    Summary,
)
from .text import stop_words_in, term_counts, word_count
from .tfidf import QuestionScores, build_index, score_question
from .version import __version__

if TYPE_CHECKING:
    # The embedding's modules are imported when a policy first reads the vectors: the
    # page's Python is ready sooner, and a learner who never picks them never loads them.
    from .embedding import StaticEmbedding
    from .semantic import EmbeddingScores, StoreVectors

dumps = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))

# Questions whose scores (and encoded per-record parts) a session keeps: a learner
# goes back and forth between a few, and each costs a pass over every record.
_QUESTIONS_KEPT = 8


def _matched(position: int) -> Exclusion | None:
    """A scorer's test that matches every record: the scope filters alone."""
    return None


@dataclass(frozen=True)
class _Decisions:
    """What one policy decides for every record, in store order. ``scoring`` is the
    policy scorer's reading of the question (each record's relevance and parts),
    ``scorings`` every scorer's reading the answer computed, ``score`` the policy
    scorer's blend with recency; ``rank`` places the candidates under the policy's scorer and
    ``other_rank`` under the other one, ``ranks`` under each scorer computed. ``tfidf``
    and ``bm25`` are the question's two lexical scores, which every answer shows;
    ``meaning`` its embedding scores and ``rrf`` the fused sums, when the policy's
    scorer needs them. ``terms_key`` names what the per-record parts depend on."""

    tfidf: QuestionScores
    bm25: BM25Scores
    shares: Shares
    meaning: EmbeddingScores | None
    rrf: tuple[float | None, ...] | None
    scoring: AnyScoring
    scorings: dict[str, AnyScoring]
    score: list[float]
    outcome: list[str]
    reason: list[str]
    rank: list[int | None]
    other_rank: list[int | None]
    ranks: dict[str, list[int | None]]
    ranked: list[str]
    selected: list[str]
    words_used: int
    coverage: Coverage
    terms_key: str


class Session:
    """One validated store and everything about it that no policy changes."""

    def __init__(
        self,
        store: Store,
        *,
        name: str = "",
        embedding: StaticEmbedding | None = None,
        vectors: Callable[[], StaticEmbedding] | None = None,
    ) -> None:
        """``name`` tells this store's answers from another's (api.open_json names a
        session by its store's text), so that per-term parts the page keeps from one
        store are never taken for another's. ``embedding`` is the static embedding the
        embedding and hybrid scorers read; without one, ``vectors`` is asked for it the
        first time a policy needs it (it raises InputError when there is none)."""
        self.store = store
        self.name = name
        self.index = build_index(tuple(record.text for record in store.records))
        self.scope = ScopeChecker(store)
        self.ids = [record.id for record in store.records]
        self.positions = {rid: position for position, rid in enumerate(self.ids)}
        self.words = [word_count(record.text) for record in store.records]
        self.recency = [recency(record.age_hours) for record in store.records]
        self.tenants = [record.tenant for record in store.records]
        self.lengths = record_lengths(self.index)
        self._scores: Recent[str, QuestionScores] = Recent(_QUESTIONS_KEPT)
        self._bm25: Recent[tuple[str, float, float, bool], BM25Scores] = Recent(_QUESTIONS_KEPT)
        # BM25's shares by question, k1 and b, kept like the scores they divide: a pass over
        # every record, which a change that keeps those three need not make again.
        self._shares: Recent[tuple[str, float, float], Shares] = Recent(_QUESTIONS_KEPT)
        # The per-term parts of every record as JSON text, by terms key.
        self._encoded: Recent[str, str] = Recent(_QUESTIONS_KEPT)
        self._embedding = embedding
        self._vectors_source = vectors
        self._store_vectors: StoreVectors | None = None
        self._meaning: Recent[str, EmbeddingScores] = Recent(_QUESTIONS_KEPT)
        # An embedding answer's parts or a hybrid answer's fusion, by terms key: a policy
        # change that keeps the question and the scope needs nothing made again.
        self._kept: Recent[str, Any] = Recent(_QUESTIONS_KEPT)

    # ------------------------------------------------------------ the two shapes

    def retrieve(self, policy: Policy) -> Result:
        """The full result: every record with its own fields, scores, outcome and parts."""
        d = self._decide(policy)
        rows: list[RecordResult] = []
        # Most records of a large store share no term with the question: no parts to copy.
        parts = d.scoring.parts
        for i, record in enumerate(self.store.records):
            rows.append(
                {
                    "id": record.id,
                    "tenant": record.tenant,
                    "store": record.store,
                    "session": record.session,
                    "age_hours": record.age_hours,
                    "key": record.key,
                    "text": record.text,
                    "words": self.words[i],
                    "cosine": d.tfidf.cosines[i],
                    "bm25": d.bm25.scores[i],
                    "similarity": None if d.meaning is None else d.meaning.similarity[i],
                    "rrf": None if d.rrf is None else d.rrf[i],
                    "relevance": d.scoring.relevance[i],
                    "recency": self.recency[i],
                    "score": d.score[i],
                    "outcome": d.outcome[i],
                    "stage": OUTCOME_STAGE[d.outcome[i]],
                    "reason": d.reason[i],
                    "rank": d.rank[i],
                    "other_rank": d.other_rank[i],
                    "ranks": {name: places[i] for name, places in d.ranks.items()},
                    "terms": d.scoring.copied(i) if parts[i] else [],
                }
            )
        return {**self._head(policy, d), "records": rows, **self._summary(policy, d)}

    def answer(self, policy: Policy, *, have_terms: str = "") -> Answer:
        """The slim answer, by columns; ``terms`` is None when ``have_terms`` is its key."""
        d = self._decide(policy)
        columns = self._columns(policy, d)
        held = have_terms == columns["terms_key"]
        return {**columns, "terms": None if held else d.scoring.all_copied()}

    def opened(self) -> Opened:
        """What the page needs once per store: its size, each record's word count and recency."""
        return {"records": len(self.store.records), "words": self.words, "recency": self.recency}

    def ranking_and_tray(self, policy: Policy) -> tuple[list[str], list[str], list[str]]:
        """The ranking after scope (record ids, best first), the tray and every record's
        outcome in store order: what an evaluation (engine/evaluate.py) measures and says,
        without building the answer around them."""
        d = self._decide(policy)
        return d.ranked, d.selected, d.outcome

    # ------------------------------------------------------------ entry points

    def run(self, policy_data: Any) -> Result | ErrorResult:
        """The full result for a policy object; bad input gives an error object."""
        try:
            return self.retrieve(parse_policy(policy_data, self.store))
        except InputError as error:
            return error_result(error)

    def answer_json(self, policy_text: str, have_terms: str = "") -> str:
        """The slim answer for a policy given as JSON text, as JSON text; never raises.

        ``have_terms`` is the ``terms_key`` of per-term parts the page holds already:
        those depend on the question and the scorer only, and are most of an answer's size."""
        try:
            data = json.loads(policy_text)
        except (json.JSONDecodeError, TypeError, RecursionError) as error:
            return dumps(error_result(InputError("InvalidJSON", [("policy", f"is not valid JSON ({error})")])))
        try:
            return self._encode_answer(parse_policy(data, self.store), have_terms)
        except InputError as error:
            return dumps(error_result(error))
        except Exception as error:  # the page must get an answer, never a hang
            return dumps(internal_error(error))

    # ------------------------------------------------------------ the work

    def _question(self, text: str) -> QuestionScores:
        """A question's scores against every record, kept for the last few questions."""
        return self._scores.get(text, lambda: score_question(self.index, text))

    def _question_bm25(self, text: str, k1: float, b: float, *, with_parts: bool) -> BM25Scores:
        """A question's BM25 against every record, kept like ``_question``'s scores; its
        per-term parts only when BM25 ranks (beside TF-IDF, its scores suffice)."""
        return self._bm25.get(
            (text, k1, b, with_parts),
            lambda: score_question_bm25(self.index, self.lengths, text, k1=k1, b=b, with_parts=with_parts),
        )

    def _asked(self, policy: Policy) -> str:
        """The text of the question in force: the learner's own when given, else the chosen one's."""
        return policy.question_text or self.store.question(policy.question).text

    def _question_embedding(self, text: str) -> EmbeddingScores:
        """A question's embedding scores against every record, kept like ``_question``'s."""

        def make() -> EmbeddingScores:
            from .semantic import score_question_embedding

            return score_question_embedding(self._vectors(), text)

        return self._meaning.get(text, make)

    def _vectors(self) -> StoreVectors:
        """Every record's vector and the store's map, made the first time a policy needs them."""
        if self._store_vectors is None:
            if self._embedding is None:
                if self._vectors_source is None:
                    raise InputError(
                        "MissingVectors", [("vectors", "no static embedding is loaded for the embedding scorers")]
                    )
                self._embedding = self._vectors_source()
            from .semantic import store_vectors

            self._store_vectors = store_vectors(self._embedding, [record.text for record in self.store.records])
        return self._store_vectors

    def _terms_key(self, policy: Policy) -> str:
        """What the per-term parts depend on: the store, the question's text, and the
        settings the scorer table names (``Scorer.parts_depend_on``: BM25's k1 and b, the
        embedding's scope, every setting of the two rankings hybrid fuses). The separator
        after such a key's store name is a control character, which no store name holds,
        so the kinds of key never meet."""
        text = self._asked(policy)
        depends = SCORERS_BY_ID[policy.scorer].parts_depend_on
        if not depends:
            return f"{self.name}:{text}"
        settings = [getattr(policy, name) for name in depends]
        return f"{self.name}\x1f{policy.scorer}:{json.dumps(settings)}:{text}"

    def _decide(self, policy: Policy) -> _Decisions:
        """What a policy decides for every record: read the question under each scorer,
        check scope (the policy scorer's match last), rank the candidates under each
        scorer, pack the policy scorer's ranking, and see what the tray holds."""
        text = self._asked(policy)
        tfidf = self._question(text)
        # An answer carries the per-record parts of the scorer in force, and no others.
        bm25 = self._question_bm25(text, policy.bm25_k1, policy.bm25_b, with_parts=policy.scorer == "bm25")
        # Every scorer the answer shows: the policy's ranks and packs, the others rank the
        # same candidates beside it. A new scorer is one more entry here.
        # BM25's divisor is the best among the tenant's own records: the tenant is a hard filter.
        # Not keyed by with_parts: the scores are the same floats either way (score_question_bm25).
        shares = self._shares.get(
            (text, policy.bm25_k1, policy.bm25_b), lambda: shares_within(bm25.scores, self.tenants)
        )
        scorings: dict[str, AnyScoring] = {"tfidf": tfidf_scoring(tfidf), "bm25": bm25_scoring(bm25, shares.relative)}
        meaning: EmbeddingScores | None = None
        fusion: Fusion | None = None
        key = self._terms_key(policy)
        if policy.scorer in EMBEDDING_SCORERS:
            vectors = self._vectors()
            meaning = found = self._question_embedding(text)
            # The embedding's parts and hybrid's fusion depend on which records the scope keeps.
            in_scope = self.scope.check_all(_matched, policy)[1]
            parts: tuple[tuple[EmbeddingPart, ...], ...] = ((),) * len(self.ids)
            if policy.scorer == "embedding":
                parts = self._kept.get(key, lambda: _embedding_parts(vectors, found, in_scope))
            scorings["embedding"] = embedding_scoring(meaning, policy.min_similarity, parts)
            if policy.scorer == "hybrid":
                fusion = self._kept.get(
                    key, lambda: fuse(bm25, shares.relative, found, in_scope, policy.min_similarity, policy.rrf_k)
                )
                scorings["hybrid"] = fusion.scoring
        scoring = scorings[policy.scorer]
        exclusions, candidates = self.scope.check_all(scoring.unmatched, policy)
        # Each scorer ranks the candidates it matches too (the lexical two match the same).
        rankings = {
            name: self._ranked(each, [p for p in candidates if each.unmatched(p) is None], policy.recency_weight)
            for name, each in scorings.items()
        }
        ranked = rankings[policy.scorer]
        outcome, reason = _outcomes(exclusions, ranked, pack(ranked, policy.budget_words, policy.max_records))
        selected = [candidate for candidate in ranked if outcome[candidate.position] == "selected"]
        ranks = {name: _places(each, len(self.ids)) for name, each in rankings.items()}
        return _Decisions(
            tfidf=tfidf,
            bm25=bm25,
            shares=shares,
            meaning=meaning,
            rrf=None if fusion is None else fusion.rrf,
            scoring=scoring,
            scorings=scorings,
            score=self._blended(scoring, policy.recency_weight),
            outcome=outcome,
            reason=reason,
            rank=ranks[policy.scorer],
            other_rank=ranks[OTHER_SCORER[policy.scorer]],
            ranks=ranks,
            ranked=[candidate.id for candidate in ranked],
            selected=[candidate.id for candidate in selected],
            words_used=sum(candidate.words for candidate in selected),
            coverage=self._coverage(policy, [candidate.id for candidate in selected]),
            terms_key=key,
        )

    def _blended(self, scoring: AnyScoring, weight: float) -> list[float]:
        """Every record's score under a scorer: its relevance blended with its recency."""
        return [
            blend(relevance, fresh, weight) for relevance, fresh in zip(scoring.relevance, self.recency, strict=True)
        ]

    def _ranked(self, scoring: AnyScoring, in_scope: list[int], weight: float) -> list[Candidate]:
        """The candidates (the positions in scope) best first under a scorer."""
        ids, words, relevance, fresh = self.ids, self.words, scoring.relevance, self.recency
        return rank(
            [Candidate(ids[i], i, words[i], relevance[i], blend(relevance[i], fresh[i], weight)) for i in in_scope]
        )

    def _coverage(self, policy: Policy, selected: list[str]) -> Coverage:
        """Which of the question's supporting records for the tenant were selected.

        An own question declares no supporting facts: nothing to cover, said as such."""
        own = bool(policy.question_text)
        supporting = [] if own else list(self.store.question(policy.question).supporting.get(policy.tenant, ()))
        found = [rid for rid in supporting if rid in selected]
        return {"found": len(found), "total": len(supporting), "supporting": supporting, "found_ids": found}

    def _head(self, policy: Policy, d: _Decisions) -> Head:
        own = bool(policy.question_text)
        text = self._asked(policy)
        near_misses = self._near_misses.of(d.tfidf.dropped) if d.tfidf.dropped else []
        return {
            "engine_version": __version__,
            "policy": policy_dict(policy),
            "question": {
                "id": "" if own else policy.question,
                "text": text,
                "own": own,
                "terms": list(d.tfidf.terms),
                "dropped_terms": list(d.tfidf.dropped),
                "near_misses": near_misses,
                "stop_words": stop_words_in(text),
                "best_bm25": d.bm25.scores[best] if (best := d.shares.best.get(policy.tenant)) is not None else 0.0,
                "best_bm25_record": None if best is None else self.ids[best],
                "average_length": d.bm25.average_length,
                "reading": self._reading(policy, d, text, near_misses),
                "tokens": [] if d.meaning is None else _asked_tokens(d.meaning),
                "unknown_tokens": [] if d.meaning is None else list(d.meaning.unknown),
                "norm": None if d.meaning is None else d.meaning.norm,
                "map": None if d.meaning is None else self._map(d.meaning),
            },
        }

    def _reading(self, policy: Policy, d: _Decisions, text: str, near_misses: list[NearMiss]) -> list[ReadingClaim]:
        """How the scorer in force reads the question: its exact words, its word pieces, or
        both; and what each of them did with a negation in it."""
        scorer = SCORERS_BY_ID[policy.scorer]
        negations = negations_in(text)
        first = self.positions[d.ranked[0]] if d.ranked else None
        claims: list[ReadingClaim] = []
        if scorer.words:
            read = word_claims(scorer, text, d.tfidf.terms, d.tfidf.dropped, stop_words_in(text), near_misses)
            claims += read + negation_word_claims(scorer.words, negations, read)
        if scorer.pieces and d.meaning is not None:
            meaning = d.meaning
            top = None
            # The per-piece parts are the embedding's own when it ranks (hybrid's are its fusion's).
            if d.scoring is d.scorings.get("embedding") and first is not None:
                parts = cast(tuple[EmbeddingPart, ...], d.scoring.parts[first])
                top = (d.ranked[0], meaning.similarity[first], parts)
            claims += piece_claims(meaning.sequence, meaning.unknown, top)
            # A negation's parts come from the similarity's own split, whichever scorer ranks.
            first_parts = None
            if first is not None:
                split = dict(zip((t.token for t in meaning.tokens), meaning.contributions[first], strict=True))
                first_parts = (d.ranked[0], meaning.similarity[first], policy.scorer, split)
            claims += negation_piece_claims(negations, meaning.sequence, meaning.spans, first_parts)
        if first is not None:
            held = term_counts(self.store.records[first].text)
            claims += negated_first_claims(negations, text, policy.scorer, d.ranked[0], held)
        return claims

    def _map(self, meaning: EmbeddingScores) -> QuestionMap:
        plane = self._vectors().plane
        return {
            "question": list(meaning.place),
            "records": [list(place) for place in plane.records],
            "explained": list(plane.explained),
        }

    @functools.cached_property
    def _near_misses(self) -> NearMisses:
        """The store's vocabulary by stem, made the first time a question has a term in no record."""
        return NearMisses(self.index.document_frequency)

    def _summary(self, policy: Policy, d: _Decisions) -> Summary:
        return {
            "ranked": d.ranked,
            "selected": d.selected,
            "words_used": d.words_used,
            "budget_words": policy.budget_words,
            "counts": {
                "stored": len(self.store.records),
                "in_scope": sum(1 for code in d.outcome if OUTCOME_STAGE[code] > 2),
                "ranked": len(d.ranked),
                "selected": len(d.selected),
            },
            "coverage": d.coverage,
        }

    def _columns(self, policy: Policy, d: _Decisions) -> Columns:
        """The slim answer but for its per-term parts."""
        return {
            **self._head(policy, d),
            "ids": self.ids,
            "cosine": list(d.tfidf.cosines),
            "bm25": list(d.bm25.scores),
            "similarity": [None] * len(self.ids) if d.meaning is None else list(d.meaning.similarity),
            "rrf": [None] * len(self.ids) if d.rrf is None else list(d.rrf),
            "relevance": list(d.scoring.relevance),
            "score": d.score,
            "outcome": d.outcome,
            "reason": d.reason,
            "rank": d.rank,
            "other_rank": d.other_rank,
            "ranks": d.ranks,
            **self._summary(policy, d),
            "terms_key": d.terms_key,
        }

    def _encode_answer(self, policy: Policy, have_terms: str) -> str:
        """``dumps(self.answer(policy, have_terms=have_terms))``, the per-term parts
        encoded once per question."""
        d = self._decide(policy)
        columns = self._columns(policy, d)
        key = columns["terms_key"]
        terms = "null" if have_terms == key else self._encoded.get(key, lambda: dumps(d.scoring.parts))
        return f'{dumps(columns)[:-1]},"terms":{terms}}}'


def _outcomes(
    exclusions: list[Exclusion | None], ranked: list[Candidate], packed: list[Packed]
) -> tuple[list[str], list[str]]:
    """Each record's outcome and reason, in store order: its exclusion from scope, or
    what packing decided for it."""
    outcome = [""] * len(exclusions)
    reason = [""] * len(exclusions)
    for position, exclusion in enumerate(exclusions):
        if exclusion is not None:
            outcome[position], reason[position] = exclusion.outcome, exclusion.reason
    for candidate, decision in zip(ranked, packed, strict=True):
        outcome[candidate.position], reason[candidate.position] = decision.outcome, decision.reason
    return outcome, reason


def _embedding_parts(
    vectors: StoreVectors, meaning: EmbeddingScores, in_scope: list[int]
) -> tuple[tuple[EmbeddingPart, ...], ...]:
    """Each record's parts: per question token its contribution and, for a record in
    scope, the record's tokens closest to it."""
    from .semantic import closest

    kept = set(in_scope)
    parts: list[tuple[EmbeddingPart, ...]] = []
    for position, contributions in enumerate(meaning.contributions):
        near = closest(vectors, meaning, position) if position in kept else None
        parts.append(
            tuple(
                {
                    "token": token.token,
                    "count": token.count,
                    "contribution": contribution,
                    "closest": [] if near is None else [{"token": n.token, "cosine": n.cosine} for n in near[i]],
                }
                for i, (token, contribution) in enumerate(zip(meaning.tokens, contributions, strict=True))
            )
        )
    return tuple(parts)


def _asked_tokens(meaning: EmbeddingScores) -> list[AskedToken]:
    return [
        {
            "token": token.token,
            "count": token.count,
            "neighbours": [{"token": near.token, "cosine": near.cosine} for near in neighbours],
        }
        for token, neighbours in zip(meaning.tokens, meaning.neighbours, strict=True)
    ]


def _places(ranked: list[Candidate], size: int) -> list[int | None]:
    """Each record's place in a ranking (1 for the best), in store order; None out of scope."""
    places: list[int | None] = [None] * size
    for place, candidate in enumerate(ranked, start=1):
        places[candidate.position] = place
    return places


def policy_dict(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in policy.__dataclass_fields__}

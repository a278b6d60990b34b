"""A store opened once, answering policy after policy.

A ``Session`` holds one validated store, its TF-IDF index, its newest record per key,
its word counts and the scores of the questions asked so far. ``retrieve`` gives the
full result (the command line, ``api.run``); ``answer`` gives the slim answer the page's
worker sends: only what a policy decides plus the question's per-record scores, never
the record texts again, since the page already holds the store it opened.
"""

from __future__ import annotations

import functools
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, cast

from . import __version__
from .fields import OUTCOME_STAGE
from .model import (
    Answer,
    Coverage,
    ErrorResult,
    InputError,
    Opened,
    Policy,
    RecordResult,
    Result,
    Store,
    error_result,
    internal_error,
    parse_policy,
)
from .pack import Candidate, pack, rank
from .scope import ScopeChecker
from .text import stop_words_in, word_count
from .tfidf import QuestionScores, build_index, score_question

dumps = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))

# Questions whose scores (and encoded per-record parts) a session keeps: a learner
# goes back and forth between a few, and each costs a pass over every record.
_QUESTIONS_KEPT = 8


def recency(age_hours: float) -> float:
    """Half-life decay: 1 for a new record, 0.5 after a day, 0.25 after two."""
    return float(2.0 ** (-age_hours / 24.0))


def blend(cosine_value: float, recency_value: float, weight: float) -> float:
    """``(1 - w) * cosine + w * recency``; w = 0 ranks on cosine alone."""
    return (1.0 - weight) * cosine_value + weight * recency_value


@dataclass(frozen=True)
class _Decisions:
    """What one policy decides for every record, in store order."""

    scores: QuestionScores
    score: list[float]
    outcome: list[str]
    reason: list[str]
    rank: list[int | None]
    ranked: list[str]
    selected: list[str]
    words_used: int
    coverage: Coverage


class Session:
    """One validated store and everything about it that no policy changes."""

    def __init__(self, store: Store, *, name: str = "") -> None:
        """``name`` tells this store's answers from another's (api.open_json names a
        session by its store's text), so that per-term parts the page keeps from one
        store are never taken for another's."""
        self.store = store
        self.name = name
        self.index = build_index(tuple(record.text for record in store.records))
        self.scope = ScopeChecker(store)
        self.ids = [record.id for record in store.records]
        self.words = [word_count(record.text) for record in store.records]
        self.recency = [recency(record.age_hours) for record in store.records]
        self._scores: OrderedDict[str, QuestionScores] = OrderedDict()
        self._encoded: dict[str, str] = {}

    # ------------------------------------------------------------ the two shapes

    def retrieve(self, policy: Policy) -> Result:
        """The full result: every record with its own fields, scores, outcome and parts."""
        d = self._decide(policy)
        rows: list[RecordResult] = []
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
                    "cosine": d.scores.cosines[i],
                    "recency": self.recency[i],
                    "score": d.score[i],
                    "outcome": d.outcome[i],
                    "stage": OUTCOME_STAGE[d.outcome[i]],
                    "reason": d.reason[i],
                    "rank": d.rank[i],
                    "terms": [dict(part) for part in d.scores.parts[i]],  # type: ignore[misc]
                }
            )
        return {**self._head(policy, d), "records": rows, **self._tail(policy, d)}  # type: ignore[typeddict-item]

    def answer(self, policy: Policy, *, have_terms: str = "") -> Answer:
        """The slim answer, by columns; ``terms`` is None when ``have_terms`` is its key."""
        d = self._decide(policy)
        columns = self._columns(policy, d)
        held = have_terms == columns["terms_key"]
        terms = None if held else [[dict(part) for part in parts] for parts in d.scores.parts]
        return cast(Answer, {**columns, "terms": terms})

    def opened(self) -> Opened:
        """What the page needs once per store: its size, each record's word count and recency."""
        return {"records": len(self.store.records), "words": self.words, "recency": self.recency}

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
        those depend on the question only, and are most of an answer's size."""
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
        scores = self._scores.get(text)
        if scores is None:
            scores = self._scores[text] = score_question(self.index, text)
            if len(self._scores) > _QUESTIONS_KEPT:
                self._scores.popitem(last=False)
        else:
            self._scores.move_to_end(text)
        return scores

    def _asked(self, policy: Policy) -> str:
        """The text of the question in force: the learner's own when given, else the chosen one's."""
        return policy.question_text or self.store.question(policy.question).text

    def _terms_key(self, policy: Policy) -> str:
        """What the per-term parts depend on: the store and the question's text."""
        return f"{self.name}:{self._asked(policy)}"

    def _encoded_terms(self, key: str, scores: QuestionScores) -> str:
        """The per-term parts of every record as JSON text, encoded once per question."""
        encoded = self._encoded.get(key)
        if encoded is None:
            encoded = self._encoded[key] = dumps(scores.parts)
            if len(self._encoded) > _QUESTIONS_KEPT:
                del self._encoded[next(iter(self._encoded))]
        return encoded

    def _decide(self, policy: Policy) -> _Decisions:
        store = self.store
        scores = self._question(self._asked(policy))
        weight = policy.recency_weight
        keep = 1.0 - weight  # blend(), inlined: this runs for every record on every change
        score = [keep * cos + weight * fresh for cos, fresh in zip(scores.cosines, self.recency, strict=True)]
        exclusions, in_scope = self.scope.check_all(scores.cosines, policy)
        outcome = [""] * len(store.records)
        reason = [""] * len(store.records)
        for i, exclusion in enumerate(exclusions):
            if exclusion is not None:
                outcome[i], reason[i] = exclusion.outcome, exclusion.reason
        ranks: list[int | None] = [None] * len(store.records)
        words, cosines, records = self.words, scores.cosines, store.records
        candidates = [Candidate(records[i].id, i, words[i], cosines[i], score[i]) for i in in_scope]
        ranked = rank(candidates)
        for candidate, decision in zip(ranked, pack(ranked, policy.budget_words, policy.max_records), strict=True):
            i = candidate.position
            outcome[i], reason[i], ranks[i] = decision.outcome, decision.reason, decision.rank
        selected = [c.id for c in ranked if outcome[c.position] == "selected"]
        # An own question declares no supporting facts: nothing to cover, said as such.
        own = bool(policy.question_text)
        supporting = [] if own else list(store.question(policy.question).supporting.get(policy.tenant, ()))
        found = [rid for rid in supporting if rid in selected]
        return _Decisions(
            scores=scores,
            score=score,
            outcome=outcome,
            reason=reason,
            rank=ranks,
            ranked=[c.id for c in ranked],
            selected=selected,
            words_used=sum(self.words[c.position] for c in ranked if outcome[c.position] == "selected"),
            coverage={"found": len(found), "total": len(supporting), "supporting": supporting, "found_ids": found},
        )

    def _head(self, policy: Policy, d: _Decisions) -> dict[str, Any]:
        own = bool(policy.question_text)
        text = self._asked(policy)
        return {
            "engine_version": __version__,
            "policy": policy_dict(policy),
            "question": {
                "id": "" if own else policy.question,
                "text": text,
                "own": own,
                "terms": list(d.scores.terms),
                "dropped_terms": list(d.scores.dropped),
                "stop_words": stop_words_in(text),
            },
        }

    def _tail(self, policy: Policy, d: _Decisions) -> dict[str, Any]:
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

    def _columns(self, policy: Policy, d: _Decisions) -> dict[str, Any]:
        """The slim answer but for its per-term parts."""
        return {
            **self._head(policy, d),
            "ids": self.ids,
            "cosine": list(d.scores.cosines),
            "score": d.score,
            "outcome": d.outcome,
            "reason": d.reason,
            "rank": d.rank,
            **self._tail(policy, d),
            "terms_key": self._terms_key(policy),
        }

    def _encode_answer(self, policy: Policy, have_terms: str) -> str:
        """``dumps(self.answer(policy, have_terms=have_terms))``, the per-term parts
        encoded once per question."""
        d = self._decide(policy)
        columns = self._columns(policy, d)
        key = columns["terms_key"]
        terms = "null" if have_terms == key else self._encoded_terms(key, d.scores)
        return f'{dumps(columns)[:-1]},"terms":{terms}}}'


def policy_dict(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in policy.__dataclass_fields__}

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
import math
from collections import OrderedDict
from dataclasses import dataclass
from json.encoder import encode_basestring  # the C version where there is one
from typing import Any

from . import __version__
from .fields import OUTCOME_STAGE
from .model import (
    Answer,
    AnswerRecord,
    Coverage,
    ErrorResult,
    InputError,
    Policy,
    RecordResult,
    Result,
    Store,
    error_result,
    internal_error,
    parse_policy,
)
from .pack import Candidate, pack, rank
from .scope import check_scope, newest_by_key
from .text import word_count
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

    def __init__(self, store: Store) -> None:
        self.store = store
        self.index = build_index(tuple(record.text for record in store.records))
        self.newest = newest_by_key(store.records)
        self.words = [word_count(record.text) for record in store.records]
        self.recency = [recency(record.age_hours) for record in store.records]
        self._questions: OrderedDict[str, tuple[QuestionScores, list[tuple[str, str]]]] = OrderedDict()

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

    def answer(self, policy: Policy) -> Answer:
        """The slim answer: what the policy decides, and the question's scores."""
        d = self._decide(policy)
        rows: list[AnswerRecord] = [
            {
                "id": record.id,
                "cosine": d.scores.cosines[i],
                "recency": self.recency[i],
                "score": d.score[i],
                "outcome": d.outcome[i],
                "stage": OUTCOME_STAGE[d.outcome[i]],
                "reason": d.reason[i],
                "rank": d.rank[i],
                "terms": list(d.scores.parts[i]),
            }
            for i, record in enumerate(self.store.records)
        ]
        return {**self._head(policy, d), "records": rows, **self._tail(policy, d)}  # type: ignore[typeddict-item]

    def opened(self) -> dict[str, Any]:
        """What the page needs once per store: its size and each record's word count."""
        return {"records": len(self.store.records), "words": self.words}

    # ------------------------------------------------------------ entry points

    def run(self, policy_data: Any) -> Result | ErrorResult:
        """The full result for a policy object; bad input gives an error object."""
        try:
            return self.retrieve(parse_policy(policy_data, self.store))
        except InputError as error:
            return error_result(error)

    def answer_json(self, policy_text: str) -> str:
        """The slim answer for a policy given as JSON text, as JSON text; never raises."""
        try:
            policy = parse_policy(json.loads(policy_text), self.store)
            return self._encode_answer(policy)
        except InputError as error:
            return dumps(error_result(error))
        except (json.JSONDecodeError, TypeError) as error:
            return dumps(error_result(InputError("InvalidJSON", [("policy", f"is not valid JSON ({error})")])))
        except Exception as error:  # the page must get an answer, never a hang
            return dumps(internal_error(error))

    # ------------------------------------------------------------ the work

    def _question(self, text: str) -> tuple[QuestionScores, list[tuple[str, str]]]:
        """A question's scores and each record's encoded question-only parts (kept)."""
        entry = self._questions.get(text)
        if entry is None:
            scores = score_question(self.index, text)
            fixed = [
                (
                    f'{{"id":{encode_basestring(record.id)},"cosine":{_number(scores.cosines[i])}'
                    f',"recency":{_number(self.recency[i])}',
                    f',"terms":{dumps(scores.parts[i])}}}',
                )
                for i, record in enumerate(self.store.records)
            ]
            entry = (scores, fixed)
            self._questions[text] = entry
            if len(self._questions) > _QUESTIONS_KEPT:
                self._questions.popitem(last=False)
        else:
            self._questions.move_to_end(text)
        return entry

    def _decide(self, policy: Policy) -> _Decisions:
        store = self.store
        question = store.question(policy.question)
        scores, _ = self._question(question.text)
        weight = policy.recency_weight
        score = [blend(cos, fresh, weight) for cos, fresh in zip(scores.cosines, self.recency, strict=True)]
        outcome = [""] * len(store.records)
        reason = [""] * len(store.records)
        ranks: list[int | None] = [None] * len(store.records)
        candidates: list[Candidate] = []
        for i, record in enumerate(store.records):
            exclusion = check_scope(record, scores.cosines[i], policy, store, self.newest)
            if exclusion is None:
                candidates.append(Candidate(record.id, i, self.words[i], scores.cosines[i], score[i]))
            else:
                outcome[i], reason[i] = exclusion.outcome, exclusion.reason
        ranked = rank(candidates)
        for candidate, decision in zip(ranked, pack(ranked, policy.budget_words, policy.max_records), strict=True):
            i = candidate.position
            outcome[i], reason[i], ranks[i] = decision.outcome, decision.reason, decision.rank
        selected = [c.id for c in ranked if outcome[c.position] == "selected"]
        supporting = list(question.supporting.get(policy.tenant, ()))
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
        question = self.store.question(policy.question)
        return {
            "engine_version": __version__,
            "policy": policy_dict(policy),
            "question": {
                "id": question.id,
                "text": question.text,
                "terms": list(d.scores.terms),
                "dropped_terms": list(d.scores.dropped),
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

    def _encode_answer(self, policy: Policy) -> str:
        """``dumps(self.answer(policy))``, reusing each record's encoded question-only parts."""
        d = self._decide(policy)
        _, fixed = self._question(self.store.question(policy.question).text)
        records = ",".join(
            head + f',"score":{_number(d.score[i])},"outcome":{encode_basestring(d.outcome[i])}'
            f',"stage":{OUTCOME_STAGE[d.outcome[i]]},"reason":{encode_basestring(d.reason[i])}'
            f',"rank":{"null" if d.rank[i] is None else d.rank[i]}' + tail
            for i, (head, tail) in enumerate(fixed)
        )
        head = dumps(self._head(policy, d))[:-1]
        tail = dumps(self._tail(policy, d))[1:]
        return f'{head},"records":[{records}],{tail}'


def policy_dict(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in policy.__dataclass_fields__}


def _number(value: float) -> str:
    # What json.dumps writes for a finite float (the engine's scores always are).
    return float.__repr__(value) if math.isfinite(value) else dumps(value)

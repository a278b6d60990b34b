"""A store opened once, answering policy after policy.

A ``Session`` holds one validated store, its newest record per key, its word counts and
recency, the static embedding once an answer needs it, and what its scorers make of the
store and of the last few questions (``keep``: the TF-IDF index, every record's vector, a
question's scores). An answer reads the question under the scorers the scorer table gives
it (engine/scorers.py ``READ_FOR``: the two lexical ones in every answer, the policy's
scorer and what that is made from), each a ``scoring.Scoring`` that the module its row
names reads: the policy's scorer ranks and packs, the others rank the same candidates
beside it, so a learner sees where they disagree. The blend and the packing rule in
force are rows of their tables too.
``retrieve`` gives the full result (the command line, ``api.run``); ``answer_json`` the
slim answer the page's worker sends: the columns engine/shapes.py marks, never the record
texts again, since the page already holds the store it opened.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .errors import InputError, error_result, internal_error
from .fields import DEFAULT_POLICY, OTHER_SCORER, OUTCOME_STAGE, OUTCOME_TABLE
from .model import Policy, Store
from .pack import Candidate, Packed, rank
from .parse import parse_policy
from .reading import negated_first_claims, negation_word_claims, negations_in, word_claims
from .recent import Recent
from .scope import Exclusion, ScopeChecker, as_of_said
from .scorers import READ_FOR, SCOPE_FIELDS, SCORERS, SCORERS_BY_ID, blend_for, packing_for
from .scoring import AnyScoring, Asking, First, Weigh, recency
from .scoring import moment as at_moment
from .shapes import (
    ANSWER_COLUMNS,
    OPENED,
    OUTCOME,
    PARTS,
    RECORD_SOURCES,
    STORE,
    Answer,
    Coverage,
    ErrorResult,
    Head,
    Opened,
    QuestionResult,
    ReadingClaim,
    RecordResult,
    Result,
    Summary,
    Weighing,
    blank_question,
)
from .text import stop_words_in, term_counts, word_count
from .version import __version__

if TYPE_CHECKING:
    # The embedding's modules are imported when a policy first reads the vectors: the
    # page's Python is ready sooner, and a learner who never picks them never loads them.
    from .embedding import StaticEmbedding

dumps = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))

# What a session keeps of each kind (a scorer's reading of a question, say): a learner
# goes back and forth between a few questions, and each costs a pass over every record.
_QUESTIONS_KEPT = 8

V = TypeVar("V")


@dataclass(frozen=True)
class _Decisions:
    """What one policy decides for every record. ``asking`` is the question as the scorers
    read it (its ``terms_key`` names what the per-record parts depend on), ``scorings`` its
    readings under every scorer the answer read, ``scoring`` the policy scorer's;
    ``columns`` the answer's columns (``shapes.ANSWER_COLUMNS``), each in store order;
    ``ranked`` record ids, best first, ``order`` the order the packing rule decided them
    in (the ranking under greedy packing; under MMR, its picks first) and ``selected`` the
    tray in the order it was filled; ``weighing`` how a normalising blend made the scores."""

    asking: Asking
    scorings: dict[str, AnyScoring]
    scoring: AnyScoring
    columns: dict[str, Any]
    ranked: list[str]
    order: list[str]
    selected: list[str]
    words_used: int
    coverage: Coverage
    weighing: Weighing | None


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
        self.scope = ScopeChecker(store)
        self.texts = [record.text for record in store.records]
        self.ids = [record.id for record in store.records]
        self.positions = {rid: position for position, rid in enumerate(self.ids)}
        self.words = [word_count(record.text) for record in store.records]
        self.ages = [record.age_hours for record in store.records]
        self.recency = [recency(age) for age in self.ages]
        self.tenants = [record.tenant for record in store.records]
        self.importance = [record.importance for record in store.records]
        self._kept: dict[str, Recent[Hashable, Any]] = {}
        self._embedding = embedding
        self._vectors_source = vectors

    # ------------------------------------------------------------ the two shapes

    def retrieve(self, policy: Policy) -> Result:
        """The full result: every record with its own fields, scores, outcome and parts,
        its keys in the order engine/shapes.py declares them."""
        d = self._decide(policy)
        records: list[dict[str, Any]] = [{} for _ in self.ids]
        # Filled a key at a time, every record's: as quick as one dict display per record.
        for key, source in RECORD_SOURCES.items():
            for record, value in zip(records, self._record_column(key, source, d), strict=True):
                record[key] = value
        return {**self._head(policy, d), "records": cast(list[RecordResult], records), **self._summary(policy, d)}

    def opened(self) -> Opened:
        """What the page needs once per store: its size, each record's word count, importance and recency."""
        return {
            "records": len(self.store.records),
            "words": self.words,
            "importance": self.importance,
            "recency": self.recency,
        }

    def ranking_and_tray(self, policy: Policy) -> tuple[list[str], list[str], list[str]]:
        """The records after scope in the order the packing rule put them (record ids: the
        ranking, best first, under greedy packing; MMR's picks first under MMR), the tray and
        every record's outcome in store order: what an evaluation (engine/evaluate.py)
        measures and says, without building the answer around them."""
        d = self._decide(policy)
        return d.order, d.selected, list(d.columns["outcome"])

    # ------------------------------------------------------------ entry points

    def run(self, policy_data: Any) -> Result | ErrorResult:
        """The full result for a policy object; bad input gives an error object."""
        try:
            return self.retrieve(parse_policy(policy_data, self.store))
        except InputError as error:
            return error_result(error)

    def answer_json(self, policy_text: str, have_terms: str = "") -> tuple[str, str | None]:
        """The slim answer (``shapes.Answer``) for a policy given as JSON text, as JSON text,
        and its per-term parts as JSON text apart, every record's in store order; never raises.

        The parts are None when ``have_terms`` is the answer's ``terms_key``: the page holds
        them already. They depend on the question and the scorer's settings only, and are
        most of an answer's size; a session encodes them once per terms key."""
        try:
            data = json.loads(policy_text)
        except (json.JSONDecodeError, TypeError, RecursionError) as error:
            invalid = InputError("InvalidJSON", [("policy", f"is not valid JSON ({error})")])
            return dumps(error_result(invalid)), None
        try:
            policy = parse_policy(data, self.store)
            d = self._decide(policy)
            key = d.asking.terms_key
            answer = {
                **self._head(policy, d),
                "ids": self.ids,
                **{column: d.columns[column] for column in ANSWER_COLUMNS},
                **self._summary(policy, d),
                "terms_key": key,
            }
            parts = None if have_terms == key else self.keep("encoded parts", key, lambda: dumps(d.scoring.parts))
            return dumps(cast(Answer, answer)), parts
        except InputError as error:
            return dumps(error_result(error)), None
        except Exception as error:  # the page must get an answer, never a hang
            return dumps(internal_error(error)), None

    # ------------------------------------------------------------ what the scorers read with

    def keep(self, kind: str, key: Hashable, make: Callable[[], V]) -> V:
        """What ``make`` makes for ``key``, kept among the last few of its kind: a scorer's
        index of the store (one key), its reading of a question (a learner goes back and
        forth between a few, and each costs a pass over every record)."""
        kept = self._kept.get(kind)
        if kept is None:
            kept = self._kept[kind] = Recent(_QUESTIONS_KEPT)
        return cast(V, kept.get(key, make))

    def embedding(self) -> StaticEmbedding:
        """The static embedding the embedding scorers read, asked for the first time one does."""
        if self._embedding is None:
            if self._vectors_source is None:
                raise InputError(
                    "MissingVectors", [("vectors", "no static embedding is loaded for the embedding scorers")]
                )
            self._embedding = self._vectors_source()
        return self._embedding

    # ------------------------------------------------------------ the work

    def _asked(self, policy: Policy) -> str:
        """The text of the question in force: the learner's own when given, else the chosen one's."""
        return policy.question_text or self.store.question(policy.question).text

    def _terms_key(self, policy: Policy, text: str, index_key: float | None = None) -> str:
        """What the per-term parts depend on: the store, the question's ``text``, and the
        settings the scorer table names (``Scorer.parts_depend_on``: BM25's k1 and b, the
        embedding's scope, every setting of the two rankings hybrid fuses). The separator
        after such a key's store name is a control character, which no store name holds,
        so the kinds of key never meet. Asked as of an earlier moment, or by the time facts
        became true, the parts depend on that too: a scorer whose parts depend on the scope
        on the moment and the clock themselves, the others on the records the index held
        then (``index_key``: two moments with the same records share their parts). The
        store's name then carries them after another control character."""
        name = self.name
        depends = SCORERS_BY_ID[policy.scorer].parts_depend_on
        if set(depends) & set(SCOPE_FIELDS):
            if policy.as_of_hours != 0 or policy.latest_by != DEFAULT_POLICY["latest_by"]:
                name = f"{name}\x1e{json.dumps([policy.as_of_hours, policy.latest_by])}"
        elif index_key is not None:
            name = f"{name}\x1e{json.dumps(index_key)}"
        if not depends:
            return f"{name}:{text}"
        settings = [getattr(policy, field) for field in depends]
        return f"{name}\x1f{policy.scorer}:{json.dumps(settings)}:{text}"

    def _decide(self, policy: Policy) -> _Decisions:
        """What a policy decides for every record: check scope once, read the question under
        each scorer the table gives the policy's (each after those it needs), keep the
        records in scope that the policy's scorer matches, rank them under each scorer,
        pack the policy scorer's ranking, and see what the tray holds."""
        exclusions, in_scope = self.scope.check_all(policy)
        superseded_by = [None if exclusion is None else exclusion.by for exclusion in exclusions]
        text = self._asked(policy)
        moment = self.keep("moment", policy.as_of_hours, lambda: at_moment(self.ages, policy.as_of_hours, self.recency))
        asking = Asking(self, policy, text, self._terms_key(policy, text, moment.index_key), in_scope, moment)
        scorings: dict[str, AnyScoring] = {}
        for row in READ_FOR[policy.scorer]:
            needed = tuple(scorings[name] for name in row.needs)
            scorings[row.id] = _module(row.module).read(asking, row.id == policy.scorer, needed)
        scoring = scorings[policy.scorer]
        candidates: list[int] = []
        for position in in_scope:
            exclusion = scoring.unmatched(position)
            if exclusion is None:
                candidates.append(position)
            else:
                exclusions[position] = exclusion
        blend = blend_for(policy)
        weigh: Weigh = _module(blend.module).weigh(asking)
        # Each scorer ranks the candidates it matches too (the lexical two match the same);
        # the policy's matches them all.
        rankings = {
            name: self._ranked(
                each, candidates if each is scoring else [p for p in candidates if each.unmatched(p) is None], weigh
            )
            for name, each in scorings.items()
        }
        ranked = rankings[policy.scorer]
        packed: list[Packed] = _module(packing_for(policy).module).pack(ranked, asking)
        outcome, reason = _outcomes(exclusions, packed, self.positions)
        by_id = {candidate.id: candidate for candidate in ranked}
        selected = [by_id[decision.id] for decision in packed if decision.outcome == "selected"]
        size = len(self.ids)
        if blend.alone:
            score: list[float | None] = list(weigh(scoring.relevance, range(size)))
        else:
            # Normalised over the records that reach ranking: the others have no score.
            score = [None] * size
            for candidate in ranked:
                score[candidate.position] = candidate.score
        weighing, each = _module(blend.module).weighed(asking, scoring.relevance, candidates)
        ranks = {name: _places(each, size) for name, each in rankings.items()}
        # Every scorer's own score, None for the scorers this answer did not read.
        scores: dict[str, Sequence[float | None]] = {
            row.column: scorings[row.id].column if row.id in scorings else [None] * size for row in SCORERS
        }
        columns: dict[str, Any] = {
            **scores,
            "relevance": scoring.relevance,
            "recency": moment.recency,
            "score": score,
            "weighed": [each.get(i) for i in range(size)] if each else [None] * size,
            "outcome": outcome,
            "reason": reason,
            "superseded_by": superseded_by,
            "rank": ranks[policy.scorer],
            "other_rank": ranks[OTHER_SCORER[policy.scorer]],
            "ranks": ranks,
        }
        return _Decisions(
            asking=asking,
            scorings=scorings,
            scoring=scoring,
            columns=columns,
            ranked=[candidate.id for candidate in ranked],
            order=[decision.id for decision in packed],
            selected=[candidate.id for candidate in selected],
            weighing=weighing,
            words_used=sum(candidate.words for candidate in selected),
            coverage=self._coverage(policy, [candidate.id for candidate in selected]),
        )

    def _ranked(self, scoring: AnyScoring, in_scope: list[int], weigh: Weigh) -> list[Candidate]:
        """The candidates (the positions in scope) best first under a scorer."""
        ids, words, relevance = self.ids, self.words, scoring.relevance
        scores = weigh(relevance, in_scope)
        return rank(
            # A blend gives one score per position asked.
            [Candidate(ids[i], i, words[i], relevance[i], score) for i, score in zip(in_scope, scores, strict=False)]
        )

    def _coverage(self, policy: Policy, selected: list[str]) -> Coverage:
        """Which of the question's supporting records for the tenant were selected.

        An own question declares no supporting facts: nothing to cover, said as such."""
        own = bool(policy.question_text)
        supporting = [] if own else list(self.store.question(policy.question).supporting.get(policy.tenant, ()))
        found = [rid for rid in supporting if rid in selected]
        return {"found": len(found), "total": len(supporting), "supporting": supporting, "found_ids": found}

    def _head(self, policy: Policy, d: _Decisions) -> Head:
        """The engine, the policy, and the question: what each scorer read adds to it, in the
        order engine/shapes.py declares (blank for a scorer not read), and how it was read."""
        text = d.asking.text
        own = bool(policy.question_text)
        question = blank_question()
        question.update(
            {"id": "" if own else policy.question, "text": text, "own": own, "stop_words": stop_words_in(text)}
        )
        for each in d.scorings.values():
            question.update(each.question(policy))  # type: ignore[typeddict-item]
        question["reading"] = self._reading(policy, d, question)
        return {"engine_version": __version__, "policy": policy_dict(policy), "question": question}

    def _reading(self, policy: Policy, d: _Decisions, question: QuestionResult) -> list[ReadingClaim]:
        """How the scorer in force reads the question: its exact words, and what every
        scorer read says beyond them (the embedding's word pieces); and what each did with a
        negation in it."""
        scorer = SCORERS_BY_ID[policy.scorer]
        text = question["text"]
        negations = negations_in(text)
        first = First(d.ranked[0], self.positions[d.ranked[0]], policy.scorer) if d.ranked else None
        claims: list[ReadingClaim] = []
        if scorer.words:
            read = word_claims(
                scorer,
                text,
                question["terms"],
                question["dropped_terms"],
                question["stop_words"],
                question["near_misses"],
            )
            claims += read + negation_word_claims(scorer.words, negations, read)
        for each in d.scorings.values():
            if each.claims is not None:
                claims += each.claims(negations, first)
        if first is not None:
            held = term_counts(self.store.records[first.position].text)
            claims += negated_first_claims(negations, text, policy.scorer, first.id, held)
        existed = len(d.asking.moment.written) if d.asking.moment.written is not None else len(self.ids)
        said = as_of_said(policy.as_of_hours, existed, len(self.ids), policy.latest_by)
        if said:
            # When the question is asked from, and by which clock a fact is the latest.
            claims.append(
                {
                    "kind": "as_of",
                    "scorer": policy.scorer,
                    "items": [],
                    "text": said,
                    "record": None,
                    "values": [policy.as_of_hours, existed, len(self.ids)],
                }
            )
        return claims

    def _summary(self, policy: Policy, d: _Decisions) -> Summary:
        outcome = d.columns["outcome"]
        return {
            "ranked": d.ranked,
            "selected": d.selected,
            "words_used": d.words_used,
            "budget_words": policy.budget_words,
            "counts": {
                "stored": len(self.store.records),
                "in_scope": sum(1 for code in outcome if OUTCOME_STAGE[code] > 2),
                "ranked": len(d.ranked),
                "selected": len(d.selected),
            },
            "coverage": d.coverage,
            "weighing": d.weighing,
        }

    @functools.cached_property
    def _store_columns(self) -> dict[str, list[Any]]:
        """The records' own fields a full result repeats, each as a column in store order."""
        return {
            key: [getattr(record, key) for record in self.store.records]
            for key, source in RECORD_SOURCES.items()
            if source == STORE
        }

    def _record_column(self, key: str, source: str, d: _Decisions) -> Sequence[Any]:
        """One key of every record, in store order, from where engine/shapes.py says the page
        gets it: the store, the open reply, the outcome table, the parts or the answer."""
        if source == STORE:
            return self._store_columns[key]
        if source == OPENED:
            return cast(Sequence[Any], self.opened()[key])  # type: ignore[literal-required]
        if source == OUTCOME:
            by_code = {row.code: getattr(row, key) for row in OUTCOME_TABLE}
            return [by_code[code] for code in d.columns["outcome"]]
        if source == PARTS:
            # Most records of a large store share no term with the question: no parts to copy.
            parts, scoring = d.scoring.parts, d.scoring
            return [scoring.copied(i) if parts[i] else [] for i in range(len(parts))]
        column = d.columns[key]  # an ANSWER key
        if isinstance(column, dict):  # a column per scorer: each record's value under each
            return [dict(zip(column, values, strict=False)) for values in zip(*column.values(), strict=False)]
        return cast(Sequence[Any], column)


@functools.cache
def _module(name: str) -> Any:
    """The engine module a table's row names (imported when an answer first needs it)."""
    return importlib.import_module(f"{__package__}.{name}")


def _outcomes(
    exclusions: list[Exclusion | None], packed: list[Packed], positions: dict[str, int]
) -> tuple[list[str], list[str]]:
    """Each record's outcome and reason, in store order: its exclusion from scope, or
    what packing decided for it."""
    outcome = [""] * len(exclusions)
    reason = [""] * len(exclusions)
    for position, exclusion in enumerate(exclusions):
        if exclusion is not None:
            outcome[position], reason[position] = exclusion.outcome, exclusion.reason
    for decision in packed:
        position = positions[decision.id]
        outcome[position], reason[position] = decision.outcome, decision.reason
    return outcome, reason


def _places(ranked: list[Candidate], size: int) -> list[int | None]:
    """Each record's place in a ranking (1 for the best), in store order; None out of scope."""
    places: list[int | None] = [None] * size
    for place, candidate in enumerate(ranked, start=1):
        places[candidate.position] = place
    return places


def policy_dict(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in policy.__dataclass_fields__}


# The modules of the scorers that never read the vectors come with the engine, as the
# session's own imports once did: the page's first answer imports nothing, and a memory
# snapshot holds them. The embedding's wait until a policy reads the vectors.
for _row in SCORERS:
    if not _row.vectors:
        _module(_row.module)

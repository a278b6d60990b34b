"""Every guided step's "Look for", checked against that step's answer.

A step's answer is its policy run on the store, as the page and ``api.run`` run it (with
the scoreboard's evaluation where the step shows the scoreboard). What the sentence names
is checked against what the page shows for that answer:

- every word shaped like one of the store's record ids (``M12`` where the ids are ``M1`` to
  ``M10``) is a record of the store;
- every number is one the page shows for the answer, written as the page writes it or
  with fewer places that it rounds to (the step's 1.15 is the page's 1.1451); a whole
  number must be the value exactly. The page's numbers: each record's scores, age, words
  and ranks, its per-term parts, the question's, the policy's numbers, the tray's and the
  stages' counts, and the numbers the reading and each record's reason state; a record the
  sentence names lends the numbers its own text holds ("S1, the 30-day rule");
- "N of M" is one of the pairs the page shows: coverage, words of the budget, records of
  the record limit, and the pairs the reasons state (or, on the scoreboard, a question's
  hits of its supporting records and of k);
- a record's number ("M5 … at cosine 0.359") is that record's;
- a record said to be superseded, selected, over budget… (an outcome's label) has that
  outcome, or, with no record before it in the clause, some record has;
- a record's breakdown or parts named are the step's record's, and a breakdown is named
  only where the step shows the breakdown or the map;
- "Hybrid leads on every mean but MRR": the scorer's mean is the highest, strictly, on
  every measure but the one excepted, and not on that one.

Words for numbers ("nine") are read as words: only numerals are checked.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .evaluate import evaluate, printed
from .fields import FIELDS, OUTCOME_TABLE
from .model import Store
from .parse import parse_policy
from .recent import Recent
from .scorers import COLUMNS, SCORER_NAMES
from .session import Session
from .shapes import Evaluation, FalseClaim, GuideCheck, Result, UncheckedStep

# A number as a learner reads it in a sentence: not part of a word or a record id like M10.
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")
# "30 of 40 words", "2 of 3": a count of a total.
PAIR = re.compile(r"(?<![\w.])(\d+) of (?:the )?(\d+)(?!\w|\.\d)")
# Where a clause ends: a stop that is not a decimal point, a semicolon or a colon.
CLAUSE_END = re.compile(r"[.;:](?!\d)")
# A record's own number named: "cosine 0.359", "similarity of 0.497", "(score 0.408)".
MEASURE_WORDS: dict[str, str] = {
    **{column.header: column.id for column in COLUMNS.values()},
    "score": "score",
    "recency": "recency",
    "relevance": "relevance",
}
RECORD_MEASURE = re.compile(
    r"\b(" + "|".join(re.escape(word) for word in MEASURE_WORDS) + r")(?: of| is| =)? \(?(\d+(?:\.\d+)?)(?!\w)"
)
# A record's age named: "(0.2 hours old)".
RECORD_AGE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) hours? old\b")
# What a pair counts, by the words around it: "coverage is 1 of 1", "12 of 40 words".
PAIR_BEFORE = {"coverage": re.compile(r"\bcoverage\b(?:\W+\w+){0,3}\W*$", re.IGNORECASE)}
PAIR_AFTER = {"words": re.compile(r"^ words?\b")}
# Views of one record only: the breakdown and its parts.
RECORD_VIEW = re.compile(r"(?<![\w-])(\S+?)['’]s (breakdown|parts)\b")
BREAKDOWN_PARTS = ("breakdown", "map")
# Words that turn an outcome named after a record into its opposite.
NEGATING = re.compile(r"\b(not|no|nothing|none|neither|nor|never|rather than|instead of)\b|n[’']t\b")
# An outcome's label, as a sentence says it of a record: "M1 is superseded".
OUTCOME_SAID = [(outcome, re.compile(r"\b" + re.escape(outcome.label.lower()) + r"\b")) for outcome in OUTCOME_TABLE]
# A scorer said to lead: "Hybrid now leads on every mean but MRR".
LEADS = re.compile(
    r"\b(" + "|".join(re.escape(name) for name in SCORER_NAMES.values()) + r") (?:now )?(?:leads|wins)\b"
    r"(?: on every mean but ([\w@]+))?"
)


# Says a claim is false: what it names, what the answer shows.
Say = Callable[[str, str], None]
# A step's answer: its result, and the scoreboard's evaluation where the step needs it.
StepAnswer = tuple[Result, Evaluation | None]
# An editor checks its draft again at each edit, most of them to the words of its guides,
# which no answer reads: the answers of the stores checked last are kept, by their content
# but their guides, each store's by its steps' policies.
STORES_KEPT = 2
ANSWERS_KEPT = 32
_KEPT: Recent[str, Recent[str, StepAnswer]] = Recent(STORES_KEPT)


@dataclass(frozen=True)
class Shown:
    """A number the page shows for an answer, and what it is."""

    value: float
    label: str


@dataclass(frozen=True)
class Step:
    """A guide's step, where it is in the store and what its answer holds."""

    guide: str
    number: int
    path: str
    text: str
    shows: dict[str, Any]


def kept_answers(data: dict[str, Any]) -> Recent[str, StepAnswer]:
    """The step answers kept for a store (its JSON object), by its content but its guides."""
    content = json.dumps({key: value for key, value in data.items() if key != "guides"}, sort_keys=True)
    return _KEPT.get(hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest(), lambda: Recent(ANSWERS_KEPT))


def check_guides(session: Session, answers: Recent[str, StepAnswer] | None = None) -> GuideCheck:
    """Each step of each guide of the session's store, checked against its answer: the
    false claims, the steps that could not be answered (the embedding's vectors missing)
    with why, how many steps and how many claims were checked. ``answers`` keeps the steps'
    answers between checks of the same store (``kept_answers``)."""
    claims: list[FalseClaim] = []
    unchecked: list[UncheckedStep] = []
    steps = checked = 0
    for g, guide in enumerate(session.store.guides):
        for s in range(len(guide["steps"])):
            steps += 1
            try:
                found, count = check_look_for(session, g, s, answers=answers)
            except InputError as error:
                why = str(error).removeprefix("vectors: ")
                unchecked.append({"guide": guide["id"], "step": s + 1, "path": _path(g, s), "why": why})
                continue
            claims += found
            checked += count
    return {"claims": claims, "unchecked": unchecked, "steps": steps, "checked": checked}


def check_look_for(
    session: Session, guide: int, step: int, text: str | None = None, *, answers: Recent[str, StepAnswer] | None = None
) -> tuple[list[FalseClaim], int]:
    """One step's "Look for" (or ``text`` in its place: a sentence being written) checked
    against the step's answer (taken from ``answers`` when kept there): its false claims
    and how many claims it makes. Raises InputError when the answer cannot be made (the
    embedding's vectors missing)."""
    data = session.store.guides[guide]["steps"][step]
    shows = data.get("shows") or {}
    said = Step(
        session.store.guides[guide]["id"],
        step + 1,
        _path(guide, step),
        data["look_for"] if text is None else text,
        shows,
    )
    # The scoreboard measures every question: only for a step that shows it or speaks of it.
    scoreboard = shows.get("part") == "scoreboard" or bool(LEADS.search(said.text))

    def answer() -> StepAnswer:
        policy = parse_policy(data.get("policy", {}), session.store)
        return session.retrieve(policy), evaluate(session, policy) if scoreboard else None

    key = json.dumps([data.get("policy", {}), scoreboard], sort_keys=True)
    result, evaluation = answer() if answers is None else answers.get(key, answer)
    return check_step(said, session.store, result, evaluation)


def _path(guide: int, step: int) -> str:
    return f"guides[{guide}].steps[{step}].look_for"


def check_step(step: Step, store: Store, result: Result, evaluation: Evaluation | None) -> tuple[list[FalseClaim], int]:
    """The false claims of one step's "Look for" against its answer, and how many it makes."""
    text = step.text
    ids = {record.id for record in store.records}
    found: list[FalseClaim] = []
    count = 0

    def false(named: str, shows: str) -> None:
        found.append(
            {
                "guide": step.guide,
                "step": step.number,
                "path": step.path,
                "named": named,
                "shows": shows,
                "text": f"{step.guide} step {step.number}: “{named}”: {shows}",
            }
        )

    named_ids = [m[0] for m in _id_shaped(store).finditer(text)]
    for rid in named_ids:
        count += 1
        if rid not in ids:
            false(rid, f"{rid} is not a record of this store ({_id_range(store)})")

    board = evaluation if step.shows.get("part") == "scoreboard" else None
    numbers = _numbers(result, board, store, [rid for rid in named_ids if rid in ids] + [step.shows.get("record")])
    written = _Written(numbers)
    pairs = _pairs(result, board)
    in_pairs: set[int] = set()
    for m in PAIR.finditer(text):
        count += 1
        in_pairs |= {m.start(1), m.start(2)}
        # "coverage … 1 of 1" and "12 of 40 words" say what they count: only that pair answers.
        kind = _pair_kind(text, m)
        among = [(p, label) for p, label in pairs if kind is None or label.endswith(kind)]
        if (int(m[1]), int(m[2])) not in {p for p, _ in among}:
            shown = ", ".join(dict.fromkeys(f"{label} {a} of {b}" for (a, b), label in among))
            named = {"coverage": f"coverage {m[1]} of {m[2]}", "words": f"{m[1]} of {m[2]} words"}
            false(named.get(kind or "", f"{m[1]} of {m[2]}"), f"the answer shows {shown}")

    rows = {row["id"]: row for row in result["records"]}
    in_measures: set[int] = set()
    for m in RECORD_MEASURE.finditer(text):
        record = _record_before(text, m.start(), ids)
        if record is None:
            continue
        count += 1
        in_measures.add(m.start(2))
        key = MEASURE_WORDS[m[1]]
        value = rows[record][key]  # type: ignore[literal-required]
        if value is None or not _matches(m[2], value):
            shows = (
                f"its answer gives {record} no {m[1]}"
                if value is None
                else f"{record}'s {m[1]} is {_shown(value, m[2])}"
            )
            false(f"{record}'s {m[1]} {m[2]}", shows)

    for m in RECORD_AGE.finditer(text):
        record = _record_before(text, m.start(), ids)
        if record is None:
            continue
        count += 1
        in_measures.add(m.start(1))
        # An age counts from the moment the step asks as of (0: now).
        age = rows[record]["age_hours"] - result["policy"]["as_of_hours"]
        if not _matches(m[1], age):
            false(f"{record} {m[0]}", f"{record} is {_shown(age, m[1])} hours old")

    for m in NUMBER.finditer(text):
        # A record whose id is a number is named, not counted: its id was checked above.
        if m.start() in in_pairs or m.start() in in_measures or m[0] in ids:
            continue
        count += 1
        if m[0] not in written:
            false(m[0], f"no number of its answer is {m[0]} (nearest: {_nearest(m[0], numbers)})")

    count += _check_outcomes(text, ids, result, false)
    count += _check_views(text, ids, step.shows, false)
    if evaluation is not None:
        count += _check_leads(text, evaluation, false)
    return found, count


def _pair_kind(text: str, m: re.Match[str]) -> str | None:
    """What a pair in the text says it counts ("coverage", "words"), if it says."""
    for kind, before in PAIR_BEFORE.items():
        if before.search(text[: m.start()]):
            return kind
    for kind, after in PAIR_AFTER.items():
        if after.match(text[m.end() :]):
            return kind
    return None


def _id_shaped(store: Store) -> re.Pattern[str]:
    """Words shaped like the store's record ids: each id itself, and its digits any digits
    (an id of digits only stays itself, or every number would be taken for an id)."""
    shapes = {
        re.sub(r"\d+", r"\\d+", re.escape(record.id)) if re.search(r"[^\W\d]", record.id) else re.escape(record.id)
        for record in store.records
    }
    return re.compile(r"(?<![\w-])(?:" + "|".join(sorted(shapes, key=lambda s: (-len(s), s))) + r")(?![\w-])")


def _id_range(store: Store) -> str:
    ids = [record.id for record in store.records]
    return f"its records are {ids[0]} to {ids[-1]}" if len(ids) > 2 else f"its records are {' and '.join(ids)}"


def _record_before(text: str, at: int, ids: set[str]) -> str | None:
    """The record named last before ``at`` in the same clause, if any."""
    start = max((m.end() for m in CLAUSE_END.finditer(text, 0, at)), default=0)
    named = [m[0] for m in re.finditer(r"[^\s,;:()'’]+", text[start:at]) if m[0] in ids]
    return named[-1] if named else None


def _matches(number: str, value: float) -> bool:
    """The number as written is the value, as the page writes it or rounded to fewer
    places; a whole number is the value exactly (2 is not 1.6)."""
    places = len(number.partition(".")[2])
    return (number if places else float(number)) in _written([value], places)


class _Written:
    """Which numbers, as a sentence writes them, are among an answer's: each answer's
    number written at a sentence's places once, when a sentence first uses them."""

    def __init__(self, numbers: list[Shown]) -> None:
        self.values = [number.value for number in numbers]
        self.at: dict[int, set[str] | set[float]] = {}

    def __contains__(self, number: str) -> bool:
        places = len(number.partition(".")[2])
        written = self.at.get(places)
        if written is None:
            written = self.at[places] = _written(self.values, places)
        return (number if places else float(number)) in written


def _written(values: list[float], places: int) -> set[str] | set[float]:
    """The values as a sentence may write them at ``places`` (rounded as Python and as the
    page's decimals round them, either sign); at none, the values themselves, exactly."""
    if not places:
        return {abs(value) for value in values}
    out: set[str] = set()
    for value in values:
        out |= {f"{abs(value):.{places}f}", printed(abs(value), places)}
    return out


def _shown(value: float, like: str) -> str:
    """A value as the page writes it, at the places of the number it is set against (at
    least 3 for a whole number set against a fraction)."""
    places = len(like.partition(".")[2])
    if not places and float(value).is_integer():
        return str(int(value))
    return f"{value:.{places or 3}f}"


def _nearest(number: str, numbers: list[Shown]) -> str:
    target = float(number)
    near = sorted(numbers, key=lambda n: (abs(abs(n.value) - target), n.label))
    said = dict.fromkeys(f"{_shown(n.value, number)} ({n.label})" for n in near)
    return ", ".join(list(said)[:3]) or "none"


def _numbers(result: Result, evaluation: Evaluation | None, store: Store, named: list[Any]) -> list[Shown]:
    """The numbers the page shows for an answer, each with what it is."""
    out: list[Shown] = []

    def add(value: Any, label: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return
        out.append(Shown(float(value), label))

    def each(obj: Any, label: str) -> None:
        """Every number of a per-term part (nested lists of near tokens included)."""
        if isinstance(obj, dict):
            for key, value in obj.items():
                each(value, f"{label} {key}")
        elif isinstance(obj, list):
            for item in obj:
                each(item, label)
        else:
            add(obj, label)

    policy = result["policy"]
    for field in FIELDS:
        # A field shown only with another field's value (the Generative Agents weights) is on
        # the page only then.
        other, value = field.shown_with or ("", "")
        shown = not field.shown_with or policy[other] in ((value,) if isinstance(value, str) else value)
        if field.kind in ("int", "number") and shown:
            add(policy[field.name], field.name)
    for row in result["records"]:
        rid = row["id"]
        for key in (
            "words",
            "importance",
            "age_hours",
            "cosine",
            "bm25",
            "similarity",
            "rrf",
            "relevance",
            "recency",
            "score",
        ):
            add(row[key], f"{rid}'s {key}")
        add(row["age_hours"] - policy["as_of_hours"], f"{rid}'s age as of the step's as-of")
        # A normalising blend's terms (the Generative Agents view): raw, normalised, weighted.
        for term, values in zip((result["weighing"] or {"terms": []})["terms"], row["weighed"] or [], strict=False):
            for number, stage in zip(values, ("raw", "normalised", "weighted"), strict=False):
                add(number, f"{rid}'s {stage} {term['term']}")
        add(row["rank"], f"{rid}'s rank")
        for scorer, place in row["ranks"].items():
            add(place, f"{rid}'s rank under {SCORER_NAMES.get(scorer, scorer)}")
        for part in row["terms"]:
            name = part.get("term") or part.get("token") or part.get("scorer")
            each({k: v for k, v in part.items() if k not in ("term", "token", "scorer")}, f"{rid}'s {name}")
        for said in NUMBER.findall(row["reason"]):
            add(float(said), f"{rid}'s reason")
    weighing = result["weighing"]
    if weighing is not None:
        add(weighing["over"], "records normalised over")
        for term in weighing["terms"]:
            for key in ("weight", "low", "high"):
                add(term[key], f"{term['term']}'s {key}")  # type: ignore[literal-required]
    question = result["question"]
    for key in ("best_bm25", "average_length", "norm"):
        add(question[key], f"the question's {key}")  # type: ignore[literal-required]
    for token in question["tokens"]:
        each({k: v for k, v in token.items() if k != "token"}, f"the question's {token['token']}")
    add(sum(token["count"] for token in question["tokens"]), "the question's pieces")
    for claim in question["reading"]:
        for part_value in claim["values"]:
            add(part_value, "the reading")
        for said in NUMBER.findall(claim["text"]):
            add(float(said), "the reading")
    for said in NUMBER.findall(question["text"]):
        add(float(said), "the question's text")
    add(result["words_used"], "words used")
    add(result["budget_words"] - result["words_used"], "words left")
    counts = result["counts"]
    for key, count in counts.items():
        add(count, f"records {key.replace('_', ' ')}")
    add(counts["stored"] - counts["in_scope"], "removed by policy")
    add(counts["in_scope"] - counts["ranked"], "not ranked")
    add(counts["ranked"] - counts["selected"], "not packed")
    for outcome in OUTCOME_TABLE:
        add(sum(1 for row in result["records"] if row["outcome"] == outcome.code), f"{outcome.label.lower()} records")
    add(result["coverage"]["found"], "coverage found")
    add(result["coverage"]["total"], "coverage total")
    texts = {record.id: record.text for record in store.records}
    for rid in dict.fromkeys(named):
        for said in NUMBER.findall(texts.get(rid, "")):
            add(float(said), f"{rid}'s text")
    if evaluation is not None:
        add(evaluation["k"], "k")
        add(len(evaluation["measured"]), "questions measured")
        for scorer, means in evaluation["means"].items():
            for measure, mean in (means or {}).items():
                add(mean, f"{SCORER_NAMES.get(scorer, scorer)}'s mean {evaluation['measure_names'][measure]}")
        for evaluated in evaluation["evaluation"]:
            where = f"{evaluated['question']} under {SCORER_NAMES.get(evaluated['scorer'], evaluated['scorer'])}"
            add(evaluated["first_rank"], f"{where}: first at")
            add(evaluated["hits"], f"{where}: hits")
            for measure, measured in (evaluated["measures"] or {}).items():
                add(measured, f"{where}: {measure}")
    return out


def _pairs(result: Result, evaluation: Evaluation | None) -> list[tuple[tuple[int, int], str]]:
    """The "N of M" pairs the page shows for an answer, each with what it counts."""
    counts = result["counts"]
    pairs = [
        ((result["coverage"]["found"], result["coverage"]["total"]), "coverage"),
        ((result["words_used"], result["budget_words"]), "the tray's words"),
        ((counts["selected"], result["policy"]["max_records"]), "records in the tray"),
        ((counts["selected"], counts["ranked"]), "ranked records in the tray"),
        ((counts["in_scope"], counts["stored"]), "records in scope"),
        ((counts["ranked"], counts["in_scope"]), "records ranked"),
    ]
    for row in result["records"]:
        for reason in PAIR.finditer(row["reason"]):
            kind = _pair_kind(row["reason"], reason)
            pairs.append(((int(reason[1]), int(reason[2])), f"{row['id']}'s reason" + (f" {kind}" if kind else "")))
    if evaluation is not None:
        for evaluated in evaluation["evaluation"]:
            pairs.append(((evaluated["hits"], len(evaluated["supporting"])), f"{evaluated['question']} hits"))
            pairs.append(((evaluated["hits"], evaluation["k"]), f"{evaluated['question']} hits of k"))
    return pairs


def _check_outcomes(text: str, ids: set[str], result: Result, false: Say) -> int:
    """A record said to have an outcome has it; with no record named before it in its
    clause, some record of the answer has it. Returns how many outcomes are named."""
    outcomes = {row["id"]: row["outcome"] for row in result["records"]}
    labels = {outcome.code: outcome.label for outcome in OUTCOME_TABLE}
    count = 0
    lower = text.lower()
    for outcome, said in OUTCOME_SAID:
        for m in said.finditer(lower):
            start = max((c.end() for c in CLAUSE_END.finditer(text, 0, m.start())), default=0)
            if NEGATING.search(text[start : m.start()].lower()):
                continue
            record = _record_before(text, m.start(), ids)
            count += 1
            if record is None:
                if outcome.code not in outcomes.values():
                    false(outcome.label.lower(), f"no record of its answer is {outcome.label.lower()}")
            elif outcomes[record] != outcome.code:
                false(
                    f"{record} {outcome.label.lower()}",
                    f"{record}'s outcome in its answer is {labels[outcomes[record]]}",
                )
    return count


def _check_views(text: str, ids: set[str], shows: dict[str, Any], false: Say) -> int:
    """A record's breakdown or parts named are the step's record's; a breakdown is named
    only where the step shows the breakdown or the map."""
    count = 0
    record, part = shows.get("record"), shows.get("part")
    for m in RECORD_VIEW.finditer(text):
        if m[1] in ids:
            count += 1
            if m[1] != record:
                false(f"{m[1]}'s {m[2]}", f"the step shows {record}'s breakdown, not {m[1]}'s")
    if re.search(r"\bbreakdown\b", text):
        count += 1
        if part not in BREAKDOWN_PARTS:
            false("breakdown", f"the step shows the {part}, not the breakdown")
    return count


def _check_leads(text: str, evaluation: Evaluation, false: Say) -> int:
    """A scorer said to lead names the measures it leads on; its mean is the highest,
    strictly, on each of them, and not on the one excepted."""
    count = 0
    by_name = {name: scorer for scorer, name in SCORER_NAMES.items()}
    headings = {heading: measure for measure, heading in evaluation["measure_names"].items()}
    means = evaluation["means"]
    for m in LEADS.finditer(text):
        count += 1
        name, exception = m[1], m[2]
        scorer = by_name[name]
        if not exception:
            false(m[0], "it names no measure it leads on (say “leads on every mean but …” or name the measure)")
            continue
        own = means.get(scorer)
        others = {s: v for s, v in means.items() if s != scorer and v is not None}
        if own is None:
            false(m[0], f"{name} measures nothing in its answer")
            continue
        excepted = headings.get(exception, exception)
        for measure, heading in evaluation["measure_names"].items():
            mine = own[measure]  # type: ignore[literal-required]
            best = max((v[measure] for v in others.values()), default=-math.inf)  # type: ignore[literal-required]
            leads = mine > best
            if measure == excepted and leads:
                false(m[0], f"{name} leads on {heading} too ({printed(mine)} against {printed(best)})")
            elif measure != excepted and not leads:
                false(m[0], f"{name} does not lead on {heading} ({printed(mine)} against {printed(best)})")
    return count

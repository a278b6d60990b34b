"""Command line: ``python -m engine [--fixtures FILE] [--vectors FILE] [policy flags] [--json]``.

Prints the records table, the tray and the coverage, or with ``--json`` the result
object the page receives. ``--check-guides`` checks every guided step's "Look for"
against its answer instead (engine/claims.py): one line per false claim and status 1, or
one line saying they all hold and status 0. Bad input exits with status 2 and one line naming it: a flag's
value by its flag and as it was typed, the engine's rule after it; a store with problems,
with one line for each (as ``build.py --store`` lists them). ``--help`` lists the
questions and tenants of the store ``--fixtures`` names.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

from .api import check_store, evaluate, load_vectors, run, sweep
from .evaluate import printed
from .fields import FIELDS, FIELDS_BY_NAME, POLICY_FIELDS, SWEPT, Field
from .parse import _show
from .scorers import BLENDS_BY_ID, COLUMNS, PACKINGS, SCORER_NAMES, SCORERS_BY_ID, SHARED_INDEX, Column
from .shapes import ErrorResult, Evaluation, Result, StoreCheck, Sweep
from .version import __version__

# Next to the package in a source checkout; an installed wheel has no store of its own.
DEFAULT_STORE = Path(__file__).resolve().parent.parent / "fixtures" / "store.json"


# A number as JSON writes one. What else is typed for a number flag reaches the engine as
# text and is refused by the field's rule, so "nan", "0x10" or "1_000" read as no number.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_SWITCH_VALUES = {"true": True, "false": False}


def _as_typed(text: str) -> str:
    """A value echoed as typed; an empty one as "", so a message does not end in "not "."""
    return text or '""'


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: the problem is what the user needs.
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


class _Switch(argparse.Action):
    """An on/off flag: ``--name`` turns it on, ``--no-name`` off, and ``--name=true`` or
    ``false`` (as page links spell it) sets it. Another value is kept as typed, for the
    engine to refuse by the field's rule."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        (flag,) = option_strings
        super().__init__([flag, "--no-" + flag[2:]], dest, nargs="?", metavar="true|false", **kwargs)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        if option != self.option_strings[0]:
            if values is not None:
                parser.error(f"{option} takes no value, not {_as_typed(values)}")
            values = "false"
        setattr(namespace, self.dest, "true" if values is None else values)


class _Formatter(argparse.HelpFormatter):
    def _format_action_invocation(self, action: argparse.Action) -> str:
        if isinstance(action, _Switch):
            # The value is optional and only the first spelling takes one.
            return f"{action.option_strings[0]} [true|false], {action.option_strings[1]}"
        return super()._format_action_invocation(action)


def build_parser(store: Any = None) -> argparse.ArgumentParser:
    """The parser; with a store (its JSON), the question and tenant flags offer its own ids."""
    parser = _Parser(
        prog="python -m engine",
        formatter_class=_Formatter,
        description="Score, scope and pack the memory records of a store against one question, "
        "explaining every exclusion. Flags left out take the defaults shown.",
    )
    parser.add_argument(
        "--fixtures",
        metavar="FILE",
        type=Path,
        default=None,
        help=f"store JSON file to read (default: {DEFAULT_STORE.parent.name}/{DEFAULT_STORE.name} in the source checkout)",
    )
    parser.add_argument(
        "--vectors",
        metavar="FILE",
        type=Path,
        default=None,
        help="static embedding vector file the embedding and hybrid scorers read "
        "(default: embedding/minilm-static.rwse in the source checkout)",
    )
    lists = _store_lists(store)
    for field in FIELDS:
        _add_flag(parser, field, lists)
    parser.add_argument(
        "--evaluate",
        action="store_true",
        help="evaluate instead: every question of the store under every scorer, with the other policy flags, "
        "measured against the questions' supporting records (recall, precision, MRR and nDCG at k = max records, "
        "coverage)",
    )
    parser.add_argument(
        "--sweep",
        choices=SWEPT,
        help="sweep instead: every scorer's mean nDCG at k over the store's questions as this field goes from 0 to 1 "
        "in steps of 0.1, with the other policy flags",
    )
    parser.add_argument(
        "--check-guides",
        action="store_true",
        help="check every guided step's Look for against that step's answer instead: one line per false claim "
        "(guide, step, what it names, what the answer shows) and exit status 1, 0 when all hold",
    )
    parser.add_argument("--json", action="store_true", help="print the result object as JSON instead of a table")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _store_lists(store: Any) -> dict[str, list[str]]:
    """A store's question and tenant ids, as far as its JSON gives them (the run checks the rest)."""
    lists: dict[str, list[str]] = {}
    if not isinstance(store, dict):
        return lists
    for name in ("questions", "tenants"):
        items = store.get(name)
        ids = [item["id"] for item in items if isinstance(item, dict)] if isinstance(items, list) else []
        if ids and all(isinstance(i, str) for i in ids):
            lists[name] = [str(i) for i in ids]
    return lists


def _add_flag(parser: argparse.ArgumentParser, field: Field, lists: dict[str, list[str]]) -> None:
    """One flag per row of the field table, spelled as the field with dashes. Every value is
    kept as typed, read as a number or a switch by ``policy_from`` and checked by the engine,
    so the rules and their words are the page's and the store file's too."""
    if field.kind == "bool":
        parser.add_argument(field.flag, action=_Switch, help=field.describe())
    elif field.kind == "choice":
        ids = lists.get(field.choices_from or "")
        help_text = field.describe() + (f": {', '.join(ids)}" if ids else "")
        parser.add_argument(
            field.flag, metavar=(field.choices_from[:-1] if field.choices_from else field.name).upper(), help=help_text
        )
    elif field.kind == "text":
        parser.add_argument(field.flag, metavar="TEXT", help=field.describe())
    else:
        parser.add_argument(field.flag, metavar=field.name.rsplit("_", 1)[-1].upper(), help=field.describe())


def policy_from(typed: dict[str, str]) -> dict[str, Any]:
    """The policy object for the typed flags' values (by field name): numbers and switches
    read as JSON reads them, everything else left as text."""
    policy: dict[str, Any] = {}
    for name, text in typed.items():
        kind = FIELDS_BY_NAME[name].kind
        value: Any = text
        if kind == "bool":
            value = _SWITCH_VALUES.get(text, text)
        elif kind in ("int", "number") and _NUMBER.fullmatch(text):
            try:
                value = int(text)
            except ValueError:  # a fraction or an exponent, or more digits than int() reads
                value = float(text)
        policy[name] = value
    return policy


def load_store(path: Path | None) -> Any:
    """Read the store file, turning a missing or malformed file into one clear line."""
    source = path or DEFAULT_STORE
    try:
        return json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        hint = "" if path else "; pass --fixtures FILE"
        raise ValueError(f"store file {source} does not exist{hint}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{source} is not valid JSON ({error})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read store file {source} ({error})") from None


def format_table(result: Result) -> str:
    """The records table, the tray and the coverage, as plain text, in the words and
    columns of the scorer in force (engine/scorers.py)."""
    policy = result["policy"]
    question = result["question"]
    scorer = SCORERS_BY_ID[policy["scorer"]]
    lines = [
        f"Question: {question['text']} ({'your own question' if question['own'] else question['id']})",
        *_labelled("Reading:", [claim["text"] for claim in question["reading"]]),
        # An own question is asked instead of the chosen one, which the policy line leaves out.
        "Policy:   "
        + " ".join(
            f"{name}={_flag_value(value)}"
            for name, value in policy.items()
            if not (name == "question" and question["own"])
        ),
        "",
        *_labelled("Score:", _score_lines(result)),
        "",
    ]
    columns = [COLUMNS[column] for column in scorer.columns]
    ranks = [(name, f"#{SCORER_NAMES[name]}") for name in scorer.ranks]
    head = (
        f"{'ID':<6} {'words':>5} "
        + "".join(f"{column.header:>{_width(column)}} " for column in columns)
        + f"{'score':>7} "
        + "".join(f"{title:>{max(4, len(title))}} " for _, title in ranks)
    )
    lines.append(head + " outcome and reason")
    reason_width = 56
    for row in result["records"]:
        cells = (
            f"{row['id']:<6} {row['words']:>5} "
            + "".join(f"{_number(row[column.id], column.places):>{_width(column)}} " for column in columns)
            + f"{_number(row['score'], 3):>7} "
            + "".join(f"{_rank(row['ranks'].get(name)):>{max(4, len(title))}} " for name, title in ranks)
            + " "
        )
        wrapped = textwrap.wrap(f"{row['outcome']}: {row['reason']}", reason_width) or [""]
        lines.append(cells + wrapped[0])
        lines.extend(" " * len(cells) + more for more in wrapped[1:])
    tray = ", ".join(result["selected"]) or "(empty)"
    coverage = result["coverage"]
    covered = (
        "not measured: your own question has no declared supporting facts"
        if question["own"]
        else f"{coverage['found']} of {coverage['total']} supporting ({', '.join(coverage['supporting']) or 'none declared'})"
    )
    lines += [
        "",
        f"Selected context: {tray}  ({result['words_used']} of {result['budget_words']} words)",
        f"Coverage: {covered}",
    ]
    return "\n".join(lines)


def format_evaluation(evaluation: Evaluation) -> str:
    """An evaluation as plain text: each scorer's means (the best per column marked *), the
    questions left out of them, then one row per question and scorer."""
    policy = evaluation["policy"]
    k = evaluation["k"]
    shown = " ".join(
        f"{name}={_flag_value(value)}"
        for name, value in policy.items()
        if name not in ("question", "question_text", "scorer")
    )
    measured = len(evaluation["measured"])
    note = own_question_note(evaluation)
    lines = [
        f"Evaluation: every question under every scorer, k = {k} (max_records)",
        f"Policy:     {shown}",
        *([note, ""] if note else []),
        "",
        f"Means over {measured} question{'' if measured == 1 else 's'} with supporting records "
        "(* best in its column, none where every scorer ties)",
        f"{'Scorer':<10}" + "".join(f"{heading:>13}" for heading in evaluation["measure_names"].values()),
    ]
    for scorer, means in evaluation["means"].items():
        cells = [
            "–" if means is None else f"{printed(means[name])}{'*' if scorer in evaluation['best'][name] else ' '}"  # type: ignore[literal-required]
            for name in evaluation["measure_names"]
        ]
        lines.append(f"{SCORER_NAMES[scorer]:<10}" + "".join(f"{cell:>13}" for cell in cells))
    for skipped in evaluation["unmeasured"]:
        lines.append(f"Not measured: {skipped['question']} {skipped['reason']}")
    scope = evaluation["out_of_scope"]
    if scope is not None:
        lines += textwrap.wrap(scope["why"], 100, initial_indent="Out of scope: ", subsequent_indent=" " * 14)
        if scope["include"]:
            lines.append("To include them: " + " ".join(_flag(name, value) for name, value in scope["include"].items()))
    width = max((len(row["question"]) for row in evaluation["evaluation"]), default=8)
    lines += [
        "",
        f"{'Question':<{width}}  {'Scorer':<9} {'first':>5} {'hits':>6}  ranking (tray in brackets); supporting",
    ]
    for row in evaluation["evaluation"]:
        tray = set(row["tray"])
        ranking = " ".join(f"[{rid}]" if rid in tray else rid for rid in row["ranking"]) or "(none ranked)"
        first = "–" if row["first_rank"] is None else str(row["first_rank"])
        hits = "–" if row["measures"] is None else f"{row['hits']}/{k}"
        supporting = ", ".join(row["supporting"]) or "none"
        lines.append(
            f"{row['question']:<{width}}  {SCORER_NAMES[row['scorer']]:<9} {first:>5} {hits:>6}  {ranking}; {supporting}"
        )
    return "\n".join(lines)


def format_sweep(sweep: Sweep) -> str:
    """A sweep as plain text: a row per value of the field swept, each scorer's mean nDCG at k
    ("–" where nothing is measured), the value in force marked."""
    field = FIELDS_BY_NAME[sweep["field"]]
    scorers = list(sweep["points"][0]["ndcg"]) if sweep["points"] else []
    lines = [
        f"Sweep: mean nDCG@{sweep['k']} over the store's questions as {field.label} ({field.flag}) goes from 0 to 1",
        f"{field.name:<14}" + "".join(f"{SCORER_NAMES[s]:>11}" for s in scorers),
    ]
    for point in sweep["points"]:
        now = " (set now)" if point["value"] == sweep["policy"][sweep["field"]] else ""
        cells = "".join(f"{'–' if v is None else printed(v):>11}" for v in point["ndcg"].values())
        lines.append(f"{point['value']:<14g}{cells}{now}")
    return "\n".join(lines)


def own_question_note(evaluation: Evaluation) -> str | None:
    """What an evaluation did with the own question the policy holds, if any: nothing, as
    engine/evaluate.py sets it aside."""
    text = evaluation["policy"].get("question_text")
    if not text:
        return None
    return (
        f"Not evaluated: your own question (--question-text {_flag_value(text)}): it has no supporting "
        "records to measure against, so the store's questions are measured instead."
    )


def _score_lines(result: Result) -> list[str]:
    """How the score in force is made, from the scorer table and this answer's numbers."""
    policy = result["policy"]
    question = result["question"]
    scorer = SCORERS_BY_ID[policy["scorer"]]
    lines = [
        f"{scorer.name}: {BLENDS_BY_ID[policy['blend']].formula.format(relevance=scorer.relevance)}",
        scorer.formula,
    ]
    lines.append(f"{scorer.relevance} = {scorer.normaliser}")
    # What the share of the exact-word scorer in force divides by (BM25's best, under BM25 and hybrid).
    divisor = SCORERS_BY_ID[scorer.words].divisor if scorer.words else None
    if divisor is not None:
        lines.append(divisor(question, policy["tenant"]))
    if scorer.words:
        lines.append(SHARED_INDEX)
    named = ", ".join(f"#{SCORER_NAMES[name]} is the rank under {SCORER_NAMES[name]}" for name in scorer.ranks)
    lines.append(f"{named}; {scorer.name} ranks and packs")
    lines += weighing_lines(result)
    packing = next(row for row in PACKINGS if row.chosen(_Policy(policy)))
    lines.append(f"Packing: {packing.label}" + (f", λ = {policy['mmr_lambda']:g}" if packing.id == "mmr" else ""))
    return lines


class _Policy:
    """A result's policy object read by attribute, as the packing table's rows read a policy."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


def weighing_lines(result: Result) -> list[str]:
    """Under a blend that normalises: each term, the bounds it was normalised between over
    the ranked records, and its weight; then each ranked record's terms raw, normalised and
    weighted, and its score."""
    weighing = result["weighing"]
    if weighing is None:
        return []
    over = weighing["over"]
    lines = []
    for term in weighing["terms"]:
        if term["low"] is None or term["high"] is None:
            lines.append(f"{term['term']} = {term['raw']}: no record reaches ranking, so nothing is normalised")
            continue
        same = term["low"] == term["high"]
        lines.append(
            f"{term['term']} = {term['raw']}, weight {term['weight']:g}; "
            + (
                f"{_four(term['low'])} for {_all_ranked(over)}, so each is normalised to 0.5"
                if same
                else f"normalised between {_four(term['low'])} (to 0) and {_four(term['high'])} (to 1) over the {over} ranked record{'s' if over != 1 else ''}"
            )
        )
    for place, rid in enumerate(result["ranked"], start=1):
        row = next(r for r in result["records"] if r["id"] == rid)
        weighed = row["weighed"] or []
        parts = "; ".join(
            f"{term['term']} {_four(raw)} → {_four(normalised)} × {term['weight']:g} = {_four(weighted)}"
            for term, (raw, normalised, weighted) in zip(weighing["terms"], weighed, strict=True)
        )
        lines.append(f"{rid} (ranked {place}): {parts}; score {_four(row['score'] or 0.0)}")
    return lines


def _all_ranked(over: int) -> str:
    """ "all 3 ranked records", or "the only ranked record"."""
    return "the only ranked record" if over == 1 else f"all {over} ranked records"


def _four(value: float) -> str:
    return f"{value:.4f}"


def _labelled(label: str, texts: list[str]) -> list[str]:
    """Lines wrapped under a label, each text starting a line of its own."""
    lines: list[str] = []
    for text in texts:
        for line in textwrap.wrap(text, 90, break_on_hyphens=False) or [""]:
            lines.append(f"{label if not lines else '':<10}{line}")
    return lines


def _width(column: Column) -> int:
    return max(len(column.header), 7)


def _number(value: float | None, places: int) -> str:
    return "–" if value is None else f"{value:.{places}f}"


def _rank(place: int | None) -> str:
    return str(place) if place else "–"


def _flag(name: str, value: Any) -> str:
    """The command-line flag that sets a policy field to ``value``."""
    flag = FIELDS_BY_NAME[name].flag
    if isinstance(value, bool):
        return flag if value else f"--no-{flag[2:]}"
    return f"{flag} {_flag_value(value)}"


def _flag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (not value or any(c.isspace() or c == '"' for c in value)):
        # Quoted as JSON, so where a text ends (or that it is empty) is plain.
        return json.dumps(value, ensure_ascii=False)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _store_named(argv: list[str] | None) -> Any:
    """The store --fixtures names (or the default one), read for --help's choices; None if unreadable."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--fixtures", type=Path, default=None)
    try:
        return load_store(early.parse_known_args(argv)[0].fixtures)
    except (ValueError, SystemExit):
        return None


def error_lines(error: Any, source: Path, typed: dict[str, str], policy: dict[str, Any], vectors: bool) -> str:
    """An error result as the command line says it: one line, or one line per problem of a
    store (each with its path in the file) or of several flags. A policy value's problem
    names its flag and echoes the value as it was typed (2, not 2.0); the vector file's
    names --vectors when that was typed."""
    lines = []
    for problem in error["problems"]:
        path, message = problem["path"], problem["message"]
        name = path.removeprefix("policy.")
        if error["name"] == "InvalidPolicy" and name in typed:
            # The engine shows the value it was given as the last words; say it as typed.
            tail = f", not {_show(policy[name])}"
            if message.endswith(tail):
                message = message[: -len(tail)] + f", not {_as_typed(typed[name])}"
            path = FIELDS_BY_NAME[name].flag
        elif path == "vectors":
            path = "--vectors" if vectors else ""
        lines.append(f"{path}: {message}" if path else message)
    if error["name"] == "InvalidStore":
        head = f"{source} is not a valid store:"
    elif len(lines) > 1:
        head = "these flags are not valid:"
    else:
        return f"python -m engine: error: {lines[0]}"
    return "\n".join([f"python -m engine: error: {head}", *(f"  {line}" for line in lines)])


def main(argv: list[str] | None = None) -> int:
    args = build_parser(_store_named(argv)).parse_args(argv)
    typed = {name: getattr(args, name) for name in POLICY_FIELDS if getattr(args, name) is not None}
    policy = policy_from(typed)
    try:
        store = load_store(args.fixtures)
    except ValueError as error:
        print(f"python -m engine: error: {error}", file=sys.stderr)
        return 2
    if args.check_guides:
        if typed or args.evaluate:
            first = FIELDS_BY_NAME[next(iter(typed))].flag if typed else "--evaluate"
            print(f"python -m engine: error: --check-guides runs each step's own policy, not {first}", file=sys.stderr)
            return 2
        checked = check_store(store, vectors=lambda: load_vectors(args.vectors))
        return _report_check(checked, args.fixtures or DEFAULT_STORE, args.json)
    request = {"store": store, "policy": policy}
    if args.sweep:
        result: Any = sweep(request, args.sweep, vectors=args.vectors)
    elif args.evaluate:
        result = evaluate(request, vectors=args.vectors)
    else:
        result = run(request, vectors=args.vectors)
    if "error" in result:
        refused = cast(ErrorResult, result)["error"]
        source = args.fixtures or DEFAULT_STORE
        print(error_lines(refused, source, typed, policy, args.vectors is not None), file=sys.stderr)
        return 2
    if args.json:
        text = json.dumps(result, ensure_ascii=False, indent=2)
        note = own_question_note(cast(Evaluation, result)) if args.evaluate and not args.sweep else None
        if note:
            # Beside the object, not in it: the page and scripts read the same object.
            print(f"python -m engine: note: {note}", file=sys.stderr)
    elif args.sweep:
        text = format_sweep(cast(Sweep, result))
    elif args.evaluate:
        text = format_evaluation(cast(Evaluation, result))
    else:
        text = format_table(cast(Result, result))
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # The reader stopped early (| head): what it read is all it wanted. Python would
        # report the pipe again when it flushes at exit, so stdout goes nowhere from here.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _report_check(checked: StoreCheck, source: Path, as_json: bool) -> int:
    """A store's guided claims as the command line says them: a store with problems as
    ``--fixtures`` says it (status 2); one line per false claim (status 1) and per step left
    unchecked (status 2); else one line saying how many claims hold (status 0)."""
    if checked["problems"]:
        error: ErrorResult = {"error": {"name": "InvalidStore", "message": "", "problems": checked["problems"]}}
        print(error_lines(error["error"], source, {}, {}, False), file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(checked, ensure_ascii=False, indent=2))
    else:
        for claim in checked["claims"]:
            print(claim["text"])
    for step in checked["unchecked"]:
        print(
            f"python -m engine: error: {step['guide']} step {step['step']} not checked: {step['why']}", file=sys.stderr
        )
    if checked["unchecked"]:
        return 2
    steps = f"{checked['steps']} step{'' if checked['steps'] == 1 else 's'}"
    if checked["claims"]:
        false = len(checked["claims"])
        print(f"{false} of {checked['checked']} claims in {steps} are false", file=sys.stderr)
        return 1
    if not as_json:
        print(f"all {checked['checked']} claims in {steps} hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())

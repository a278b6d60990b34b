"""Command line: ``python -m engine [--fixtures FILE] [--vectors FILE] [policy flags] [--json]``.

Prints the records table, the tray and the coverage, or with ``--json`` the result
object the page receives. Bad input exits with status 2 and one line naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any, NoReturn, cast

from . import __version__
from .api import run
from .fields import FIELDS, OTHER_SCORER, POLICY_FIELDS, SCORER_NAMES, Field
from .shapes import ErrorResult, Result

# Next to the package in a source checkout; an installed wheel has no store of its own.
DEFAULT_STORE = Path(__file__).resolve().parent.parent / "fixtures" / "store.json"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: the problem is what the user needs.
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m engine",
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
    for field in FIELDS:
        _add_flag(parser, field)
    parser.add_argument("--json", action="store_true", help="print the result object as JSON instead of a table")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _add_flag(parser: argparse.ArgumentParser, field: Field) -> None:
    """One flag per row of the field table, spelled as the field with dashes."""
    if field.kind == "bool":
        parser.add_argument(field.flag, action=argparse.BooleanOptionalAction, default=None, help=field.describe())
    elif field.kind == "choice":
        choices = field.values if field.choices else None
        parser.add_argument(field.flag, choices=choices, help=field.describe())
    elif field.kind == "text":
        parser.add_argument(field.flag, metavar="TEXT", help=field.describe())
    else:
        kind = int if field.kind == "int" else float
        metavar = field.name.rsplit("_", 1)[-1].upper()
        parser.add_argument(field.flag, type=kind, metavar=metavar, help=field.describe())


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
    """The records table, the tray and the coverage, as plain text."""
    policy = result["policy"]
    question = result["question"]
    read = [", ".join(question["terms"]), *(f"{term}: in no record, ignored" for term in question["dropped_terms"])]
    lines = [
        f"Question: {question['text']} ({'your own question' if question['own'] else question['id']})",
        f"Read as:  {'; '.join(part for part in read if part) or 'no terms'}"
        + (f" (stop words removed: {', '.join(question['stop_words'])})" if question["stop_words"] else ""),
        "Policy:   " + " ".join(f"{name}={_flag_value(value)}" for name, value in policy.items()),
        "",
        f"Score:    {SCORER_NAMES[policy['scorer']]} blended with recency; "
        f"rank ({SCORER_NAMES[OTHER_SCORER[policy['scorer']]]}) is the rank the other scorer gives",
        "",
        f"{'ID':<6} {'words':>5} {'cosine':>7} {'BM25':>7} {'score':>7} {'rank':>4} {'(other)':>7}  outcome and reason",
    ]
    reason_width = 56
    for row in result["records"]:
        head = (
            f"{row['id']:<6} {row['words']:>5} {row['cosine']:>7.3f} {row['bm25']:>7.3f} {row['score']:>7.3f} "
            f"{_rank(row['rank']):>4} {'(' + _rank(row['other_rank']) + ')' if row['other_rank'] else '':>7}  "
        )
        wrapped = textwrap.wrap(f"{row['outcome']}: {row['reason']}", reason_width) or [""]
        lines.append(head + wrapped[0])
        lines.extend(" " * len(head) + more for more in wrapped[1:])
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


def _rank(place: int | None) -> str:
    return str(place) if place else "–"


def _flag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (not value or any(c.isspace() or c == '"' for c in value)):
        # Quoted as JSON, so where a text ends (or that it is empty) is plain.
        return json.dumps(value, ensure_ascii=False)
    return f"{value:g}" if isinstance(value, float) else str(value)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    policy = {name: getattr(args, name) for name in POLICY_FIELDS if getattr(args, name) is not None}
    try:
        store = load_store(args.fixtures)
    except ValueError as error:
        print(f"python -m engine: error: {error}", file=sys.stderr)
        return 2
    result = run({"store": store, "policy": policy}, vectors=args.vectors)
    if "error" in result:
        print(f"python -m engine: error: {cast(ErrorResult, result)['error']['message']}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The README's scorer table and the vectors' size, generated from engine/scorers.py and the
vector file, between two marker lines (`python build.py --write-tables` rewrites them)."""

from __future__ import annotations

from engine.scorers import COLUMNS, SCORER_NAMES, SCORERS

from .paths import ROOT, VECTORS
from .vectors import read_header

README = ROOT / "README.md"
START = "<!-- scorers: generated from engine/scorers.py by `python build.py --write-tables`; do not edit -->"
END = "<!-- end of the generated scorer table -->"

_READS = {"words": "words after stop words", "pieces": "word pieces", "both": "words (BM25) and word pieces"}


def vectors_size() -> str:
    """The vectors' size as the page's download line states it (megabytes, one decimal)."""
    data = VECTORS.read_bytes()
    header = read_header(data)
    return (
        f"`{VECTORS.relative_to(ROOT).as_posix()}`, {len(data) / 1e6:.1f} MB "
        f"({header['tokens']:,} word pieces × {header['dims']} dimensions)"
    )


def scorer_block() -> str:
    """The block between the markers: one row per scorer, then the vectors' size."""
    rows = [
        "| `scorer` | name | reads | shows | blended with recency |",
        "|---|---|---|---|---|",
        *(
            f"| `{s.id}` | {s.label} | {_READS[s.reads]} | "
            f"{', '.join(COLUMNS[c].header for c in s.columns)}; ranks under {', '.join(SCORER_NAMES[r] for r in s.ranks)} | "
            f"{s.relevance} = {s.normaliser} |"
            for s in SCORERS
        ),
        "",
        f"The embedding and hybrid scorers read {vectors_size()}, downloaded when first picked.",
    ]
    return "\n".join([START, *rows, END])


def with_scorer_block(text: str) -> str:
    """The README's text with its generated block made afresh."""
    start, end = text.index(START), text.index(END) + len(END)
    return text[:start] + scorer_block() + text[end:]


def write_readme() -> None:
    README.write_text(with_scorer_block(README.read_text(encoding="utf-8")), encoding="utf-8")

"""Reading the store a site is built around: refused, with every problem, when it has a
problem of its format or a guided claim its answers contradict."""

from __future__ import annotations

from pathlib import Path

from .assemble import problem_lines, refusals
from .files import BuildError


def load_store(path: Path) -> str:
    """A store's text, once accepted by the one gate every build passes (assemble.refusals),
    the page's downloads included; refused with every problem, one line each."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildError(f"store file {path} does not exist") from None
    problems = refusals(text)
    if problems:
        lines = "\n".join(f"  {line}" for line in problem_lines(problems))
        raise BuildError(f"{path} cannot be built:\n{lines}")
    return text

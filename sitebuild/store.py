"""The store a site is built around: read, and refused with the engine's own messages, for a
problem of its format or a guided claim its answer contradicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.api import check_store

from .files import BuildError


def load_store(path: Path) -> Any:
    """Read and validate a store, refusing it with the engine's own messages."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"store file {path} does not exist") from None
    except json.JSONDecodeError as error:
        raise BuildError(f"{path} is not valid JSON ({error})") from None
    checked = check_store(data)
    if checked["problems"]:
        lines = "\n".join(f"  {p['path']}: {p['message']}" for p in checked["problems"])
        raise BuildError(f"{path} is not a valid store:\n{lines}")
    # The lines python -m engine --check-guides prints: a guide must not teach what its answer contradicts.
    false = [claim["text"] for claim in checked["claims"]]
    false += [f"{step['guide']} step {step['step']} not checked: {step['why']}" for step in checked["unchecked"]]
    if false:
        lines = "\n".join(f"  {line}" for line in false)
        raise BuildError(f"{path} has guided claims its answers contradict:\n{lines}")
    return data

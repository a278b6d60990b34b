"""The store a site is built around: read, and refused with the engine's own messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine

from .files import BuildError


def load_store(path: Path) -> Any:
    """Read and validate a store, refusing it with the engine's own messages."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"store file {path} does not exist") from None
    except json.JSONDecodeError as error:
        raise BuildError(f"{path} is not valid JSON ({error})") from None
    try:
        engine.parse_store(data)
    except engine.InputError as error:
        lines = "\n".join(f"  {p}: {m}" for p, m in error.problems)
        raise BuildError(f"{path} is not a valid store:\n{lines}") from None
    return data

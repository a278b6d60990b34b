"""Retrieval Workbench engine: score, scope and pack memory records, explaining each.

Standard library only, so the same code runs in CPython and in Pyodide.
"""

from __future__ import annotations

from .api import (
    Opening,
    check_store_json,
    import_everything,
    load_embedding,
    load_vectors,
    open_json,
    run,
    run_json,
)
from .errors import InputError
from .fields import DEFAULT_POLICY, FIELDS, OUTCOME_TABLE, OUTCOMES, POLICY_FIELDS
from .model import STORE_CHOICES
from .parse import parse_policy, parse_store
from .session import Session
from .text import STOP_WORDS, tokenize, word_count
from .version import __version__

__all__ = [
    "DEFAULT_POLICY",
    "FIELDS",
    "OUTCOMES",
    "OUTCOME_TABLE",
    "POLICY_FIELDS",
    "STOP_WORDS",
    "STORE_CHOICES",
    "InputError",
    "Opening",
    "Session",
    "__version__",
    "check_store_json",
    "import_everything",
    "load_embedding",
    "load_vectors",
    "open_json",
    "parse_policy",
    "parse_store",
    "run",
    "run_json",
    "tokenize",
    "word_count",
]

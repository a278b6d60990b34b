"""Retrieval Workbench engine: score, scope and pack memory records, explaining each.

Standard library only, so the same code runs in CPython and in Pyodide.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .api import run, run_json
from .model import DEFAULT_POLICY, OUTCOMES, POLICY_FIELDS, STORE_CHOICES, InputError, parse_policy, parse_store
from .text import STOP_WORDS, tokenize, word_count

__all__ = [
    "DEFAULT_POLICY",
    "OUTCOMES",
    "POLICY_FIELDS",
    "STOP_WORDS",
    "STORE_CHOICES",
    "InputError",
    "__version__",
    "parse_policy",
    "parse_store",
    "run",
    "run_json",
    "tokenize",
    "word_count",
]

"""Support shared by tests/ and bench/: Chromium, local servers, the page as tests drive and
time it, fixtures, generated data, the test LMSs, the CPython comparator and the engine under
Node Pyodide (pyodide_runner.mjs). It is not shipped: the wheel holds only engine/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

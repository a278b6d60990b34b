"""Support shared by tests/ and bench/: Chromium, local servers, generated data and the
CPython comparator. It is not shipped: the wheel holds only engine/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

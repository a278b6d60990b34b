"""Fixtures for every tier: a fresh copy of the default store, and the site built once per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.fixtures import FIXTURES, load_json


@pytest.fixture
def store() -> dict[str, Any]:
    """A fresh copy of the default store, safe to modify."""
    store: dict[str, Any] = load_json(FIXTURES / "store.json")
    return store


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as build.py writes it, built once per test session: the artifact we ship."""
    import build

    out = tmp_path_factory.mktemp("site") / "dist"
    build.build(out=out, quiet=True)
    return out

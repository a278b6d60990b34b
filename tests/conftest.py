"""Fixtures for every tier: a fresh copy of the default store, the site built once per
session, and the run's options for a busy machine (--busy, --cpu-throttle)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.fixtures import FIXTURES, load_json
from harness.load import busy_cores, busy_count


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("load", "a busy machine, as a slow computer or a shared CI runner is (harness/load.py)")
    group.addoption(
        "--busy",
        action="store_true",
        help="keep every core busy for the whole run: one spinning process per core, plus one",
    )
    group.addoption(
        "--cpu-throttle",
        type=float,
        default=1.0,
        metavar="RATE",
        help="run every page's main thread RATE times slower (Chromium's CPU throttling)",
    )
    group.addoption(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each selected test N times, to count how often a test that may race fails",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    runs = metafunc.config.getoption("--repeat")
    if runs > 1:
        metafunc.fixturenames.append("repeat_run")
        metafunc.parametrize("repeat_run", [f"run{i + 1}" for i in range(runs)], indirect=True)


@pytest.fixture
def repeat_run(request: pytest.FixtureRequest) -> str:
    """Which of the --repeat runs this is (the parameter that tells the runs apart)."""
    run: str = request.param
    return run


@pytest.fixture(scope="session", autouse=True)
def busy_machine(request: pytest.FixtureRequest) -> Iterator[None]:
    """With --busy, every test (and the site's build) runs with the processor taken."""
    if not request.config.getoption("--busy"):
        yield
        return
    with busy_cores(busy_count()):
        yield


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

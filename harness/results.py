"""The engine's answer as a test expects it: the full result of a request meant to be
valid, or the error of one meant to be refused; either way the other fails the test."""

from __future__ import annotations

from typing import Any, cast

import engine
from engine.shapes import ErrorBody, ErrorResult, Result


def result_of(request: Any) -> Result:
    """engine.run's result for ``request``; its error, if it gives one, fails the test."""
    answer = engine.run(request)
    assert "error" not in answer, answer
    return answer


def error_of(request: Any) -> ErrorBody:
    """The error engine.run gives for ``request``; a result instead fails the test."""
    answer = engine.run(request)
    assert "error" in answer, f"the request was answered: {request}"
    return cast(ErrorResult, answer)["error"]

"""Bad input as an exception, and every failure as the error object the entry points return."""

from __future__ import annotations

from .shapes import ErrorResult


class InputError(ValueError):
    """Bad input, with every problem found as ``(path, message)`` pairs."""

    def __init__(self, name: str, problems: list[tuple[str, str]]) -> None:
        self.name = name
        self.problems = problems
        first_path, first_message = problems[0]
        summary = f"{first_path}: {first_message}" if first_path else first_message
        if len(problems) > 1:
            summary += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
        super().__init__(summary)


def error_result(error: InputError) -> ErrorResult:
    return {
        "error": {
            "name": error.name,
            "message": str(error),
            "problems": [{"path": path, "message": message} for path, message in error.problems],
        }
    }


def internal_error(error: BaseException) -> ErrorResult:
    """A bug or a resource limit: still an answer, with enough to report it."""
    message = f"the engine failed unexpectedly ({type(error).__name__}: {error})"
    return {"error": {"name": "InternalError", "message": message, "problems": []}}

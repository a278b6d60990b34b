"""The engine's entry points, each total: bad input returns an error object naming the
path and the rule, never a traceback.

- ``run(request)`` / ``run_json(text)``: one request ``{"store", "policy"}`` in, the full
  result out (the command line and the CPython tests).
- ``open_json(store_text)``: the page's worker opens a store once and keeps the
  ``Session`` it gets; then ``session.answer_json(policy_text)`` answers each policy with
  the slim answer. Only JSON text crosses into JavaScript.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .errors import InputError, error_result, internal_error
from .parse import parse_store
from .session import Session, dumps
from .shapes import ErrorResult, Result


def _check_request(request: Any) -> None:
    if not isinstance(request, dict):
        raise InputError("InvalidRequest", [("request", "must be an object with store and policy")])
    unknown = sorted(set(request) - {"store", "policy"})
    if unknown:
        raise InputError("InvalidRequest", [(f"request.{unknown[0]}", "is not a known field (allowed: store, policy)")])
    if "store" not in request:
        raise InputError("InvalidRequest", [("request.store", "is missing")])


def run(request: Any) -> Result | ErrorResult:
    """Run one request ``{"store": <store>, "policy": <policy>}``; never raises on bad input."""
    try:
        _check_request(request)
        return Session(parse_store(request["store"])).run(request.get("policy"))
    except InputError as error:
        return error_result(error)
    except Exception as error:  # the page must get an answer, never a hang
        return internal_error(error)


def run_json(text: str) -> str:
    """``run`` with JSON text on both sides."""
    try:
        request = json.loads(text)
    except (json.JSONDecodeError, TypeError) as error:
        return dumps(error_result(InputError("InvalidJSON", [("request", f"is not valid JSON ({error})")])))
    except RecursionError as error:  # absurdly nested input
        return dumps(internal_error(error))
    return dumps(run(request))


@dataclass(frozen=True)
class Opening:
    """A store opened from JSON text: the session (None when refused) and the reply for
    the page, ``Opened`` or an error object, as JSON text."""

    session: Session | None
    reply: str


def open_json(store_text: str) -> Opening:
    """Parse and validate a store given as JSON text, and open a session on it."""
    try:
        name = hashlib.sha256(store_text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        session = Session(parse_store(json.loads(store_text)), name=name)
    except InputError as error:
        return Opening(None, dumps(error_result(error)))
    except (json.JSONDecodeError, TypeError) as error:
        return Opening(
            None, dumps(error_result(InputError("InvalidJSON", [("store", f"is not valid JSON ({error})")])))
        )
    except Exception as error:  # RecursionError on absurd nesting, a resource limit
        return Opening(None, dumps(internal_error(error)))
    return Opening(session, dumps(session.opened()))

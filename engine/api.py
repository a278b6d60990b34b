"""The engine's entry points, each total: bad input returns an error object naming the
path and the rule, never a traceback.

- ``run(request)`` / ``run_json(text)``: one request ``{"store", "policy"}`` in, the full
  result out (the command line and the CPython tests).
- ``open_json(store_text)``: the page's worker opens a store once and keeps the
  ``Session`` it gets; then ``session.answer_json(policy_text)`` answers each policy with
  the slim answer and, apart, its per-term parts. Only JSON text crosses into JavaScript.
- ``evaluate(request)``: every question of the store under every scorer, measured
  (engine/evaluate.py); the worker calls ``evaluate.evaluate_json`` on its session.
- ``check_store_json(store_text)``: the page's editor checks a draft store: the parser's
  problems, and when there are none every guided step's "Look for" against its answer
  (engine/claims.py); ``check_store(data)`` is the same for the command line and the build.
- ``load_embedding(path)``: the worker, having written the fetched vector file into
  Pyodide's file system, loads it; sessions opened by ``open_json`` read the embedding
  scorers' vectors from the file loaded last (when none was, from the repository's
  ``embedding/minilm-static.rwse``, as ``run`` does).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError, error_result, internal_error
from .parse import parse_policy, parse_store
from .session import Session, dumps
from .shapes import ErrorResult, Evaluation, Problem, Result, StoreCheck, Sweep, VectorsLoaded

if TYPE_CHECKING:
    from .embedding import StaticEmbedding  # imported with the vectors (session.py)

# Vector files read so far, by path: each is read once however many requests use it.
_VECTORS: dict[str, StaticEmbedding] = {}
# The file load_embedding read last: what sessions opened by open_json use.
_LOADED: list[StaticEmbedding] = []


def load_vectors(path: str | Path | None = None) -> StaticEmbedding:
    """The static embedding in a vector file (default: the repository's
    ``embedding/minilm-static.rwse``), read once per path; a missing or unreadable file is
    an InputError naming it in one line."""
    from .embedding import StaticEmbedding, VectorFileError, default_vector_path

    source = Path(path) if path is not None else default_vector_path()
    key = str(source)
    embedding = _VECTORS.get(key)
    if embedding is None:
        try:
            embedding = _VECTORS[key] = StaticEmbedding.from_path(source)
        except FileNotFoundError:
            hint = (
                "" if path is not None else " (build it with python tools/distill_embedding.py, or pass --vectors FILE)"
            )
            message = f"the vector file {source} does not exist{hint}"
            raise InputError("MissingVectors", [("vectors", message)]) from None
        except VectorFileError as error:
            raise InputError("InvalidVectors", [("vectors", str(error))]) from None
        except OSError as error:
            raise InputError(
                "InvalidVectors", [("vectors", f"cannot read the vector file {source} ({error})")]
            ) from None
    return embedding


def import_everything() -> None:
    """Import the modules the engine otherwise imports when an answer first needs them (the
    embedding's), so that a memory snapshot of Python holds them: a Python restored from
    one has no files to import them from."""
    import importlib

    # semantic imports embedding, floats, packing, plane and wordpiece; fusion is hybrid's
    # reading; claims is the editor's check of a draft's guided claims.
    from . import claims, evaluate, fusion, semantic  # noqa: F401
    from .scorers import BLENDS, PACKINGS, SCORERS

    # And every module a scorer, a blend, a packing rule or a likeness names, which the
    # session imports by name when a policy first needs it.
    named = {s.module for s in SCORERS} | {b.module for b in BLENDS} | {p.module for p in PACKINGS}
    named |= {s.likeness for s in SCORERS}
    for name in sorted(named):
        importlib.import_module(f"{__package__}.{name}")


def load_embedding(path: str) -> str:
    """Load a vector file for the sessions open_json opens (the page's worker calls it
    once the file is fetched); replies ``{"tokens", "dims"}`` or an error object, as JSON."""
    try:
        embedding = load_vectors(path)
    except InputError as error:
        return dumps(error_result(error))
    except Exception as error:  # the page must get an answer, never a hang
        return dumps(internal_error(error))
    _LOADED[:] = [embedding]
    reply: VectorsLoaded = {"tokens": embedding.size, "dims": embedding.dims}
    return dumps(reply)


def _loaded_vectors() -> StaticEmbedding:
    """The vectors load_embedding read last, else the repository's default file."""
    return _LOADED[0] if _LOADED else load_vectors()


def _check_request(request: Any) -> None:
    if not isinstance(request, dict):
        raise InputError("InvalidRequest", [("request", "must be an object with store and policy")])
    unknown = sorted(set(request) - {"store", "policy"})
    if unknown:
        raise InputError("InvalidRequest", [(f"request.{unknown[0]}", "is not a known field (allowed: store, policy)")])
    if "store" not in request:
        raise InputError("InvalidRequest", [("request.store", "is missing")])


def run(request: Any, *, vectors: str | Path | None = None) -> Result | ErrorResult:
    """Run one request ``{"store": <store>, "policy": <policy>}``; never raises on bad input.

    A policy whose scorer reads the static embedding reads the vector file ``vectors``
    (default: the repository's ``embedding/minilm-static.rwse``), read once per path."""
    try:
        _check_request(request)
        session = Session(parse_store(request["store"]), vectors=lambda: load_vectors(vectors))
        return session.run(request.get("policy"))
    except InputError as error:
        return error_result(error)
    except Exception as error:  # the page must get an answer, never a hang
        return internal_error(error)


def evaluate(request: Any, *, vectors: str | Path | None = None) -> Evaluation | ErrorResult:
    """Evaluate one request ``{"store", "policy"}``: every question of the store under every
    scorer, with the policy but its question (engine/evaluate.py), on one session; never
    raises on bad input."""
    from .evaluate import evaluate_policy

    try:
        _check_request(request)
        session = Session(parse_store(request["store"]), vectors=lambda: load_vectors(vectors))
        return evaluate_policy(session, request.get("policy"))
    except InputError as error:
        return error_result(error)
    except Exception as error:  # the command line reports it in one line, never a traceback
        return internal_error(error)


def sweep(request: Any, field: str, *, vectors: str | Path | None = None) -> Sweep | ErrorResult:
    """``evaluate``'s mean nDCG for one request as ``field`` (fields.SWEPT: the recency
    weight or MMR's λ) goes from 0 to 1, the rest of the policy kept; never raises on bad input."""
    from .evaluate import sweep_over

    try:
        _check_request(request)
        session = Session(parse_store(request["store"]), vectors=lambda: load_vectors(vectors))
        return sweep_over(session, parse_policy(request.get("policy"), session.store), field)
    except InputError as error:
        return error_result(error)
    except Exception as error:  # the command line reports it in one line, never a traceback
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
        session = Session(parse_store(json.loads(store_text)), name=name, vectors=_loaded_vectors)
    except InputError as error:
        return Opening(None, dumps(error_result(error)))
    except (json.JSONDecodeError, TypeError) as error:
        return Opening(
            None, dumps(error_result(InputError("InvalidJSON", [("store", f"is not valid JSON ({error})")])))
        )
    except Exception as error:  # RecursionError on absurd nesting, a resource limit
        return Opening(None, dumps(internal_error(error)))
    return Opening(session, dumps(session.opened()))


def check_store(data: Any, *, vectors: Callable[[], StaticEmbedding] | None = None) -> StoreCheck:
    """A store's problems as the parser finds them, and when it has none, every guided
    step's "Look for" checked against its answer (engine/claims.py). The embedding's steps
    read ``vectors`` (default: the file ``load_embedding`` read last, else the repository's);
    a step whose answer cannot be made without them is listed as unchecked."""
    try:
        store = parse_store(data)
    except InputError as error:
        problems: list[Problem] = [{"path": path, "message": message} for path, message in error.problems]
        return {"claims": [], "unchecked": [], "steps": 0, "checked": 0, "problems": problems}
    # Imported here: the page's worker boots without the check, which only the editor asks for.
    from .claims import check_guides, kept_answers

    # The page's drafts (read with the one vector file it loads) keep their steps' answers between checks.
    answers = kept_answers(data) if vectors is None else None
    checked = check_guides(Session(store, vectors=vectors or _loaded_vectors), answers)
    return {**checked, "problems": []}


def check_store_json(store_text: str) -> str:
    """``check_store`` for a store given as JSON text, as JSON text ``{"claims", "unchecked",
    "steps", "checked", "problems"}``; text that is not JSON is one problem at ``store``, as
    ``open_json`` says it; an engine failure is an error object, never an exception."""
    try:
        try:
            data = json.loads(store_text)
        except (json.JSONDecodeError, TypeError) as error:
            problem: Problem = {"path": "store", "message": f"is not valid JSON ({error})"}
            return dumps({"claims": [], "unchecked": [], "steps": 0, "checked": 0, "problems": [problem]})
        return dumps(check_store(data))
    except Exception as error:  # RecursionError on absurd nesting, a bug: the page must get an answer
        return dumps(internal_error(error))

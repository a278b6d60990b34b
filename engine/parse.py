"""Parsing and validation of untrusted JSON (a store file, a policy from a URL) into the model.

Every problem is collected with the path of the bad value instead of stopping at the
first, and raised together as one ``InputError``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from .errors import InputError
from .fields import DEFAULT_POLICY, FIELDS, GUIDE_PARTS, POLICY_FIELDS, Field
from .model import Policy, Question, Record, Store, Tenant
from .store_format import NAMES, RECORD, FormatField

SCHEMA_VERSION = 1


class _Problems:
    """Collects problems so a user sees all of them at once."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.items.append((path, message))


def _show(value: Any) -> str:
    """A short, JSON-like rendering of a bad value for messages."""
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + text + '"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return "a list" if isinstance(value, list) else "an object"


# Unicode category Cc: the C0 controls, DEL and the C1 controls. The ones that separate
# text (tab, line and page breaks, the information separators, next line) read as a
# space, so a pasted question keeps its words apart; the rest are removed. Fixed sets,
# so the page (state.js) cleans exactly the same characters.
CONTROL_SPACES = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1f\x85]")
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Unicode's space separators and line and paragraph separators (Zs, Zl, Zp), spelled
# out so that Python and the page agree whatever their Unicode versions.
_BLANK = re.compile(r"[ \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*")
# Half of a UTF-16 pair on its own: not a character, and no encoder can write it out.
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Why a text of spaces alone is refused: it would be an own question that can match nothing.
NO_WORDS = "has no words, only spaces or control characters (leave it empty to ask the chosen question)"


def clean_text(value: str) -> str:
    """A text field's value as the engine uses it: tabs and line breaks read as spaces,
    other control characters removed."""
    return CONTROL_CHARACTERS.sub("", CONTROL_SPACES.sub(" ", value))


def has_no_words(value: str, text: str) -> bool:
    """Whether a value that is not empty leaves only spaces, or nothing, once cleaned to ``text``."""
    return bool(value) and _BLANK.fullmatch(text) is not None


def _is_number(value: Any) -> bool:
    # JSON booleans arrive as bool, a subclass of int; they are not numbers here.
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(obj: dict[str, Any], name: str, path: str, problems: _Problems) -> str:
    value = obj.get(name)
    if name not in obj:
        problems.add(f"{path}.{name}", "is missing")
    elif not isinstance(value, str):
        problems.add(f"{path}.{name}", f"must be text, not {_show(value)}")
    elif not value or value.isspace():  # not value.strip(), without copying a long text
        problems.add(f"{path}.{name}", "must not be empty")
    else:
        return value
    return ""


def _unknown_fields(obj: dict[str, Any], allowed: tuple[str, ...], path: str, problems: _Problems) -> None:
    for name in obj:
        if name not in allowed:
            problems.add(f"{path}.{name}", "is not a known field (allowed: " + ", ".join(allowed) + ")")


def _objects(data: dict[str, Any], name: str, problems: _Problems) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object of the non-empty list ``data[name]``, with its path; an item that is not
    an object is a problem and skipped, as is a missing, empty or non-list ``name``."""
    value = data.get(name)
    if name not in data:
        problems.add(name, "is missing")
    elif not isinstance(value, list):
        problems.add(name, f"must be a list, not {_show(value)}")
    elif not value:
        problems.add(name, "must not be empty")
    else:
        for index, item in enumerate(value):
            path = f"{name}[{index}]"
            if isinstance(item, dict):
                yield path, item
            else:
                problems.add(path, f"must be an object, not {_show(item)}")


def parse_store(data: Any) -> Store:
    """Validate a store (the JSON shape of ``fixtures/``) and return it.

    Raises ``InputError`` listing every problem, each with the path of the bad value.
    """
    problems = _Problems()
    if not isinstance(data, dict):
        raise InputError("InvalidStore", [("store", f"must be a JSON object, not {_show(data)}")])
    _unknown_fields(data, NAMES["store"], "store", problems)
    # "$schema" lets editors find fixtures/store.schema.json; the engine only checks its type.
    if "$schema" in data and not isinstance(data["$schema"], str):
        problems.add("$schema", "must be text (the URL or path of the JSON Schema)")
    if type(data.get("schema")) is not int or data.get("schema") != SCHEMA_VERSION:
        problems.add("schema", f"must be {SCHEMA_VERSION}, not {_show(data.get('schema'))}")
    title = _text(data, "title", "store", problems)
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.add("description", "must be text")
        description = ""

    tenants: list[Tenant] = []
    for path, item in _objects(data, "tenants", problems):
        _unknown_fields(item, NAMES["tenant"], path, problems)
        tenant = Tenant(_text(item, "id", path, problems), _text(item, "label", path, problems))
        if tenant.id and any(t.id == tenant.id for t in tenants):
            problems.add(f"{path}.id", f"{_show(tenant.id)} is used by another tenant")
        tenants.append(tenant)
    tenant_ids = [t.id for t in tenants if t.id]

    records: list[Record] = []
    seen_ids: set[str] = set()
    for path, item in _objects(data, "records", problems):
        record = _parse_record(item, path, {"tenants": tenant_ids}, problems)
        if record.id in seen_ids:
            problems.add(f"{path}.id", f"{_show(record.id)} is used by another record")
        seen_ids.add(record.id)
        records.append(record)
    record_tenant = {r.id: r.tenant for r in records if r.id}

    questions: list[Question] = []
    for path, item in _objects(data, "questions", problems):
        _unknown_fields(item, NAMES["question"], path, problems)
        qid = _text(item, "id", path, problems)
        if qid and any(q.id == qid for q in questions):
            problems.add(f"{path}.id", f"{_show(qid)} is used by another question")
        supporting = _parse_supporting(
            item.get("supporting"), f"{path}.supporting", tenant_ids, record_tenant, problems
        )
        questions.append(Question(qid, _text(item, "text", path, problems), supporting))

    guides = data.get("guides", [])
    if not isinstance(guides, list) or not all(isinstance(g, dict) for g in guides):
        problems.add("guides", "must be a list of objects")
        guides = []

    if problems.items:
        raise InputError("InvalidStore", problems.items)
    store = Store(title, description, tuple(tenants), tuple(questions), tuple(records), tuple(guides))
    _check_guides(store, problems)
    if problems.items:
        raise InputError("InvalidStore", problems.items)
    return store


def _parse_record(item: dict[str, Any], path: str, choices: dict[str, list[str]], problems: _Problems) -> Record:
    """A record, field by field as the format table declares them (store_format.RECORD)."""
    _unknown_fields(item, NAMES["record"], path, problems)
    values = {f.name: _read_field(f, item, path, choices, problems) for f in RECORD}
    for f in RECORD:
        if f.default_from and f.name not in item:
            values[f.name] = values[f.default_from]
    return Record(**values)


def _read_field(
    f: FormatField, obj: dict[str, Any], path: str, choices: dict[str, list[str]], problems: _Problems
) -> Any:
    """One field's value, or a problem at its path and a stand-in value so parsing goes on."""
    where = f"{path}.{f.name}"
    if f.kind in ("text", "choice"):
        value = _text(obj, f.name, path, problems)
        allowed = list(f.choices) if f.choices else choices.get(f.choices_from or "", [])
        if value and allowed and value not in allowed:
            among = f"the {f.choices_from} ({', '.join(allowed)})" if f.choices_from else ", ".join(allowed)
            problems.add(where, f"{_show(value)} is not one of {among}")
        return value
    if f.name not in obj:
        if f.required:
            hint = " (use null for a record without a key)" if f.kind == "key" else ""
            problems.add(where, "is missing" + hint)
        return f.default if f.kind != "hours" else float(f.default or 0)
    value = obj[f.name]
    if f.kind == "key":
        if value is not None and (not isinstance(value, str) or not value.strip()):
            problems.add(where, f"must be null or non-empty text, not {_show(value)}")
            return None
        return value
    if f.kind == "hours":
        if not _is_number(value):
            problems.add(where, f"must be a number of hours, not {_show(value)}")
            return 0.0
        if value < 0:
            problems.add(where, f"must not be negative, not {_show(value)}")
        return float(value)
    if f.kind == "int":
        if not (isinstance(value, int) and not isinstance(value, bool)) or not f.minimum <= value <= f.maximum:  # type: ignore[operator]
            problems.add(where, f"must be a whole number from {f.minimum:g} to {f.maximum:g}, not {_show(value)}")
            return f.default
        return value
    raise AssertionError(f"no reader for a {f.kind} field")  # a format row the parser does not know


def _parse_supporting(
    value: Any, path: str, tenant_ids: list[str], record_tenant: dict[str, str], problems: _Problems
) -> dict[str, tuple[str, ...]]:
    if value is None:
        problems.add(path, "is missing (map each tenant to its supporting record ids)")
        return {}
    if not isinstance(value, dict):
        problems.add(path, f"must be an object mapping tenants to record ids, not {_show(value)}")
        return {}
    supporting: dict[str, tuple[str, ...]] = {}
    for tenant, ids in value.items():
        tpath = f"{path}.{tenant}"
        if tenant not in tenant_ids:
            problems.add(tpath, f"{_show(tenant)} is not one of the tenants ({', '.join(tenant_ids)})")
            continue
        if not isinstance(ids, list):
            problems.add(tpath, f"must be a list of record ids, not {_show(ids)}")
            continue
        for index, rid in enumerate(ids):
            if not isinstance(rid, str):
                problems.add(f"{tpath}[{index}]", f"must be a record id (text), not {_show(rid)}")
            elif rid not in record_tenant:
                problems.add(f"{tpath}[{index}]", f"{_show(rid)} is not a record id")
            elif record_tenant[rid] != tenant:
                problems.add(f"{tpath}[{index}]", f"{_show(rid)} belongs to {record_tenant[rid]}, not {tenant}")
        supporting[tenant] = tuple(rid for rid in ids if isinstance(rid, str))
    return supporting


def _check_guides(store: Store, problems: _Problems) -> None:
    """Guided experiments are step lists whose policies must be valid for this store."""
    seen: set[str] = set()
    for index, guide in enumerate(store.guides):
        path = f"guides[{index}]"
        _unknown_fields(guide, NAMES["guide"], path, problems)
        guide_id = _text(guide, "id", path, problems)
        if guide_id in seen:
            problems.add(f"{path}.id", f"{_show(guide_id)} is used by another guide")
        seen.add(guide_id)
        _text(guide, "title", path, problems)
        for optional in ("intro", "closing"):
            if optional in guide and not isinstance(guide[optional], str):
                problems.add(f"{path}.{optional}", f"must be text, not {_show(guide[optional])}")
        steps = guide.get("steps")
        if not isinstance(steps, list) or not steps:
            problems.add(f"{path}.steps", "must be a non-empty list")
            continue
        for number, step in enumerate(steps):
            spath = f"{path}.steps[{number}]"
            if not isinstance(step, dict):
                problems.add(spath, "must be an object")
                continue
            _unknown_fields(step, NAMES["step"], spath, problems)
            _text(step, "title", spath, problems)
            _text(step, "look_for", spath, problems)
            if "shows" in step:
                _check_shows(step["shows"], store, f"{spath}.shows", problems)
            if not isinstance(step.get("policy"), dict):
                problems.add(f"{spath}.policy", "must be an object of policy fields")
                continue
            try:
                parse_policy(step["policy"], store, path=f"{spath}.policy")
            except InputError as error:
                problems.items.extend(error.problems)


def _check_shows(shows: Any, store: Store, path: str, problems: _Problems) -> None:
    """What a step shows: the stage it opens at, the record it speaks of, the part of the page."""
    if not isinstance(shows, dict):
        problems.add(path, "must be an object with stage, record and part")
        return
    _unknown_fields(shows, NAMES["shows"], path, problems)
    stage = shows.get("stage")
    if not (isinstance(stage, int) and not isinstance(stage, bool) and 1 <= stage <= 4):
        problems.add(f"{path}.stage", f"must be a stage from 1 to 4, not {_show(stage)}")
    record = shows.get("record")
    if record not in {r.id for r in store.records}:
        problems.add(f"{path}.record", f"must be the id of a record of this store, not {_show(record)}")
    if shows.get("part") not in GUIDE_PARTS:
        problems.add(f"{path}.part", f"must be one of {', '.join(GUIDE_PARTS)}, not {_show(shows.get('part'))}")


def parse_policy(data: Any, store: Store, *, path: str = "policy") -> Policy:
    """Validate a policy against a store; missing fields take the defaults.

    ``question`` and ``tenant`` default to the store's first entries.
    """
    problems = _Problems()
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError("InvalidPolicy", [(path, f"must be an object, not {_show(data)}")])
    _unknown_fields(data, POLICY_FIELDS, path, problems)
    values = dict(DEFAULT_POLICY)
    values["question"] = store.questions[0].id
    values["tenant"] = store.tenants[0].id
    values.update({k: v for k, v in data.items() if k in POLICY_FIELDS})

    store_lists = {"questions": [q.id for q in store.questions], "tenants": [t.id for t in store.tenants]}

    def checked(f: Field) -> Any:
        value: Any = values[f.name]
        where = f"{path}.{f.name}"
        if f.kind == "choice":
            allowed = store_lists[f.choices_from] if f.choices_from else list(f.values)
            if not isinstance(value, str) or value not in allowed:
                problems.add(where, f"{_show(value)} is not one of {', '.join(allowed)}")
                return allowed[0]
            return value
        if f.kind == "bool":
            if not isinstance(value, bool):
                problems.add(where, f"must be true or false, not {_show(value)}")
                return f.default
            return value
        if f.kind == "text":
            if not isinstance(value, str):
                problems.add(where, f"must be text, not {_show(value)}")
                return f.default
            if _LONE_SURROGATE.search(value):
                problems.add(where, "must be valid Unicode text (it holds half of a surrogate pair)")
                return f.default
            text = clean_text(value)
            if len(text) > (f.max_length or 0):
                problems.add(where, f"{f.rule()} (this one has {len(text)})")
                return f.default
            if has_no_words(value, text):
                problems.add(where, NO_WORDS)
                return f.default
            return text
        low, high = float(f.minimum or 0), float(f.maximum or 0)
        whole = f.kind == "int"
        if not _is_number(value) or (whole and not float(value).is_integer()) or not low <= value <= high:
            problems.add(where, f"{f.rule()}, not {_show(value)}")
            value = f.default
        number = float(value)
        # Whole-number fields are ints; a number field whose default is an int (hours)
        # keeps whole values as ints too, so links and notes read "168", not "168.0".
        if whole or (isinstance(f.default, int) and number.is_integer()):
            return int(number)
        return number

    policy = Policy(**{f.name: checked(f) for f in FIELDS})
    if problems.items:
        raise InputError("InvalidPolicy", problems.items)
    return policy

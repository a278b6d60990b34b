"""The one table of the store format: every object a store file holds and each of its fields.

The parser reads a record's fields from these rows and checks every object's field
names against them; the page's store editor builds its forms, limits and help from them
(through ``site/js/core/tables.js``); a test holds ``fixtures/store.schema.json`` and
``fixtures/README.md`` to them. Adding a record field is one row here, one attribute of
``model.Record``, plus the engine code that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

STORE_KINDS: tuple[str, ...] = ("semantic", "episodic", "procedural", "working")
SESSIONS: tuple[str, ...] = ("current", "previous")
# The parts of the page a guided step can show, each with the heading a learner knows it by:
# a step's ``shows`` names one, and applying the step brings it into view.
GUIDE_PARTS: dict[str, str] = {
    "reading": "how the question is read",
    "table": "the records table",
    "breakdown": "the score breakdown",
    "map": "the map of meaning",
    "tray": "the selected context",
    # Showing it has the scoreboard measure every question (core/guided.js SCOREBOARD_PART).
    "scoreboard": "the scoreboard",
}

# text: non-empty text; choice: one of ``choices`` (or of the store's ``choices_from``);
# hours: a number of hours, not negative; key: non-empty text or null; int: a whole number
# from ``minimum`` to ``maximum``; list, map, object: what the parser checks row by row.
FormatKind = Literal["text", "choice", "hours", "key", "int", "list", "map", "object", "note"]


@dataclass(frozen=True)
class FormatField:
    """One field of one object of the store format.

    ``required`` fields must be present; an optional one takes ``default`` when absent
    (``default_from`` names a sibling field whose value it takes instead). ``choices``
    are fixed values; ``choices_from`` names the store list that supplies them.
    """

    name: str
    kind: FormatKind
    label: str
    help: str
    required: bool = True
    default: Any = None
    default_from: str | None = None
    choices: tuple[str, ...] = ()
    choices_from: Literal["tenants", "records"] | None = None
    minimum: float | None = None
    maximum: float | None = None


STORE: tuple[FormatField, ...] = (
    FormatField("$schema", "note", "Schema", "where editors find the JSON Schema; ignored", required=False),
    FormatField("schema", "int", "Format version", "the version of the store format, always 1", minimum=1, maximum=1),
    FormatField("title", "text", "Title", "the store's name, shown in the browser tab and the footer"),
    FormatField("description", "note", "Description", "a sentence or two about the store", required=False, default=""),
    FormatField("tenants", "list", "Tenants", "the clients or teams the agent serves"),
    FormatField("questions", "list", "Questions", "the questions a learner can ask; the first is asked first"),
    FormatField("records", "list", "Records", "the memory records, in store order (the last tie-breaker)"),
    FormatField("guides", "list", "Guides", "guided experiments: steps that each apply a policy", required=False),
)

TENANT: tuple[FormatField, ...] = (
    FormatField("id", "text", "ID", "a unique id that records, questions and policies refer to"),
    FormatField("label", "text", "Name", "the name shown on the page"),
)

RECORD: tuple[FormatField, ...] = (
    FormatField("id", "text", "ID", "a unique id, short, such as M1"),
    FormatField("tenant", "choice", "Tenant", "the tenant the record belongs to", choices_from="tenants"),
    FormatField("store", "choice", "Memory store", "the kind of memory that holds it", choices=STORE_KINDS),
    FormatField(
        "session", "choice", "Session", "whether it was written in this session or a previous one", choices=SESSIONS
    ),
    FormatField("age_hours", "hours", "Age (hours)", "how many hours ago it was written", minimum=0),
    FormatField(
        "key", "key", "Fact key", "records of a tenant with the same key state one fact; the newest supersedes"
    ),
    FormatField("text", "text", "Text", "what the record says; its words are what the scorers match"),
    FormatField(
        "importance",
        "int",
        "Importance",
        "how much it matters, 1 (mundane) to 10 (poignant), as Generative Agents rates a memory; "
        "the generative-agents blend weighs it",
        required=False,
        default=5,
        minimum=1,
        maximum=10,
    ),
    FormatField(
        "true_since_hours",
        "hours",
        "True since (hours)",
        "how many hours ago the fact it states became true in the world; may differ from when it was written",
        required=False,
        default_from="age_hours",
        minimum=0,
    ),
)

QUESTION: tuple[FormatField, ...] = (
    FormatField("id", "text", "ID", "a unique id, used in policies and page links"),
    FormatField("text", "text", "Question", "the question as the learner reads it"),
    FormatField("supporting", "map", "Supporting records", "for each tenant, the records that truly answer it"),
)

GUIDE: tuple[FormatField, ...] = (
    FormatField("id", "text", "ID", "a unique id, used in page links"),
    FormatField("title", "text", "Title", "the guide's name"),
    FormatField("intro", "note", "Introduction", "what the guide sets out to show", required=False),
    FormatField("closing", "note", "Closing", "what the learner should take away, shown at the end", required=False),
    FormatField("steps", "list", "Steps", "the steps, in order"),
)

STEP: tuple[FormatField, ...] = (
    FormatField("title", "text", "Title", "what the step does"),
    FormatField("policy", "object", "Settings", "the policy fields the step sets; the rest take their defaults"),
    FormatField(
        "look_for", "text", "Look for", "what the learner should see; every record and number it names is checked"
    ),
    FormatField(
        "shows", "object", "Shows", "the stage, record and part of the page the step brings into view", required=False
    ),
)

SHOWS: tuple[FormatField, ...] = (
    FormatField("stage", "int", "Stage", "the stage the step opens at", minimum=1, maximum=4),
    FormatField("record", "choice", "Record", "the record the step speaks of", choices_from="records"),
    FormatField("part", "choice", "Part", "the part of the page it shows", choices=tuple(GUIDE_PARTS)),
)

# Every object of the format, by the name the schema's $defs and the editor know it by.
FORMAT: dict[str, tuple[FormatField, ...]] = {
    "store": STORE,
    "tenant": TENANT,
    "record": RECORD,
    "question": QUESTION,
    "guide": GUIDE,
    "step": STEP,
    "shows": SHOWS,
}
NAMES: dict[str, tuple[str, ...]] = {kind: tuple(f.name for f in rows) for kind, rows in FORMAT.items()}


def format_rows() -> dict[str, list[dict[str, Any]]]:
    """The format as JSON rows, for tables.js (the store editor's forms)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for kind, fields in FORMAT.items():
        rows[kind] = []
        for f in fields:
            row: dict[str, Any] = {
                "name": f.name,
                "kind": f.kind,
                "label": f.label,
                "help": f.help,
                "required": f.required,
            }
            if not f.required and f.default is not None:
                row["default"] = f.default
            if f.default_from:
                row["defaultFrom"] = f.default_from
            if f.choices:
                row["choices"] = list(f.choices)
            if f.choices_from:
                row["choicesFrom"] = f.choices_from
            if f.minimum is not None:
                row["min"] = f.minimum
            if f.maximum is not None:
                row["max"] = f.maximum
            rows[kind].append(row)
    return rows

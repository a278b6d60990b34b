"""The one table of policy fields and the one table of outcomes.

Every other place that names a policy field or an outcome derives it from here: the
policy parser, the command line's flags, the page's controls (rendered from the table
by the template), its URL parsing and share panel (through the boot JSON and the
generated ``site/js/tables.js``), exported notes, the store schema's policy section and
the JSDoc types. Adding a field is one row here plus the engine code that uses it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from .scorers import (
    BLENDS,
    BLENDS_BY_ID,
    EMBEDDING_SCORERS,
    GENERATIVE_AGENTS,
    OTHER_SCORER,
    SCORER_NAMES,
    SCORERS,
    SCORERS_BY_ID,
    Preset,
)
from .store_format import GUIDE_PARTS, STORE_KINDS, format_rows

FieldKind = Literal["choice", "bool", "number", "int", "text"]

# The scorer a policy ranks by unless it says otherwise.
DEFAULT_SCORER = "tfidf"

# The embedding scorer's default minimum similarity: the value the guide "Meaning, not
# just words" shows separating the records that answer its questions from those that do not.
MIN_SIMILARITY = 0.35


@dataclass(frozen=True)
class Field:
    """One policy field.

    ``default`` None means the store decides (its first question or tenant);
    ``choices_from`` names the store list that supplies a choice field's values,
    ``choices`` lists fixed ones as (value, label) pairs. ``control`` is how the page
    shows it, ``unit`` the words it shows beside it, ``step`` the control's step.

    A text field holds at most ``max_length`` characters. When it ``replaces`` a choice
    field, a non-empty value is in force instead of that field's choice, and the choice
    control offers one more option, labelled ``option``, that stands for the text.

    A field ``shown_with`` (another field, a value or a tuple of values) matters only
    while that field has that value (one of those values): the page shows its control
    then, and hides it otherwise. ``presets`` are buttons shown with its control, each
    setting several fields at once (the published weights of a blend).
    """

    name: str
    kind: FieldKind
    label: str
    help: str
    default: Any
    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[tuple[str, str], ...] = ()
    choices_from: Literal["questions", "tenants"] | None = None
    control: Literal["select", "checkbox", "number", "range", "text"] = "number"
    step: str = "any"
    max_length: int | None = None
    replaces: str | None = None
    option: str = ""
    shown_with: tuple[str, str | tuple[str, ...]] | None = None
    presets: tuple[Preset, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def rule(self) -> str:
        """The rule a number or text must follow, as messages on every side state it."""
        if self.kind == "text":
            return f"must be at most {self.max_length} characters"
        kind = "a whole number" if self.kind == "int" else "a number"
        return f"must be {kind} from {self.minimum:g} to {self.maximum:g}"

    def describe(self) -> str:
        """The help sentence with its range or choices and default, for --help and the schema."""
        if self.choices_from:
            return f"{self.help} (default: the store's first {self.choices_from[:-1]})"
        if self.kind == "bool":
            return f"{self.help} (default: {'on' if self.default else 'off'})"
        if self.kind == "choice":
            return f"{self.help}: {', '.join(self.values)} (default: {self.default})"
        if self.kind == "text":
            return f"{self.help}, at most {self.max_length} characters (default: empty)"
        return f"{self.help}, {self.minimum:g} to {self.maximum:g} (default: {self.default:g})"


FIELDS: tuple[Field, ...] = (
    Field(
        "question",
        "choice",
        "Question",
        "question id",
        None,
        choices_from="questions",
        control="select",
    ),
    Field(
        "tenant",
        "choice",
        "Active tenant",
        "active tenant id, a hard filter",
        None,
        choices_from="tenants",
        control="select",
    ),
    Field(
        "store",
        "choice",
        "Memory store",
        "memory store to read",
        "working",
        choices=(
            ("semantic", "Semantic facts"),
            ("episodic", "Episodic events"),
            ("procedural", "Procedural steps"),
            ("working", "Working context"),
            ("all", "All stores"),
        ),
        control="select",
    ),
    Field(
        "previous_sessions",
        "bool",
        "Include previous sessions",
        "include records from previous sessions",
        False,
        control="checkbox",
    ),
    Field(
        "max_age_hours",
        "number",
        "Maximum age",
        "exclude records older than this many hours, inclusive",
        168,
        unit="hours, inclusive",
        minimum=0,
        maximum=100_000,
    ),
    Field(
        "latest_per_key",
        "bool",
        "Keep latest fact per key",
        "exclude a keyed fact when a newer record of the same tenant and key exists",
        True,
        control="checkbox",
    ),
    Field(
        "as_of_hours",
        "number",
        "As of",
        "ask as the agent would have this many hours ago: a record written later did not exist yet, "
        "and every age counts from then (0 is now; past the oldest record nothing existed yet)",
        0,
        unit="hours ago; 0 is now",
        minimum=0,
        maximum=100_000,
    ),
    Field(
        "latest_by",
        "choice",
        "Latest by",
        "which time makes a record of a key the latest: when it was written (the agent learnt it) or when "
        "its fact became true in the world; by the time true, a fact not yet true at the as-of is left out",
        "written",
        choices=(("written", "When it was written"), ("true", "When it became true")),
        control="select",
    ),
    Field(
        "scorer",
        "choice",
        "Scorer",
        "how a record is matched to the question before blending with recency: by shared words "
        "(TF-IDF, BM25), by meaning (a static embedding), or both ranks fused (hybrid)",
        DEFAULT_SCORER,
        choices=tuple((s.id, s.label) for s in SCORERS),
        control="select",
    ),
    Field(
        "bm25_k1",
        "number",
        "BM25 k1",
        "BM25 term-frequency saturation: 0 counts a term once however often it occurs",
        1.2,
        unit="saturation: higher lets repeated terms count for more",
        minimum=0,
        maximum=3,
        step="0.1",
        shown_with=("scorer", "bm25"),
    ),
    Field(
        "bm25_b",
        "number",
        "BM25 b",
        "BM25 length normalisation: 0 ignores a record's length, 1 divides fully by it",
        0.75,
        unit="length normalisation, 0 to 1",
        minimum=0,
        maximum=1,
        step="0.05",
        shown_with=("scorer", "bm25"),
    ),
    Field(
        "min_similarity",
        "number",
        "Minimum similarity",
        "embedding cosine a record needs to be matched: below it, it is excluded at any recency weight",
        MIN_SIMILARITY,
        unit="cosine with the question, 0 to 1",
        minimum=0,
        maximum=1,
        step="0.05",
        shown_with=("scorer", EMBEDDING_SCORERS),
    ),
    Field(
        "rrf_k",
        "int",
        "RRF k",
        "Reciprocal Rank Fusion constant: a record adds 1/(k + rank) for each ranking it is in",
        60,
        unit="higher lets lower ranks count for more",
        minimum=1,
        maximum=100,
        step="1",
        shown_with=("scorer", "hybrid"),
    ),
    Field(
        "blend",
        "choice",
        "Score",
        "how a record's score is made from its relevance: blended with recency (seed), or "
        "recency, importance and relevance each min-max normalised and weighted (generative-agents)",
        BLENDS[0].id,
        choices=tuple((b.id, b.label) for b in BLENDS),
        control="select",
    ),
    Field(
        "recency_weight",
        "number",
        "Recency weight",
        "blend weight of recency in the score",
        0.0,
        # The page says it in the words of the scorer in force (Scorer.recency_hint).
        unit=SCORERS_BY_ID[DEFAULT_SCORER].recency_hint,
        minimum=0,
        maximum=1,
        control="range",
        step="0.05",
        shown_with=("blend", BLENDS[0].id),
    ),
    Field(
        "ga_decay",
        "number",
        "Recency decay per hour",
        "Generative Agents' recency: this number to the power of the record's age in hours, before normalising",
        0.995,
        unit="per hour: 0.995, the paper's, halves recency in about 138 hours",
        minimum=0.5,
        maximum=1,
        step="0.001",
        shown_with=("blend", GENERATIVE_AGENTS),
    ),
    Field(
        "ga_recency_weight",
        "number",
        "Weight of recency",
        "Generative Agents' weight of the normalised recency",
        1.0,
        unit="times recency, normalised to 0–1",
        minimum=0,
        maximum=10,
        step="0.5",
        shown_with=("blend", GENERATIVE_AGENTS),
    ),
    Field(
        "ga_importance_weight",
        "number",
        "Weight of importance",
        "Generative Agents' weight of the normalised importance",
        1.0,
        unit="times importance, normalised to 0–1",
        minimum=0,
        maximum=10,
        step="0.5",
        shown_with=("blend", GENERATIVE_AGENTS),
    ),
    Field(
        "ga_relevance_weight",
        "number",
        "Weight of relevance",
        "Generative Agents' weight of the normalised relevance",
        1.0,
        unit="times relevance, normalised to 0–1",
        minimum=0,
        maximum=10,
        step="0.5",
        shown_with=("blend", GENERATIVE_AGENTS),
        presets=BLENDS_BY_ID[GENERATIVE_AGENTS].presets,
    ),
    Field(
        "budget_words",
        "int",
        "Context word budget",
        "context word budget: the tray's words may add up to this",
        40,
        unit="words",
        minimum=0,
        maximum=500,
        step="1",
    ),
    Field(
        "max_records",
        "int",
        "Maximum retrieved records",
        "maximum records in the tray",
        3,
        unit="records",
        minimum=1,
        maximum=50,
        step="1",
    ),
    Field(
        "mmr_lambda",
        "number",
        "Diversity (MMR λ)",
        "maximal marginal relevance: the tray takes in turn the record with the highest "
        "λ × score − (1 − λ) × its highest similarity to a record already in it; 1 packs by score alone",
        1.0,
        unit="1 is off (by score alone); lower trades score for records unlike those already in the tray",
        minimum=0,
        maximum=1,
        control="range",
        step="0.05",
    ),
    Field(
        "question_text",
        "text",
        "Your question",
        "your own question: when not empty it is scored instead of the chosen question, "
        "tabs and line breaks read as spaces, other control characters removed",
        "",
        unit="Scored like the store's questions, with the same words, stop words and weights. Up to 200 characters.",
        control="text",
        max_length=200,
        replaces="question",
        option="Your own question",
    ),
)

FIELDS_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}
# The policy fields the scoreboard's sweep can vary (engine/evaluate.py), each from 0 to 1:
# the seed blend's recency weight and MMR's λ (at 1, no diversity packing).
SWEPT: tuple[str, ...] = ("recency_weight", "mmr_lambda")
__all__ = ["EMBEDDING_SCORERS", "GUIDE_PARTS", "OTHER_SCORER", "SCORER_NAMES", "STORE_KINDS"]  # re-exported
POLICY_FIELDS: tuple[str, ...] = tuple(f.name for f in FIELDS)
# The default store's first question and tenant: what the store-decided defaults are there.
_DEFAULT_STORE_FIRST = {"question": "deployment-region", "tenant": "team-a"}
# The starting point of the seed's experiment.
DEFAULT_POLICY: dict[str, Any] = {
    f.name: _DEFAULT_STORE_FIRST[f.name] if f.default is None else f.default for f in FIELDS
}


@dataclass(frozen=True)
class Outcome:
    """An outcome code, the page stage that decides it (2 scope filters, 3 ranking,
    4 final context), and how the page labels it (a glyph, so colour is never the only
    signal, and a tone). ``setting`` names the policy field whose value leaves a record
    out this way (the scorer's own test has none: the question's words decide it)."""

    code: str
    stage: int
    label: str
    glyph: str
    tone: Literal["good", "warn", "muted", "bad"]
    setting: str | None = None


# In the order the checks run: scope first, then packing.
OUTCOME_TABLE: tuple[Outcome, ...] = (
    Outcome("not_written_yet", 2, "Not written yet", "◌", "muted", "as_of_hours"),
    Outcome("other_tenant", 2, "Other tenant", "⊗", "bad", "tenant"),
    Outcome("not_true_yet", 2, "Not true yet", "◔", "muted", "latest_by"),
    Outcome("superseded", 2, "Superseded", "⇢", "muted", "latest_per_key"),
    Outcome("store_filtered", 2, "Other store", "⊘", "muted", "store"),
    Outcome("previous_session", 2, "Previous session", "↶", "muted", "previous_sessions"),
    Outcome("too_old", 2, "Too old", "◷", "muted", "max_age_hours"),
    Outcome("no_shared_terms", 3, "No shared terms", "∅", "muted"),
    Outcome("below_similarity", 3, "Below minimum similarity", "≈", "muted", "min_similarity"),
    Outcome("selected", 4, "Selected", "✓", "good"),
    Outcome("over_budget", 4, "Over budget", "✕", "warn", "budget_words"),
    Outcome("record_limit", 4, "Record limit", "#", "warn", "max_records"),
    Outcome("too_similar", 4, "Too similar", "≋", "warn", "mmr_lambda"),
)
OUTCOMES: tuple[str, ...] = tuple(o.code for o in OUTCOME_TABLE)

OUTCOME_STAGE: dict[str, int] = {o.code: o.stage for o in OUTCOME_TABLE}
OUTCOMES_BY_CODE: dict[str, Outcome] = {o.code: o for o in OUTCOME_TABLE}


# ---------------------------------------------------------------- derived forms


def field_rows() -> list[dict[str, Any]]:
    """The table as JSON rows, for the boot JSON, the template and tables.js."""
    rows = []
    for f in FIELDS:
        row: dict[str, Any] = {
            "name": f.name,
            "kind": f.kind,
            "label": f.label,
            "help": f.help,
            "unit": f.unit,
            "control": f.control,
            "default": f.default,
        }
        if f.minimum is not None:
            row |= {"min": f.minimum, "max": f.maximum, "step": f.step}
        if f.choices:
            row["choices"] = [list(choice) for choice in f.choices]
        if f.choices_from:
            row["choicesFrom"] = f.choices_from
        if f.kind == "text":
            row["maxLength"] = f.max_length
        if f.replaces:
            row |= {"replaces": f.replaces, "option": f.option}
        if f.shown_with:
            other, value = f.shown_with
            row["shownWith"] = [other, value if isinstance(value, str) else list(value)]
        if f.presets:
            row["presets"] = [{"label": p.label, "note": p.note, "values": dict(p.values)} for p in f.presets]
        rows.append(row)
    return rows


def outcome_rows() -> list[dict[str, Any]]:
    return [
        {"code": o.code, "stage": o.stage, "label": o.label, "glyph": o.glyph, "tone": o.tone} for o in OUTCOME_TABLE
    ]


def policy_schema() -> dict[str, Any]:
    """The JSON Schema of a policy object, as fixtures/store.schema.json must declare it."""
    properties: dict[str, Any] = {}
    for f in FIELDS:
        spec: dict[str, Any] = {"description": f.describe()[:1].upper() + f.describe()[1:] + "."}
        if f.kind == "bool":
            spec["type"] = "boolean"
        elif f.kind == "choice" and f.choices:
            spec["enum"] = list(f.values)
        elif f.kind == "choice":
            spec["type"] = "string"
        elif f.kind == "text":
            spec |= {"type": "string", "maxLength": f.max_length}
        else:
            spec |= {"type": "integer" if f.kind == "int" else "number", "minimum": f.minimum, "maximum": f.maximum}
        properties[f.name] = spec
    return {
        "description": "The policy fields, spelled as on the command line and in page links. All optional.",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }


_JS_TYPES = {"choice": "string", "bool": "boolean", "number": "number", "int": "number", "text": "string"}


def _js_type(field: Field) -> str:
    """A field's JSDoc type: a choice among fixed values is one of them."""
    if field.kind == "choice" and field.choices:
        return " | ".join(json.dumps(value) for value, _ in field.choices)
    return _JS_TYPES[field.kind]


def tables_js() -> str:
    """site/js/core/tables.js: the two tables, the store format, the Policy type and the swept fields, for the page and Node."""
    typedef = "\n".join(f" * @property {{{_js_type(f)}}} {f.name}  {f.label}" for f in FIELDS)
    dump = json.dumps
    return (
        "// Generated from engine/fields.py by `python build.py --write-tables`; do not edit.\n"
        "// The build writes dist/js/tables.js afresh; tests/test_fields.py checks this copy.\n\n"
        "/**\n * @typedef {object} Policy\n" + typedef + "\n */\n\n"
        "/** @type {readonly import('./state.js').FieldRow[]} */\n"
        f"export const FIELD_TABLE = Object.freeze({dump(field_rows(), ensure_ascii=False, indent=2)});\n\n"
        f"/** The parts of the page a guided step can show. */\nexport const GUIDE_PARTS = Object.freeze({dump(GUIDE_PARTS, ensure_ascii=False)});\n\n"
        "/** @type {Readonly<Record<string, {code: string, stage: number, label: string, glyph: string, tone: string}>>} */\n"
        "export const OUTCOME_TABLE = Object.freeze({\n"
        + "".join(f"  {o['code']}: {dump(o, ensure_ascii=False)},\n" for o in outcome_rows())
        + "});\n\n"
        "/** The store format: each object's fields, for the store editor's forms. */\n"
        f"export const STORE_FORMAT = Object.freeze({dump(format_rows(), ensure_ascii=False, indent=2)});\n\n"
        "/** The policy fields the scoreboard's sweep can vary (SWEPT). */\n"
        "/** @type {readonly (keyof Policy)[]} */\n"
        f"export const SWEPT = Object.freeze({dump(list(SWEPT))});\n"
    )

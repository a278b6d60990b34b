"""The data the engine works on, as frozen dataclasses: records, stores and policies.

``parse.py`` makes them from untrusted JSON, checking every value first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .fields import FIELDS_BY_NAME

STORE_CHOICES: tuple[str, ...] = FIELDS_BY_NAME["store"].values


@dataclass(frozen=True)
class Tenant:
    id: str
    label: str


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    supporting: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Record:
    id: str
    tenant: str
    store: str
    session: str
    age_hours: float
    key: str | None
    text: str
    # How many hours ago the fact became true in the world: its age unless the store says.
    true_since_hours: float
    # Absent from a store file: 5, the middle of the scale (store_format.RECORD's row).
    importance: int = 5


@dataclass(frozen=True)
class Store:
    title: str
    description: str
    tenants: tuple[Tenant, ...]
    questions: tuple[Question, ...]
    records: tuple[Record, ...]
    guides: tuple[dict[str, Any], ...] = field(default=())

    def tenant_label(self, tenant_id: str) -> str:
        for tenant in self.tenants:
            if tenant.id == tenant_id:
                return tenant.label
        return tenant_id

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(question_id)


@dataclass(frozen=True)
class Policy:
    """A valid policy: one attribute per row of ``fields.FIELDS``, in table order."""

    question: str
    tenant: str
    store: str
    previous_sessions: bool
    max_age_hours: float
    latest_per_key: bool
    as_of_hours: float
    latest_by: str
    scorer: str
    bm25_k1: float
    bm25_b: float
    min_similarity: float
    rrf_k: int
    blend: str
    recency_weight: float
    ga_decay: float
    ga_recency_weight: float
    ga_importance_weight: float
    ga_relevance_weight: float
    budget_words: int
    max_records: int
    mmr_lambda: float
    question_text: str

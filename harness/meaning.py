"""The embedding's numbers worked out plainly, on floats, for the tests to hold the engine's
integer paths against: a cosine, its parts per question token, a record's closest tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.embedding import Embedded, Near, StaticEmbedding
from engine.floats import dot, norm
from engine.wordpiece import Piece


@dataclass(frozen=True, slots=True)
class Part:
    """One question token's share of the cosine."""

    piece: Piece
    contribution: float


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors; 0 when either is all zeros."""
    length = norm(a) * norm(b)
    return dot(a, b) / length if length else 0.0


def parts(embedding: StaticEmbedding, question: str | Embedded, record_vector: Sequence[float]) -> tuple[Part, ...]:
    """Each question token's share of the cosine with a record: ``v_i · d / (‖Σ v_j‖ ‖d‖)``.

    The shares add up to ``cosine(question vector, record_vector)`` (all zeros when either
    side has no vector). A token asked twice has two parts.
    """
    asked = embedding.embed(question) if isinstance(question, str) else question
    length = asked.total_length * norm(record_vector)
    if not length:
        return tuple(Part(piece, 0.0) for piece in asked.pieces)
    return tuple(Part(piece, dot(embedding.vector(piece.id), record_vector) / length) for piece in asked.pieces)


def closest_tokens(
    embedding: StaticEmbedding, question_token_id: int, record_token_ids: Sequence[int], k: int
) -> tuple[Near, ...]:
    """The record's ``k`` tokens most similar to a question token, most similar first (ties: lower id)."""
    scored = [
        Near(other, embedding.token(other), embedding.token_cosine(question_token_id, other))
        for other in set(record_token_ids)
    ]
    scored.sort(key=lambda near: (-near.cosine, near.id))
    return tuple(scored[:k])

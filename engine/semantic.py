"""The embedding scorer's reading of a store and of a question: each record's tokens added up
once, the question's similarity with every record taken apart token by token, the record
tokens closest to each question token, and each question token's neighbours.

For a question whose distinct tokens ``t`` (each ``c_t`` times, vector ``v_t``) add up to
``Σv = Σ_t c_t v_t``, and a record's unit vector ``d``::

    similarity = cos(q, d) = Σ_t contribution_t,   contribution_t = c_t (v_t · d) / ‖Σv‖

which is the cosine of model2vec's question vector with the record's (``embedding.py``).
A question with no known token (``‖Σv‖ = 0``) has similarity 0 with every record.

The store's map (``plane.py``) is found once per store; the question is placed on it by the
same projection, so asking another question moves only the question's point. ``read`` is
the embedding scorer as an answer reads it (engine/scorers.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .embedding import Near, StaticEmbedding
from .floats import dot
from .model import Policy
from .packing import PackedRecords
from .plane import Plane, principal_plane, sampled
from .reading import Negation, negation_piece_claims, piece_claims
from .scope import Exclusion
from .scoring import AnyScoring, Asking, First, Scoring
from .shapes import EmbeddingPart, ReadingClaim

# Neighbours shown per question token, and record tokens shown as closest to each.
NEIGHBOURS_SHOWN = 5
CLOSEST_SHOWN = 3


@dataclass(frozen=True)
class StoreVectors:
    """Every record's distinct token ids, its tokens added up (``packed``, with each sum's
    length ``lengths``, or as unit vectors ``units`` when the sums cannot be packed) and the
    store's map. Made once per store and set of vectors."""

    embedding: StaticEmbedding
    token_ids: tuple[tuple[int, ...], ...]
    plane: Plane
    packed: PackedRecords | None
    lengths: tuple[float, ...]
    units: tuple[tuple[float, ...], ...]


def store_vectors(embedding: StaticEmbedding, texts: Sequence[str]) -> StoreVectors:
    ids = [embedding.token_ids(text) for text in texts]
    token_ids = tuple(tuple(sorted(set(record))) for record in ids)
    picked = sampled(len(texts))
    made = PackedRecords.of(embedding.integers, ids)
    if made is None:
        units = tuple(embedding.embed(text).vector for text in texts)
        plane = principal_plane([units[i] for i in picked])
        plane = replace(plane, records=tuple(plane.place(unit) for unit in units))
        return StoreVectors(embedding, token_ids, plane, None, (), units)
    packed, sums, lengths = made
    plane = principal_plane([[x / lengths[i] if lengths[i] else 0.0 for x in sums[i]] for i in picked])
    plane = replace(plane, records=plane.place_sums(sums, lengths))
    return StoreVectors(embedding, token_ids, plane, packed, tuple(lengths), ())


@dataclass(frozen=True)
class AskedToken:
    """A distinct question token, in order of first appearance, and how often it is asked."""

    id: int
    token: str
    count: int


@dataclass(frozen=True)
class EmbeddingScores:
    """A question against every record: each record's similarity and its per-token
    contributions (in the order of ``tokens``), the question's tokens (``sequence``: every
    occurrence, in reading order, each from the characters ``spans`` of the question), the words it has no
    token for, ``‖Σv‖``, each token's neighbours and the question's place on the map.

    The closest record tokens are found on demand (``closest``) and kept here, with the
    token cosines they needed: a policy needs them only for the records it keeps in scope."""

    tokens: tuple[AskedToken, ...]
    sequence: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    unknown: tuple[str, ...]
    norm: float
    similarity: tuple[float, ...]
    contributions: tuple[tuple[float, ...], ...]
    neighbours: tuple[tuple[Near, ...], ...]
    place: tuple[float, float]
    _closest: dict[int, tuple[tuple[Near, ...], ...]] = field(default_factory=dict, repr=False, compare=False)
    _cosines: dict[tuple[int, int], float] = field(default_factory=dict, repr=False, compare=False)


def score_question_embedding(vectors: StoreVectors, text: str) -> EmbeddingScores:
    """The question's similarity with every record, split into one contribution per distinct token."""
    embedding = vectors.embedding
    asked = embedding.embed(text)
    counts: dict[int, int] = {}
    for piece in asked.pieces:
        counts[piece.id] = counts.get(piece.id, 0) + 1
    tokens = tuple(AskedToken(token_id, embedding.token(token_id), count) for token_id, count in counts.items())
    token_vectors = [list(embedding.vector(token.id)) for token in tokens]
    total = [
        math.fsum(token.count * x for token, x in zip(tokens, column, strict=True))
        for column in zip(*token_vectors, strict=True)
    ]
    norm = math.sqrt(math.fsum(x * x for x in total)) if tokens else 0.0
    contributions = list(zip(*(_contributions(vectors, token, norm) for token in tokens), strict=True))
    if not tokens:
        contributions = [() for _ in vectors.token_ids]
    similarity = [math.fsum(parts) for parts in contributions]
    question = [x / norm for x in total] if norm else [0.0] * embedding.dims
    return EmbeddingScores(
        tokens=tokens,
        sequence=tuple(embedding.token(piece.id) for piece in asked.pieces),
        spans=tuple((piece.start, piece.end) for piece in asked.pieces),
        unknown=tuple(text[piece.start : piece.end] for piece in asked.unknown),
        norm=norm,
        similarity=tuple(similarity),
        contributions=tuple(contributions),
        neighbours=tuple(embedding.neighbours(token.id)[:NEIGHBOURS_SHOWN] for token in tokens),
        place=vectors.plane.place(question),
    )


def _contributions(vectors: StoreVectors, token: AskedToken, norm: float) -> list[float]:
    """One question token's part of its cosine with every record, ``c_t (v_t · d) / ‖Σv‖``."""
    if not norm:
        return [0.0] * len(vectors.token_ids)
    packed, embedding = vectors.packed, vectors.embedding
    if packed is None:
        vector = embedding.vector(token.id)
        return [token.count * dot(vector, unit) / norm for unit in vectors.units]
    # v_t · d = multiplier_t (w_t · I_r) / (2**shift ‖I_r‖): the integer part exact, then rounded.
    weight = token.count * packed.rows.multiplier(token.id)
    scale = norm * 2.0**packed.rows.shift
    return [
        weight * dot / (length * scale) if length else 0.0
        for dot, length in zip(packed.dots(token.id), vectors.lengths, strict=True)
    ]


def closest(vectors: StoreVectors, scores: EmbeddingScores, position: int) -> tuple[tuple[Near, ...], ...]:
    """For each question token, the record's tokens most similar to it (most similar first,
    ties to the lower id), up to ``CLOSEST_SHOWN``; found once per question and record."""
    found = scores._closest.get(position)
    if found is None:
        embedding = vectors.embedding
        cosines = scores._cosines
        record_tokens = vectors.token_ids[position]
        lists = []
        for token in scores.tokens:
            near = []
            for other in record_tokens:
                pair = (token.id, other)
                value = cosines.get(pair)
                if value is None:
                    value = cosines[pair] = embedding.token_cosine(token.id, other)
                near.append((-value, other))
            near.sort()
            lists.append(tuple(Near(other, embedding.token(other), -value) for value, other in near[:CLOSEST_SHOWN]))
        found = scores._closest[position] = tuple(lists)
    return found


# ------------------------------------------------------------ the scorer, as an answer reads it


def read(asking: Asking, ranks: bool, needed: Sequence[AnyScoring]) -> Scoring[EmbeddingPart]:
    """The static embedding's reading (engine/scorers.py): the similarity clipped at 0 is the
    relevance, and a record whose similarity is under the policy's minimum is not matched.
    Its per-token parts only when it ranks, kept by terms key: the closest record tokens
    are found for the records in scope alone. The answer's question gets the question's
    tokens, the words the vocabulary lacks, ``‖Σv‖`` and the map; and it says how it reads
    the question's pieces, and what it did with a negation."""
    session, text, minimum = asking.session, asking.text, asking.policy.min_similarity
    # Every record's vector and the store's map, made the first time a policy needs them.
    vectors = session.keep("store vectors", None, lambda: store_vectors(session.embedding(), session.texts))
    meaning = session.keep("embedding", text, lambda: score_question_embedding(vectors, text))
    parts: tuple[tuple[EmbeddingPart, ...], ...] = ((),) * len(meaning.similarity)
    if ranks:
        parts = session.keep("embedding parts", asking.terms_key, lambda: _parts(vectors, meaning, asking.in_scope))
    similarity = meaning.similarity
    made: dict[float, Exclusion] = {}

    def unmatched(position: int) -> Exclusion | None:
        value = similarity[position]
        if value >= minimum:
            return None
        exclusion = made.get(value)
        if exclusion is None:
            exclusion = made[value] = below_similarity(value, minimum)
        return exclusion

    def question(policy: Policy) -> dict[str, Any]:
        plane = vectors.plane
        return {
            "tokens": [
                {
                    "token": token.token,
                    "count": token.count,
                    "neighbours": [{"token": near.token, "cosine": near.cosine} for near in neighbours],
                }
                for token, neighbours in zip(meaning.tokens, meaning.neighbours, strict=True)
            ],
            "unknown_tokens": list(meaning.unknown),
            "norm": meaning.norm,
            "map": {
                "question": list(meaning.place),
                "records": [list(place) for place in plane.records],
                "explained": list(plane.explained),
            },
        }

    def claims(negations: Sequence[Negation], first: First | None) -> list[ReadingClaim]:
        # The per-piece parts of the first record are said when the embedding ranks (hybrid's
        # are its fusion's); a negation's, from the similarity's own split, whoever ranks.
        top = None if first is None or not ranks else (first.id, similarity[first.position], parts[first.position])
        split = None
        if first is not None:
            shares = dict(zip((t.token for t in meaning.tokens), meaning.contributions[first.position], strict=True))
            split = (first.id, similarity[first.position], first.ranker, shares)
        said = piece_claims(meaning.sequence, meaning.unknown, top)
        return said + negation_piece_claims(negations, meaning.sequence, meaning.spans, split)

    relevance = tuple(max(0.0, value) for value in similarity)
    return Scoring("embedding", relevance, parts, unmatched, similarity, question, claims)


def _parts(
    vectors: StoreVectors, meaning: EmbeddingScores, in_scope: list[int]
) -> tuple[tuple[EmbeddingPart, ...], ...]:
    """Each record's parts: per question token its contribution and, for a record in
    scope, the record's tokens closest to it."""
    kept = set(in_scope)
    parts: list[tuple[EmbeddingPart, ...]] = []
    for position, contributions in enumerate(meaning.contributions):
        near = closest(vectors, meaning, position) if position in kept else None
        parts.append(
            tuple(
                {
                    "token": token.token,
                    "count": token.count,
                    "contribution": contribution,
                    "closest": [] if near is None else [{"token": n.token, "cosine": n.cosine} for n in near[i]],
                }
                for i, (token, contribution) in enumerate(zip(meaning.tokens, contributions, strict=True))
            )
        )
    return tuple(parts)


def similarity_text(value: float, minimum: float) -> tuple[str, str]:
    """The similarity and the minimum to three places, or more where three would show them equal."""
    for places in range(3, 10):
        shown, limit = f"{value:.{places}f}", f"{minimum:.{places}f}"
        if shown != limit:
            return shown, limit
    return repr(value), repr(minimum)


def below_similarity(value: float, minimum: float) -> Exclusion:
    shown, limit = similarity_text(value, minimum)
    return Exclusion(
        "below_similarity",
        f"Similarity {shown} is under the minimum {limit}, so it is excluded at any recency weight.",
    )


def likeness(asking: Asking) -> Callable[[int, int], float]:
    """The cosine of two records' embedding vectors (by store position), each vector made the
    first time a packing compares its record, and kept: how alike the embedding sees them."""
    session = asking.session
    embedding = session.embedding()
    vectors: dict[int, tuple[tuple[float, ...], float]] = session.keep("record vectors", None, dict)

    def vector(position: int) -> tuple[tuple[float, ...], float]:
        made = vectors.get(position)
        if made is None:
            unit = embedding.embed(session.texts[position]).vector
            made = vectors[position] = (unit, math.sqrt(dot(unit, unit)))
        return made

    def cosine_of(a: int, b: int) -> float:
        (first, first_length), (second, second_length) = vector(a), vector(b)
        if not first_length or not second_length:
            return 0.0
        return max(-1.0, min(1.0, dot(first, second) / (first_length * second_length)))

    return cosine_of

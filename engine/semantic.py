"""The embedding scorer's reading of a store and of a question: each record's vector, the
question's similarity with every record taken apart token by token, the record tokens
closest to each question token, each question token's neighbours, and the 2-D map.

For a question whose distinct tokens ``t`` (each ``c_t`` times, vector ``v_t``) add up to
``Σv = Σ_t c_t v_t``, and a record's unit vector ``d``::

    similarity = cos(q, d) = Σ_t contribution_t,   contribution_t = c_t (v_t · d) / ‖Σv‖

which is the cosine of model2vec's question vector with the record's (``embedding.py``).
A question with no known token (``‖Σv‖ = 0``) has similarity 0 with every record.

The map is the plane along which the records' vectors spread most (their first two
principal components), found once per store; the question is placed on it by the same
projection, so asking another question moves only the question's point.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul

from .embedding import Near, StaticEmbedding

# Neighbours shown per question token, and record tokens shown as closest to each.
NEIGHBOURS_SHOWN = 5
CLOSEST_SHOWN = 3
# Records the map's directions are found from, at most (see principal_plane).
MAP_SAMPLE = 64


# Dot products are correctly rounded (math.fsum): a plain sum() of floats is compensated
# from Python 3.12 on, so it would give CPython 3.11 and Pyodide different last bits.
def _fast_dot(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(map(mul, a, b))


@dataclass(frozen=True)
class Plane:
    """Two orthonormal directions (fewer when the records do not spread), the records' mean,
    each record's place on the plane and the share of the records' spread each axis shows."""

    mean: tuple[float, ...]
    axes: tuple[tuple[float, ...], ...]
    records: tuple[tuple[float, float], ...]
    explained: tuple[float, float]

    def place(self, vector: Sequence[float]) -> tuple[float, float]:
        """Where a vector lies on the plane (0 along a missing axis)."""
        centred = [x - m for x, m in zip(vector, self.mean, strict=True)]
        values = [_fast_dot(centred, axis) for axis in self.axes]
        values += [0.0] * (2 - len(values))
        return (values[0] + 0.0, values[1] + 0.0)


@dataclass(frozen=True)
class StoreVectors:
    """Every record's unit vector (all zeros when it has no known token) and its distinct
    token ids, and the store's map. Made once per store and set of vectors."""

    embedding: StaticEmbedding
    units: tuple[tuple[float, ...], ...]
    token_ids: tuple[tuple[int, ...], ...]
    plane: Plane


def store_vectors(embedding: StaticEmbedding, texts: Sequence[str]) -> StoreVectors:
    units: list[tuple[float, ...]] = []
    token_ids: list[tuple[int, ...]] = []
    for text in texts:
        embedded = embedding.embed(text)
        units.append(embedded.vector)
        token_ids.append(tuple(sorted({piece.id for piece in embedded.pieces})))
    return StoreVectors(embedding, tuple(units), tuple(token_ids), principal_plane(units))


@dataclass(frozen=True)
class AskedToken:
    """A distinct question token, in order of first appearance, and how often it is asked."""

    id: int
    token: str
    count: int


@dataclass(frozen=True)
class EmbeddingScores:
    """A question against every record: each record's similarity and its per-token
    contributions (in the order of ``tokens``), the question's tokens, the words it has no
    token for, ``‖Σv‖``, each token's neighbours and the question's place on the map.

    The closest record tokens are found on demand (``closest``) and kept here, with the
    token cosines they needed: a policy needs them only for the records it keeps in scope."""

    tokens: tuple[AskedToken, ...]
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
    contributions: list[tuple[float, ...]] = []
    similarity: list[float] = []
    for unit in vectors.units:
        if not norm:
            parts = tuple(0.0 for _ in tokens)
        else:
            parts = tuple(
                token.count * _fast_dot(v, unit) / norm for token, v in zip(tokens, token_vectors, strict=True)
            )
        contributions.append(parts)
        similarity.append(math.fsum(parts))
    question = [x / norm for x in total] if norm else [0.0] * embedding.dims
    return EmbeddingScores(
        tokens=tokens,
        unknown=tuple(text[piece.start : piece.end] for piece in asked.unknown),
        norm=norm,
        similarity=tuple(similarity),
        contributions=tuple(contributions),
        neighbours=tuple(embedding.neighbours(token.id)[:NEIGHBOURS_SHOWN] for token in tokens),
        place=vectors.plane.place(question),
    )


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


# ---------------------------------------------------------------- the map


def principal_plane(vectors: Sequence[Sequence[float]], iterations: int = 1000, tolerance: float = 1e-4) -> Plane:
    """The records' first two principal directions: the top eigenvectors of the centred
    vectors' ``XᵀX``, found through the smaller of ``X Xᵀ`` (records by records) and ``XᵀX``
    (dimensions by dimensions) by subspace iteration from a fixed start, then the exact
    eigenvectors within the plane found (Rayleigh-Ritz). Each axis is signed so that its
    largest coordinate (by size, first on ties) is positive.

    The plane is found to about ``tolerance`` radians (1e-4 is finer than a picture shows). A store of more
    than ``MAP_SAMPLE`` records has its directions found from that many of them, a fixed
    pseudo-random choice (every record is then placed on them, and ``explained`` is the
    share of all the records' spread): the work grows with the square of the records used,
    and a picture needs no more. A fixed start and fixed operations make it the same
    everywhere."""
    n = len(vectors)
    if n == 0:
        return Plane((), (), (), (0.0, 0.0))
    mean = tuple(math.fsum(column) / n for column in zip(*vectors, strict=True))
    # The spread about the mean, Σ‖x - m‖² = Σ‖x‖² - n‖m‖², without centring every vector.
    spread = max(0.0, math.fsum(_fast_dot(v, v) for v in vectors) - n * _fast_dot(mean, mean))
    picked = vectors if n <= MAP_SAMPLE else [vectors[i] for i in _sample(n, MAP_SAMPLE)]
    sample = [[x - m for x, m in zip(vector, mean, strict=True)] for vector in picked]
    by_records = len(sample) <= len(mean)
    space = sample if by_records else [list(column) for column in zip(*sample, strict=True)]
    matrix = [[0.0] * len(space) for _ in space]
    for i, a in enumerate(space):
        for j in range(i, len(space)):
            matrix[i][j] = matrix[j][i] = _fast_dot(a, space[j])
    axes = []
    for vector in _top_two(matrix, iterations, tolerance):
        # An eigenvector u of X Xᵀ gives the direction Xᵀu; one of XᵀX is the direction.
        axis = [_fast_dot(column, vector) for column in zip(*sample, strict=True)] if by_records else vector
        length = _norm(axis)
        if length:
            axes.append([x / length for x in axis])
    coordinates: list[list[float]] = []
    kept: list[tuple[float, ...]] = []
    explained: list[float] = []
    for axis in axes:
        offset = _fast_dot(mean, axis)
        values = [_fast_dot(vector, axis) - offset for vector in vectors]
        variance = math.fsum(v * v for v in values)
        if not spread or variance <= 1e-12 * spread:
            continue
        largest = max(range(n), key=lambda i: (abs(values[i]), -i))
        if values[largest] < 0:
            values = [-v for v in values]
            axis = [-a for a in axis]
        coordinates.append(values)
        kept.append(tuple(axis))
        explained.append(variance / spread)
    while len(coordinates) < 2:
        coordinates.append([0.0] * n)
        explained.append(0.0)
    records = tuple((x + 0.0, y + 0.0) for x, y in zip(coordinates[0], coordinates[1], strict=True))
    return Plane(mean, tuple(kept), records, (explained[0], explained[1]))


def _sample(n: int, size: int) -> list[int]:
    """``size`` of the positions 0..n-1, in order, chosen by a fixed integer hash (splitmix64's
    mixing): like a random sample, so no pattern repeating along the store can fool it, yet
    the same in every Python."""
    return sorted(sorted(range(n), key=_mix)[:size])


def _mix(i: int) -> int:
    z = (i + 1) * 0x9E3779B97F4A7C15 % 2**64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 % 2**64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB % 2**64
    return z ^ (z >> 31)


def _norm(v: Sequence[float]) -> float:
    return math.sqrt(_fast_dot(v, v))


def _minus_projection(v: list[float], basis: list[list[float]]) -> list[float]:
    for b in basis:
        along = _fast_dot(v, b)
        v = [x - along * y for x, y in zip(v, b, strict=True)]
    return v


def _orthonormal(candidates: list[list[float]]) -> list[list[float]]:
    """Up to two orthonormal vectors from the candidates in turn (Gram-Schmidt, twice for
    accuracy), skipping any that adds no new direction."""
    basis: list[list[float]] = []
    scale = max((_norm(v) for v in candidates), default=0.0)
    for v in candidates:
        if len(basis) == 2 or not scale:
            break
        w = _minus_projection(_minus_projection(v, basis), basis)
        length = _norm(w)
        if length > 1e-10 * scale:
            basis.append([x / length for x in w])
    return basis


def _top_two(matrix: list[list[float]], iterations: int, tolerance: float) -> list[list[float]]:
    """Unit eigenvectors of the two largest eigenvalues of a symmetric positive
    semi-definite matrix (fewer when it has fewer directions), the larger first.

    Subspace iteration on two vectors started from the matrix's longest columns; the
    plane converges at the ratio of the third eigenvalue to the second, whatever the first
    two are. Then the eigenvectors of the 2x2 matrix the plane sees."""
    lengths = [_norm(column) for column in matrix]
    order = sorted(range(len(matrix)), key=lambda i: (-lengths[i], i))
    basis = _orthonormal([matrix[i] for i in order])
    for _ in range(iterations if len(basis) == 2 else 0):
        pulled = _orthonormal([[_fast_dot(row, b) for row in matrix] for b in basis])
        if len(pulled) < 2:
            break
        moved = max(_norm(_minus_projection(p, basis)) for p in pulled)
        basis = pulled
        if moved < tolerance:
            break
    if len(basis) < 2:
        return basis
    images = [[_fast_dot(row, b) for row in matrix] for b in basis]
    a, b, c = _fast_dot(basis[0], images[0]), _fast_dot(basis[0], images[1]), _fast_dot(basis[1], images[1])
    middle, half = (a + c) / 2, math.hypot((a - c) / 2, b)
    vectors = []
    for value in (middle + half, middle - half):
        # An eigenvector of [[a, b], [b, c]] for this value, in the plane's coordinates.
        p, q = (b, value - a) if abs(value - a) >= abs(value - c) else (value - c, b)
        if p == 0.0 and q == 0.0:
            p, q = (1.0, 0.0) if value == middle + half else (0.0, 1.0)
        r = math.hypot(p, q)
        vectors.append([(p * x + q * y) / r for x, y in zip(basis[0], basis[1], strict=True)])
    return vectors

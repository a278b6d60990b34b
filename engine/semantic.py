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
from dataclasses import dataclass, field, replace
from operator import mul

from .embedding import PLUS_128, Near, StaticEmbedding, dot, little_endian_array
from .embedding import norm as vector_norm

# Neighbours shown per question token, and record tokens shown as closest to each.
NEIGHBOURS_SHOWN = 5
CLOSEST_SHOWN = 3
# Records the map's directions are found from, at most (see store_vectors).
MAP_SAMPLE = 64


@dataclass(frozen=True)
class Plane:
    """Two orthonormal directions (fewer when the records do not spread), the mean of the
    records they were found from (a sample of a large store's), each record's place on the
    plane and the share of those records' spread each axis shows."""

    mean: tuple[float, ...]
    axes: tuple[tuple[float, ...], ...]
    records: tuple[tuple[float, float], ...]
    explained: tuple[float, float]

    @property
    def offsets(self) -> list[float]:
        """Where the mean lies along each axis: a vector's place is its dot product minus this."""
        return [dot(self.mean, axis) for axis in self.axes]

    def place(self, vector: Sequence[float]) -> tuple[float, float]:
        """Where a vector lies on the plane (0 along a missing axis)."""
        centred = [x - m for x, m in zip(vector, self.mean, strict=True)]
        return _pair([dot(centred, axis) for axis in self.axes])

    def place_sums(self, sums: Sequence[Sequence[int]], lengths: Sequence[float]) -> tuple[tuple[float, float], ...]:
        """Where each unit vector ``sums[r] / lengths[r]`` lies (the mean when the length is 0),
        without dividing every component: ``(sums · axis) / length - mean · axis``."""
        offsets = self.offsets
        return tuple(
            _pair(
                [
                    (dot(row, axis) / length if length else 0.0) - offset
                    for axis, offset in zip(self.axes, offsets, strict=True)
                ]
            )
            for row, length in zip(sums, lengths, strict=True)
        )


def _pair(values: list[float]) -> tuple[float, float]:
    """Two coordinates, 0 along a missing axis (and never -0.0)."""
    values += [0.0] * (2 - len(values))
    return (values[0] + 0.0, values[1] + 0.0)


class PackedRecords:
    """Every record's tokens added up exactly, kept so that one question token's dot product
    with every record takes ``dims`` integer multiply-adds rather than one float dot product
    per record.

    Record ``r``'s sum is held as integers, ``fields[r][k] = I_r[k] + bias_r``, ``I_r`` its
    exact sum times ``2**shift`` and ``bias_r`` large enough that no field is negative
    (``StaticEmbedding.packed_sum``). ``columns[k]`` packs dimension ``k`` of every record, a
    64-bit field per record, so for a token with int8 row ``w``, ``Σ_k (w_k + 128) ·
    columns[k]`` packs ``Σ_k (w_k + 128) · fields[r][k]`` for every record at once, and::

        w · I_r = packed_r - bias_r · Σ_k w_k - 128 · Σ_k fields[r][k]
    """

    def __init__(self, embedding: StaticEmbedding, columns: list[int], biases: list[int], totals: list[int]) -> None:
        self.embedding = embedding
        self.columns = columns
        self.biases = biases
        self.field_totals = totals

    @classmethod
    def of(
        cls, embedding: StaticEmbedding, ids: Sequence[Sequence[int]]
    ) -> tuple[PackedRecords, list[list[int]], list[float]] | None:
        """The records with these token ids packed, with each record's ``I_r`` and ``‖I_r‖``;
        None when a record's sum, or a packed product, could reach 2**64 in a field."""
        dims = embedding.dims
        raw = bytearray()
        biases = []
        rows: dict[int, int] = {}
        for record in ids:
            packed = embedding.packed_sum(record, rows)
            if packed is None:
                return None
            raw += packed.total.to_bytes(8 * dims, "little")
            biases.append(128 * packed.weight)
        n = len(biases)
        # Dimension k of every record: every dims-th 8-byte field, its bytes as they are (little-endian).
        by_field = memoryview(raw).cast("Q")
        columns = [int.from_bytes(by_field[k::dims].tobytes(), "little") for k in range(dims)]
        # Each record's fields added up, all records at once: no record's total can carry into
        # the next while 255 times it stays under 2**64, the bound the dot products need.
        if n and max(biases) * 2 * dims * 255 >= 2**64:
            return None
        totals = list(little_endian_array("Q", sum(columns).to_bytes(8 * n, "little")))
        fields = little_endian_array("Q", bytes(raw))
        sums = [[x - bias for x in fields[r * dims : (r + 1) * dims]] for r, bias in enumerate(biases)]
        # Exact integers, rounded once: the same length in every Python.
        lengths = [math.sqrt(sum(map(mul, row, row))) for row in sums]
        return cls(embedding, columns, biases, totals), sums, lengths

    def dots(self, token_id: int) -> list[int]:
        """The token's int8 row dotted with every record's ``I_r``, exactly."""
        row = self.embedding.row(token_id)
        packed = sum(map(mul, row.tobytes().translate(PLUS_128), self.columns))
        products = little_endian_array("Q", packed.to_bytes(8 * len(self.biases), "little"))
        row_total = sum(row)
        return [
            product - bias * row_total - 128 * total
            for product, bias, total in zip(products, self.biases, self.field_totals, strict=True)
        ]


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
    # The map's directions come from at most MAP_SAMPLE records, a fixed pseudo-random choice:
    # the work grows with the square of the records used, and a picture needs no more.
    n = len(texts)
    picked = range(n) if n <= MAP_SAMPLE else _sample(n, MAP_SAMPLE)
    made = PackedRecords.of(embedding, ids)
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
    occurrence, in reading order), the words it has no
    token for, ``‖Σv‖``, each token's neighbours and the question's place on the map.

    The closest record tokens are found on demand (``closest``) and kept here, with the
    token cosines they needed: a policy needs them only for the records it keeps in scope."""

    tokens: tuple[AskedToken, ...]
    sequence: tuple[str, ...]
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
    weight = token.count * embedding.multiplier(token.id)
    scale = norm * 2.0**embedding.shift
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


# ---------------------------------------------------------------- the map


def principal_plane(vectors: Sequence[Sequence[float]], iterations: int = 1000, tolerance: float = 1e-4) -> Plane:
    """The vectors' first two principal directions: the top eigenvectors of the centred
    vectors' ``XᵀX``, found through the smaller of ``X Xᵀ`` (vectors by vectors) and ``XᵀX``
    (dimensions by dimensions) by subspace iteration from a fixed start, then the exact
    eigenvectors within the plane found (Rayleigh-Ritz). Each axis is signed so that its
    largest coordinate (by size, first on ties) is positive.

    The plane is found to about ``tolerance`` radians (1e-4 is finer than a picture shows).
    A fixed start and fixed operations make it the same everywhere."""
    n = len(vectors)
    if n == 0:
        return Plane((), (), (), (0.0, 0.0))
    mean = tuple(math.fsum(column) / n for column in zip(*vectors, strict=True))
    # The spread about the mean, Σ‖x - m‖² = Σ‖x‖² - n‖m‖², without centring every vector.
    spread = max(0.0, math.fsum(dot(v, v) for v in vectors) - n * dot(mean, mean))
    sample = [[x - m for x, m in zip(vector, mean, strict=True)] for vector in vectors]
    by_records = len(sample) <= len(mean)
    space = sample if by_records else [list(column) for column in zip(*sample, strict=True)]
    matrix = [[0.0] * len(space) for _ in space]
    for i, a in enumerate(space):
        for j in range(i, len(space)):
            matrix[i][j] = matrix[j][i] = dot(a, space[j])
    axes = []
    for vector in _top_two(matrix, iterations, tolerance):
        # An eigenvector u of X Xᵀ gives the direction Xᵀu; one of XᵀX is the direction.
        axis = [dot(column, vector) for column in zip(*sample, strict=True)] if by_records else vector
        length = vector_norm(axis)
        if length:
            axes.append([x / length for x in axis])
    coordinates: list[list[float]] = []
    kept: list[tuple[float, ...]] = []
    explained: list[float] = []
    for axis in axes:
        offset = dot(mean, axis)
        values = [dot(vector, axis) - offset for vector in vectors]
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


def _minus_projection(v: list[float], basis: list[list[float]]) -> list[float]:
    for b in basis:
        along = dot(v, b)
        v = [x - along * y for x, y in zip(v, b, strict=True)]
    return v


def _orthonormal(candidates: list[list[float]]) -> list[list[float]]:
    """Up to two orthonormal vectors from the candidates in turn (Gram-Schmidt, twice for
    accuracy), skipping any that adds no new direction."""
    basis: list[list[float]] = []
    scale = max((vector_norm(v) for v in candidates), default=0.0)
    for v in candidates:
        if len(basis) == 2 or not scale:
            break
        w = _minus_projection(_minus_projection(v, basis), basis)
        length = vector_norm(w)
        if length > 1e-10 * scale:
            basis.append([x / length for x in w])
    return basis


def _top_two(matrix: list[list[float]], iterations: int, tolerance: float) -> list[list[float]]:
    """Unit eigenvectors of the two largest eigenvalues of a symmetric positive
    semi-definite matrix (fewer when it has fewer directions), the larger first.

    Subspace iteration on two vectors started from the matrix's longest columns; the
    plane converges at the ratio of the third eigenvalue to the second, whatever the first
    two are. Then the eigenvectors of the 2x2 matrix the plane sees."""
    lengths = [vector_norm(column) for column in matrix]
    order = sorted(range(len(matrix)), key=lambda i: (-lengths[i], i))
    basis = _orthonormal([matrix[i] for i in order])
    for _ in range(iterations if len(basis) == 2 else 0):
        pulled = _orthonormal([[dot(row, b) for row in matrix] for b in basis])
        if len(pulled) < 2:
            break
        moved = max(vector_norm(_minus_projection(p, basis)) for p in pulled)
        basis = pulled
        if moved < tolerance:
            break
    if len(basis) < 2:
        return basis
    images = [[dot(row, b) for row in matrix] for b in basis]
    a, b, c = dot(basis[0], images[0]), dot(basis[0], images[1]), dot(basis[1], images[1])
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

"""The embedding's 2-D map: the plane along which the records' vectors spread most (their first
two principal components), found once per store from a fixed sample of them, and where a
vector lies on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .floats import dot, norm

# Records the map's directions are found from, at most (see sampled).
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
        length = norm(axis)
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


def sampled(n: int) -> Sequence[int]:
    """The positions, in order, of the records of a store of ``n`` that the map's directions are
    found from: every one, or MAP_SAMPLE of them (the work grows with the square of the records
    used, and a picture needs no more) chosen by a fixed integer hash (splitmix64's mixing):
    like a random sample, so no pattern repeating along the store can fool it, yet the same in
    every Python."""
    return range(n) if n <= MAP_SAMPLE else sorted(sorted(range(n), key=_mix)[:MAP_SAMPLE])


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
    scale = max((norm(v) for v in candidates), default=0.0)
    for v in candidates:
        if len(basis) == 2 or not scale:
            break
        w = _minus_projection(_minus_projection(v, basis), basis)
        length = norm(w)
        if length > 1e-10 * scale:
            basis.append([x / length for x in w])
    return basis


def _top_two(matrix: list[list[float]], iterations: int, tolerance: float) -> list[list[float]]:
    """Unit eigenvectors of the two largest eigenvalues of a symmetric positive
    semi-definite matrix (fewer when it has fewer directions), the larger first.

    Subspace iteration on two vectors started from the matrix's longest columns; the
    plane converges at the ratio of the third eigenvalue to the second, whatever the first
    two are. Then the eigenvectors of the 2x2 matrix the plane sees."""
    lengths = [norm(column) for column in matrix]
    order = sorted(range(len(matrix)), key=lambda i: (-lengths[i], i))
    basis = _orthonormal([matrix[i] for i in order])
    for _ in range(iterations if len(basis) == 2 else 0):
        pulled = _orthonormal([[dot(row, b) for row in matrix] for b in basis])
        if len(pulled) < 2:
            break
        moved = max(norm(_minus_projection(p, basis)) for p in pulled)
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

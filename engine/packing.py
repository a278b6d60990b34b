"""Whole-number arithmetic on int8 rows: each row's float32 scale as a whole multiplier, texts'
rows added up exactly in the 64-bit fields of one Python integer, and one row's dot product
with every record's sum at once."""

from __future__ import annotations

import math
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import mul
from typing import Any

# An int8 byte's value plus 128, as an unsigned byte.
PLUS_128 = bytes((b + 128) % 256 for b in range(256))


def little_endian_array(code: str, data: bytes | bytearray) -> array[Any]:
    """The little-endian numbers in ``data``, in the machine's order."""
    values = array(code)
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


@dataclass(frozen=True, slots=True)
class PackedSum:
    """Texts' token vectors added up exactly (``IntegerRows.packed_sum``)."""

    total: int
    weight: int

    def integers(self, dims: int) -> list[int]:
        """The sum times ``2**shift``, one whole number per dimension."""
        bias = 128 * self.weight
        return [field - bias for field in little_endian_array("Q", self.total.to_bytes(8 * dims, "little"))]


class IntegerRows:
    """int8 rows with float32 scales, held so that sums of rows are whole numbers: a float32 has
    a 24-bit mantissa, so every scale times ``2**shift`` is a whole ``multiplier`` and row
    ``i``'s vector is ``row(i) · multiplier(i) / 2**shift`` exactly."""

    def __init__(self, rows: memoryview, dims: int, scales: Sequence[float]) -> None:
        self.dims = dims
        self._rows = rows
        self.shift: int = 24 - min((math.frexp(scale)[1] for scale in scales if scale), default=24)
        unit = 2.0**self.shift
        # The packed sums need multipliers of one sign; a file with a negative scale adds with fsum.
        self._packable = min(scales, default=0.0) >= 0
        self._largest_multiplier = int(max(scales, default=0.0) * unit)
        # Held as machine integers when they fit (a tenth of the memory of Python's ints), made
        # one at a time: Python's memory in the page's worker keeps its high-water mark.
        multipliers = (int(scale * unit) for scale in scales)
        fits = int(max(map(abs, scales), default=0.0) * unit) < 2**63
        self._multipliers: Sequence[int] = array("q", multipliers) if fits else list(multipliers)
        self._squares: dict[int, int] = {}

    def row(self, token_id: int) -> memoryview:
        """The token's int8 row, as the file holds it."""
        start = token_id * self.dims
        return self._rows[start : start + self.dims].cast("b")

    def multiplier(self, token_id: int) -> int:
        """The token's scale times ``2**shift``, a whole number."""
        return self._multipliers[token_id]

    def dot(self, a: int, b: int) -> int:
        """Two tokens' int8 rows dotted, exactly."""
        product: int = sum(map(mul, self.row(a), self.row(b)))
        return product

    def square(self, token_id: int) -> int:
        """The token's int8 row dotted with itself, worked out once."""
        square = self._squares.get(token_id)
        if square is None:
            square = self._squares[token_id] = self.dot(token_id, token_id)
        return square

    def packed_sum(self, ids: Sequence[int], rows: dict[int, int] | None = None) -> PackedSum | None:
        """Σ of the tokens' vectors held exactly: one integer with a 64-bit field per dimension,
        little-endian, each ``Σ count · multiplier · (row + 128)``, and ``weight = Σ count ·
        multiplier``. A dimension's sum is ``(field - 128 · weight) / 2**shift``, exact.
        ``rows`` keeps each token's packed row for the next call (a store's texts share words).

        None when a field could reach 2**64, or a scale is negative (its fields could be)."""
        if not self._packable or len(ids) * 255 * self._largest_multiplier >= 2**64:
            return None
        multipliers = self._multipliers
        packed_rows = {} if rows is None else rows
        total = weight = 0
        # A token repeated (the, of, a full stop) is packed once; the total is exact in any order.
        for token_id, count in Counter(ids).items():
            packed = packed_rows.get(token_id)
            if packed is None:
                fields = bytearray(8 * self.dims)
                fields[::8] = self.row(token_id).tobytes().translate(PLUS_128)
                packed = packed_rows[token_id] = int.from_bytes(fields, "little")
            total += count * multipliers[token_id] * packed
            weight += count * multipliers[token_id]
        return PackedSum(total, weight)

    def sums(self, ids: Sequence[int]) -> list[float] | None:
        """Σ of the tokens' vectors, each component the exact sum rounded once; None when
        they cannot be packed (``packed_sum``)."""
        packed = self.packed_sum(ids)
        if packed is None:
            return None
        unit = 2.0**-self.shift
        return [x * unit for x in packed.integers(self.dims)]


class PackedRecords:
    """Every record's tokens added up exactly, kept so that one question token's dot product
    with every record takes ``dims`` integer multiply-adds rather than one float dot product
    per record.

    Record ``r``'s sum is held as integers, ``fields[r][k] = I_r[k] + bias_r``, ``I_r`` its
    exact sum times ``2**shift`` and ``bias_r`` large enough that no field is negative
    (``IntegerRows.packed_sum``). ``columns[k]`` packs dimension ``k`` of every record, a
    64-bit field per record, so for a token with int8 row ``w``, ``Σ_k (w_k + 128) ·
    columns[k]`` packs ``Σ_k (w_k + 128) · fields[r][k]`` for every record at once, and::

        w · I_r = packed_r - bias_r · Σ_k w_k - 128 · Σ_k fields[r][k]
    """

    def __init__(self, rows: IntegerRows, columns: list[int], biases: list[int], totals: list[int]) -> None:
        self.rows = rows
        self.columns = columns
        self.biases = biases
        self.field_totals = totals

    @classmethod
    def of(
        cls, rows: IntegerRows, ids: Sequence[Sequence[int]]
    ) -> tuple[PackedRecords, list[list[int]], list[float]] | None:
        """The records with these token ids packed, with each record's ``I_r`` and ``‖I_r‖``;
        None when a record's sum, or a packed product, could reach 2**64 in a field."""
        dims = rows.dims
        raw = bytearray()
        biases = []
        sums = []
        packed_rows: dict[int, int] = {}
        for record in ids:
            packed = rows.packed_sum(record, packed_rows)
            if packed is None:
                return None
            raw += packed.total.to_bytes(8 * dims, "little")
            biases.append(128 * packed.weight)
            sums.append(packed.integers(dims))
        n = len(biases)
        # Dimension k of every record: every dims-th 8-byte field, its bytes as they are (little-endian).
        by_field = memoryview(raw).cast("Q")
        columns = [int.from_bytes(by_field[k::dims].tobytes(), "little") for k in range(dims)]
        # Each record's fields added up, all records at once: no record's total can carry into
        # the next while 255 times it stays under 2**64, the bound the dot products need.
        if n and max(biases) * 2 * dims * 255 >= 2**64:
            return None
        totals = list(little_endian_array("Q", sum(columns).to_bytes(8 * n, "little")))
        # Exact integers, rounded once: the same length in every Python.
        lengths = [math.sqrt(sum(map(mul, row, row))) for row in sums]
        return cls(rows, columns, biases, totals), sums, lengths

    def dots(self, token_id: int) -> list[int]:
        """The token's int8 row dotted with every record's ``I_r``, exactly."""
        row = self.rows.row(token_id)
        packed = sum(map(mul, row.tobytes().translate(PLUS_128), self.columns))
        products = little_endian_array("Q", packed.to_bytes(8 * len(self.biases), "little"))
        row_total = sum(row)
        return [
            product - bias * row_total - 128 * total
            for product, bias, total in zip(products, self.biases, self.field_totals, strict=True)
        ]

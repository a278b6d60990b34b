"""Dot products and lengths of float vectors, correctly rounded, so that every Python gives
them the same last bits."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul


# math.fsum rather than sum(): a plain sum() of floats is compensated from Python 3.12 on,
# so it would give CPython 3.11 and Pyodide different last bits.
def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(map(mul, a, b))


def norm(a: Sequence[float]) -> float:
    return math.sqrt(dot(a, a))

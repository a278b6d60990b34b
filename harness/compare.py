"""The one comparator for engine results from two runtimes: exact on ids, order, codes
and reasons, close on floats (libm's last bit may differ between CPython and wasm)."""

from __future__ import annotations

import math
from typing import Any


def assert_same_result(got: Any, want: Any, path: str = "result") -> None:
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{path}: {got!r} is not a number"
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), f"{path}: {got!r} != {want!r}"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{path}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_result(got[key], want[key], f"{path}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for index, (a, b) in enumerate(zip(got, want, strict=True)):
            assert_same_result(a, b, f"{path}[{index}]")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"

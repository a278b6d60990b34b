"""How the benchmarks summarise what they measured: milliseconds to a tenth, the 90th
percentile, a series of latencies, and a figure's median with its range over the runs."""

from __future__ import annotations

import statistics


def ms(value: float) -> float:
    """A time in ms, to a tenth of one."""
    return round(value, 1)


def p90(values: list[float]) -> float:
    """The 90th percentile, interpolated between the measured values."""
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def spread(values: list[float], digits: int | None = 1) -> dict[str, float]:
    """The median, least and greatest of values, each rounded to digits (None: as they are)."""
    figures = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    if digits is None:
        return figures
    return {name: round(value, digits) for name, value in figures.items()}


def latencies(values: list[float]) -> dict[str, float]:
    """A series of times in ms: its median, 90th percentile and greatest, each to a tenth."""
    return {"median": ms(statistics.median(values)), "p90": ms(p90(values)), "max": ms(max(values))}

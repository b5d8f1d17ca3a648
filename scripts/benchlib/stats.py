"""Percentiles, and a figure summarised over several runs: median, min and max."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks; nan for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass
class Runs:
    """One figure measured once per run; reported as the median with its min-max."""

    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.values.append(value)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else float("nan")

    @property
    def lo(self) -> float:
        return min(self.values) if self.values else float("nan")

    @property
    def hi(self) -> float:
        return max(self.values) if self.values else float("nan")


def ratios(a: Runs, b: Runs) -> Runs:
    """Per-run ratio b/a of two interleaved series (run i of each was taken side by side)."""
    return Runs([y / x for x, y in zip(a.values, b.values, strict=False) if x > 0])

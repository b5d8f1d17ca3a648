"""Percentiles, and a figure summarised over several runs.

A latency percentile is taken over every sample of every run pooled together
(`Pooled`): the median of per-run p99s hides exactly the tail a p99 is for. Other
figures (a throughput, a ratio) are one value per run, reported as the median with
the min-max of runs."""

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


@dataclass
class Pooled:
    """Latency samples kept per run; percentiles over all of them at once."""

    runs: list[list[float]] = field(default_factory=list)

    def add_run(self, samples: list[float]) -> None:
        self.runs.append(samples)

    @property
    def samples(self) -> list[float]:
        return [x for run in self.runs for x in run]

    def pct(self, q: float) -> float:
        return pct(self.samples, q)

    def per_run(self, q: float) -> Runs:
        """The same percentile of each run alone: its spread is shown beside the pooled one."""
        return Runs([pct(run, q) for run in self.runs if run])

    def __len__(self) -> int:
        return sum(len(run) for run in self.runs)

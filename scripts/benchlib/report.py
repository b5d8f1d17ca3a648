"""The results: rows of one markdown table (value, min-max over runs, target, verdict),
and the same with every run's raw figure as JSON.

A row's value is a percentile over every run's samples pooled when it has one
(`pooled`), else the median of its runs. Rows that go against us stay in the table."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib.stats import Runs


@dataclass
class Target:
    op: str  # "<=" or ">="
    value: float

    def met(self, x: float) -> bool:
        return x <= self.value if self.op == "<=" else x >= self.value

    def text(self, unit: str) -> str:
        sign = "≤" if self.op == "<=" else "≥"
        return f"{sign} {_num(self.value)}{_unit(unit)}"

    def verdict(self, x: float, unit: str) -> str:
        if math.isnan(x):
            return "not measured"
        if self.met(x):
            # the headroom too: a target met by 2% is one bad day from missed
            return f"met ({x / self.value - 1:+.0%})" if self.value else "met"
        if self.op == "<=":
            return f"**missed** by {_num(x - self.value)}{_unit(unit)} ({x / self.value - 1:+.0%})"
        return f"**missed** by {_num(self.value - x)}{_unit(unit)} ({x / self.value - 1:+.0%})"


@dataclass
class Row:
    section: str
    measure: str
    n: str
    runs: Runs
    unit: str
    target: Target | None = None
    note: str = ""
    pooled: float | None = None  # a percentile over all runs' samples: the value when set

    @property
    def value(self) -> float:
        return self.runs.median if self.pooled is None else self.pooled

    def cells(self) -> list[str]:
        spread = (
            f"{_num(self.runs.lo)}–{_num(self.runs.hi)}" if len(self.runs.values) > 1 else "1 run"
        )
        target = self.target.text(self.unit) if self.target else ""
        verdict = self.target.verdict(self.value, self.unit) if self.target else ""
        value = f"{_num(self.value)}{_unit(self.unit)}"
        if self.pooled is not None:
            value += " (pooled)"
        return [self.section, self.measure, self.n, value, spread, target, verdict, self.note]


@dataclass
class Report:
    machine: dict[str, Any]
    config: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def markdown(self) -> str:
        head = ["#", "measure", "n", "value", "runs min–max", "target", "verdict", "note"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.rows:
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r.cells()) + " |")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "config": self.config,
            "rows": [
                {
                    "section": r.section,
                    "measure": r.measure,
                    "n": r.n,
                    "unit": r.unit,
                    "value": _finite(r.value),
                    "pooled": r.pooled is not None,
                    "median": _finite(r.runs.median),
                    "min": _finite(r.runs.lo),
                    "max": _finite(r.runs.hi),
                    "runs": [_finite(v) for v in r.runs.values],
                    "target": None if r.target is None else [r.target.op, r.target.value],
                    "met": None if r.target is None else r.target.met(r.value),
                    "note": r.note,
                }
                for r in self.rows
            ],
            "extra": self.extra,
            "notes": self.notes,
        }

    def write_json(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_json(), indent=1, default=str) + "\n")


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 4)


def _unit(unit: str) -> str:
    if unit in ("", "×", "%"):
        return unit
    return f" {unit}"


def _num(x: float) -> str:
    if math.isnan(x):
        return "–"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def size(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return f"{n:,}"

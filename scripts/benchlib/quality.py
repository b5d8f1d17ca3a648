"""Ranking metrics with binary relevance: hit@k, recall@k, MRR@k, nDCG@k."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Scores:
    per_query: list[dict[str, float]] = field(default_factory=list)

    def add(self, ranked: Sequence[str], gold: set[str]) -> None:
        first = next((i for i, r in enumerate(ranked[:10]) if r in gold), None)
        dcg = sum(1 / math.log2(i + 2) for i, r in enumerate(ranked[:10]) if r in gold)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
        self.per_query.append(
            {
                "hit@1": float(first == 0),
                "hit@10": float(first is not None),
                "R@1": len(gold & set(ranked[:1])) / len(gold),
                "R@5": len(gold & set(ranked[:5])) / len(gold),
                "R@10": len(gold & set(ranked[:10])) / len(gold),
                "MRR@10": 0.0 if first is None else 1 / (first + 1),
                "nDCG@10": dcg / ideal if ideal else 0.0,
            }
        )

    def mean(self) -> dict[str, float]:
        keys = self.per_query[0].keys() if self.per_query else []
        n = len(self.per_query)
        return {k: sum(q[k] for q in self.per_query) / n for k in keys}

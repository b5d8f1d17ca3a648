"""LongMemEval's retrieval metrics, at the level of sessions and of turns.

A ranking of memories (turns) becomes a ranking of sessions as LongMemEval's own
evaluation makes it: each hit counts for the session it belongs to, and a session is
kept at the rank of its first hit (later hits of it are dropped), so "top 5 sessions"
means the first five distinct ones. Relevance is binary: a session is relevant when
it is one of the question's answer sessions, a turn when it is marked `has_answer`.

For a ranking r and the relevant set G:
- R@k any: 1 if any of G is in r[:k]; R@k all: 1 if all of G are; R@k: |G ∩ r[:k]| / |G|;
- nDCG@10: sum over relevant r[i], i < 10, of 1/log2(i + 2), divided by the same sum
  for the ideal ranking (min(|G|, 10) relevant items first).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

SESSION_METRICS = ("R@5 any", "R@5 all", "R@10 any", "R@10 all", "nDCG@10")
TURN_METRICS = ("R@5 any", "R@5 all", "R@5", "R@10", "nDCG@10")


def sessions_ranked(ids: Iterable[str], sessions_of: Mapping[str, Sequence[str]]) -> list[str]:
    """The sessions of ranked memory ids, each at the rank of its first hit. A memory whose
    text more than one session holds (the store keeps it once) counts for each of them."""
    out: dict[str, None] = {}
    for x in ids:
        for s in sessions_of.get(x, ()):
            out.setdefault(s, None)
    return list(out)


def ndcg(ranked: Sequence[str], gold: set[str], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, r in enumerate(ranked[:k]) if r in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def session_scores(ranked: Sequence[str], gold: set[str]) -> dict[str, float]:
    """SESSION_METRICS of one question's session ranking."""
    return {
        "R@5 any": float(bool(gold & set(ranked[:5]))),
        "R@5 all": float(gold <= set(ranked[:5])),
        "R@10 any": float(bool(gold & set(ranked[:10]))),
        "R@10 all": float(gold <= set(ranked[:10])),
        "nDCG@10": ndcg(ranked, gold),
    }


def turn_scores(ranked: Sequence[str], gold: set[str]) -> dict[str, float]:
    """TURN_METRICS of one question's turn ranking."""
    return {
        "R@5 any": float(bool(gold & set(ranked[:5]))),
        "R@5 all": float(gold <= set(ranked[:5])),
        "R@5": len(gold & set(ranked[:5])) / len(gold),
        "R@10": len(gold & set(ranked[:10])) / len(gold),
        "nDCG@10": ndcg(ranked, gold),
    }


def mean(rows: Sequence[Mapping[str, float]], keys: Sequence[str]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) if rows else math.nan for k in keys}

"""How much an entry is worth to a query: meaning, words, recency, and trust.

    score = (0.6 * semantic + 0.3 * keyword + 0.1 * recency) * (0.5 + 0.5 * effective_confidence)
            * scope_weight * (1 + 0.1 * (importance - 3)) / 1.2

semantic is the cosine similarity (clipped at 0), keyword the BM25 score mapped
into [0, 1), recency halves every 30 days since the last update or confirmation.
Importance (1-5, default 3) moves a score by 10% a step: ±20% at the ends, enough
to order near-ties, too little to lift an unrelated memory over a relevant one. Every
score is then divided by the factor of the top importance (1.2), so that a score is a
share of the best possible one, within [0, 1], and the order is as before. Effective
confidence decays the stored confidence with a 90-day half-life scaled by the
entry's type (conventions age slowly, facts fast) and adds up to 0.2 for use.
config.toml's [decay] section sets a type's half-life in days instead (decay_rates).

Trust is floored at half a score (TRUST_FLOOR): it orders memories of like relevance,
and never lets age alone bury a relevant memory (docs/PROTOCOL.md says what that cost).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]

W_SEMANTIC, W_KEYWORD, W_RECENCY = 0.6, 0.3, 0.1
IMPORTANCE_STEP = 0.1
TOP_IMPORTANCE = 5
TRUST_FLOOR = 0.5
HALF_LIFE_DAYS = 90.0
RECENCY_HALF_LIFE_DAYS = 30.0

DECAY_RATES: dict[str, float] = {
    "fact": 1.0,
    "preference": 0.5,
    "decision": 0.3,
    "convention": 0.2,
    "pattern": 0.4,
    "task": 0.0,  # an open task does not fade while it waits; done ones leave recall anyway
    "log": 1.0,
}


def decay_rates(half_lives: Mapping[str, float] | None = None) -> dict[str, float]:
    """The rate per type, with a configured half-life (days) in place of the built-in one:
    a rate r halves confidence every HALF_LIFE_DAYS / r days."""
    rates = dict(DECAY_RATES)
    for content_type, days in (half_lives or {}).items():
        rates[content_type] = HALF_LIFE_DAYS / days
    return rates


SCOPE_WEIGHTS: dict[str, float] = {"file": 1.0, "project": 0.9, "workspace": 0.8, "global": 0.7}


def effective_confidence(
    confidence: float,
    content_type: str,
    age_days: float,
    access_count: int,
    rates: Mapping[str, float] = DECAY_RATES,
) -> float:
    """`age_days`: days since the entry was last updated."""
    decay = freshness(content_type, age_days, rates)
    boost = min(0.2, math.log1p(access_count) * 0.05)
    return min(1.0, confidence * decay + boost)


def freshness(
    content_type: str, age_days: float, rates: Mapping[str, float] = DECAY_RATES
) -> float:
    """The type-aware decay alone: 0.5 every 90 days for a fact, 450 for a convention."""
    return math.pow(0.5, age_days * rates.get(content_type, 1.0) / HALF_LIFE_DAYS)


def recency(age_days: float) -> float:
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def importance_factor(importance: Floats | int) -> Floats | float:
    """What importance multiplies a score by: 1 at the top importance, 1 / 1.2 at 3."""
    top = 1.0 + IMPORTANCE_STEP * (TOP_IMPORTANCE - 3)
    return (1.0 + IMPORTANCE_STEP * (importance - 3)) / top


def combine(
    semantic: float,
    keyword: float,
    recent: float,
    eff_conf: float,
    weight: float,
    importance: int = 3,
) -> float:
    base = W_SEMANTIC * max(0.0, semantic) + W_KEYWORD * keyword + W_RECENCY * recent
    trust = TRUST_FLOOR + (1.0 - TRUST_FLOOR) * eff_conf
    return base * trust * weight * float(importance_factor(importance))

"""How much an entry is worth to a query: meaning, words, recency, and trust.

    score = (0.6 * semantic + 0.3 * keyword + 0.1 * recency) * (0.5 + 0.5 * effective_confidence)
            * scope_weight * (1 + 0.1 * (importance - 3)) / 1.2

semantic is the cosine similarity (clipped to [0, 1]: a text's cosine with itself can
come out a hair over 1 in float arithmetic), keyword the BM25 score mapped
into [0, 1), recency halves every 30 days between the last update or confirmation and
the store's last write by the asking time (its clock stops while nobody writes it).
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

from collections.abc import Mapping
from typing import Protocol

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
# Asked for every project from a place, a memory that place does not see (another
# project's) weighs this much beside one it sees: of two answers alike, the asking
# project's comes first; a clearly better one elsewhere still shows (issue 24 item 1).
ELSEWHERE = 0.7


def trust_now(
    confidence: npt.ArrayLike, rate: npt.ArrayLike, age_days: npt.ArrayLike, uses: npt.ArrayLike
) -> tuple[Floats, Floats]:
    """(freshness, effective confidence) of entries, elementwise: the stored confidence decayed
    by `rate` over `age_days` since the last update, plus up to 0.2 for `uses`. The one copy of
    the decay formula: ranking applies it to whole arrays, brief and consolidation to one row."""
    age, per_day = np.asarray(age_days, dtype=np.float64), np.asarray(rate, dtype=np.float64)
    fresh = np.power(0.5, age * per_day / HALF_LIFE_DAYS)
    boost = np.minimum(0.2, np.log1p(np.asarray(uses, dtype=np.float64)) * 0.05)
    return fresh, np.minimum(1.0, np.asarray(confidence, dtype=np.float64) * fresh + boost)


def effective_confidence(
    confidence: float,
    content_type: str,
    age_days: float,
    access_count: int,
    rates: Mapping[str, float] = DECAY_RATES,
) -> float:
    """`age_days`: days since the entry was last updated."""
    rate = rates.get(content_type, 1.0)
    return float(trust_now(confidence, rate, age_days, access_count)[1])


def freshness(
    content_type: str, age_days: float, rates: Mapping[str, float] = DECAY_RATES
) -> float:
    """The type-aware decay alone: 0.5 every 90 days for a fact, 450 for a convention."""
    return float(trust_now(1.0, rates.get(content_type, 1.0), age_days, 0)[0])


def recency(age_days: npt.ArrayLike, idle_days: float = 0.0) -> Floats:
    """Newer than the others: halves every RECENCY_HALF_LIFE_DAYS of `age_days`, counted to
    the store's last write rather than to the asking time, `idle_days` before it (ranking.py
    `parts`). Recency compares memories with each other, so a store left unwritten for
    years still ranks last week's memory of then above last year's, as it did when it was
    written; asked of a store in use (written today) it is unchanged. Trust still decays by
    the asking time: an idle store's facts are no truer for having been left alone."""
    age = np.maximum(np.asarray(age_days, dtype=np.float64) - idle_days, 0.0)
    return np.power(0.5, age / RECENCY_HALF_LIFE_DAYS)


def importance_factor(importance: Floats | int) -> Floats | float:
    """What importance multiplies a score by: 1 at the top importance, 1 / 1.2 at 3."""
    top = 1.0 + IMPORTANCE_STEP * (TOP_IMPORTANCE - 3)
    return (1.0 + IMPORTANCE_STEP * (importance - 3)) / top


def combine(
    semantic: npt.ArrayLike,
    keyword: npt.ArrayLike,
    recent: npt.ArrayLike,
    eff_conf: npt.ArrayLike,
    weight: npt.ArrayLike,
    importance: npt.ArrayLike,
) -> Floats:
    """A hit's score from its parts, elementwise: the formula above, and its only copy.
    Ranking scores whole arrays with it; a test re-scores a returned hit from the parts the
    hit reports (importance included: there is no default, so no caller can leave it out)."""
    sem = np.clip(np.asarray(semantic, dtype=np.float64), 0.0, 1.0)
    base = W_SEMANTIC * sem + W_KEYWORD * np.asarray(keyword, dtype=np.float64)
    base = base + W_RECENCY * np.asarray(recent, dtype=np.float64)
    trust = TRUST_FLOOR + (1.0 - TRUST_FLOOR) * np.asarray(eff_conf, dtype=np.float64)
    factor = importance_factor(np.asarray(importance, dtype=np.float64))
    return np.asarray(base * trust * np.asarray(weight, dtype=np.float64) * factor)


class Scored(Protocol):
    """What a hit reports of its score (wire.Hit has these fields)."""

    semantic: float
    keyword: float
    recency: float
    effective_confidence: float
    scope_weight: float
    importance: int


def score_of(hit: Scored) -> float:
    """The score `combine` gives a hit's reported parts: what recall returned, re-derived."""
    parts = (hit.semantic, hit.keyword, hit.recency, hit.effective_confidence, hit.scope_weight)
    return float(combine(*parts, hit.importance))

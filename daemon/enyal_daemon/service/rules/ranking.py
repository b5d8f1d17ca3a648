"""The one scorer: candidates in, the best few as Hits out. Current and as-of recall
both rank here, with the formulas of scoring.py applied to whole arrays at once.

A candidate is an entry with its similarity in meaning and in words; for as-of
recall it also carries the version that was current then, whose content, type,
confidence, tags and time are scored and reported instead of today's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import msgspec
import numpy as np

from enyal_protocol import wire as p

from ...store import entries
from ...store.rows import EntryRow
from . import fusion, scoring, timewords

# The best limit × HIT_MARGIN candidates are ranked on to validity, which may drop or
# re-rank some; only the limit it keeps become full hits (decoding tags and metadata is
# the costly part).
HIT_MARGIN = 3

# A hit whose relevance (the better of its cosine and the square root of its keyword
# share: what the floors read) is below this is marked `weak`; a list of weak hits only
# says that nothing stored fits the query. Chosen on the dev halves (docs/ARCHITECTURE.md,
# "Where a result list ends") by the rule the relative floor was: at most 0.5% of the
# answers lost (1 of 296 here; 0.32 lost 2), while over half the questions about
# something else entirely (LongMemEval_S's, asked of the memory set) are left weak-only.
WEAK_RELEVANCE = 0.30

Floats = scoring.Floats
Weight = Callable[[str, str | None], float]


@dataclass(slots=True)
class Candidate:
    row: EntryRow
    semantic: float
    keyword: float = 0.0
    then: p.Version | None = None  # as-of recall: the entry as it was
    # What `semantic` was lowered by for the entry's passages (index/passages.py
    # by_chance): it orders by the lowered cosine, but the floors and the weak mark read
    # the best cosine as such, as they were chosen on (whether a memory fits the query
    # at all is not a matter of how many chances it had: lowered, the relative floor cut
    # 2.3% of the conversations' dev answers at the clients' 0.2 / 0.5, against none).
    chance: float = 0.0


def _floats(values: list[float] | list[int]) -> Floats:
    return np.array(values, dtype=np.float64)


def _days_since(stamps: Sequence[str], now: datetime) -> Floats:
    # numpy parses ISO 8601 in C; our stamps are UTC with a Z, which it wants dropped.
    parsed = np.array([s[:-1] if s.endswith("Z") else s for s in stamps], dtype="datetime64[us]")
    now64 = np.datetime64(now.replace(tzinfo=None), "us")
    days = (now64 - parsed).astype(np.float64) / 86_400e6
    return np.maximum(days, 0.0)


@dataclass(frozen=True)
class Floors:
    """What a result must reach to be returned at all: effective (decayed) confidence, and
    relevance, in meaning (cosine) or in words (the share of the query's information it
    matches, which is the square root of the keyword part), both as such and as a share
    of the best candidate's (`relative`: the list ends where relevance ends)."""

    confidence: float
    relevance: float
    relative: float = 0.0


@dataclass(slots=True)
class Ranked:
    """A candidate scored: its parts, and what validity (service/memory/validity.py) says
    of it. Only those returned become full hits (`hits`): building one decodes tags and
    metadata, and a recall ranks limit × HIT_MARGIN of them to return limit."""

    candidate: Candidate
    score: float
    semantic: float
    keyword: float
    recency: float
    effective_confidence: float
    scope_weight: float
    freshness_score: float
    is_superseded: bool = False
    superseded_by: str | None = None
    has_conflicts: bool = False
    adjusted_score: float = 0.0
    relevance: float = 0.0  # max(semantic + chance, sqrt(keyword)): below WEAK_RELEVANCE, weak
    # With the learned ranker on (fusion.py): its relevance in (0, 1), which orders the
    # hit before validity's factors instead of the score.
    learned: float | None = None

    @property
    def order(self) -> float:
        return self.score if self.learned is None else self.learned

    @property
    def id(self) -> str:
        return self.candidate.row.id


@dataclass(frozen=True, slots=True)
class Parts:
    """Every candidate's score parts, one array each, in candidate order: what the
    scorer combines, what a hit reports, and what `features` builds the learned
    ranker's inputs from (scripts/train_fusion reads them through it too)."""

    semantic: Floats
    keyword: Floats
    recency: Floats
    effective_confidence: Floats
    scope_weight: Floats
    freshness: Floats
    importance: Floats
    age_days: Floats


def parts(
    candidates: Sequence[Candidate],
    now: datetime,
    weight: Weight,
    rates: Mapping[str, float] = scoring.DECAY_RATES,
    written: datetime | None = None,
) -> Parts:
    """The score parts of every candidate at `now`, as arrays. `written`: the store's last
    write by `now` (store/entries.py last_write; None: now), which recency counts to."""
    # Each column read in one pass and made an array at once: an element set at a time
    # into numpy arrays cost ~3x as much (issue 30). As of a past moment, a candidate is
    # scored by its version of then: its time, confidence and type, and no use since.
    rows = [c.row for c in candidates]
    pairs = [(c.row, c.then) for c in candidates]
    stamps = [r.checked_at if t is None else t.changed_at for r, t in pairs]
    confidence = _floats([r.confidence if t is None else t.confidence for r, t in pairs])
    rate = _floats(
        [rates.get(r.content_type if t is None else t.content_type, 1.0) for r, t in pairs]
    )
    uses = _floats([r.access_count if t is None else 0 for r, t in pairs])
    importance = _floats([r.importance for r in rows])
    w = _floats([weight(r.scope_level, r.scope_path) for r in rows])
    sem = np.clip(_floats([c.semantic for c in candidates]), 0.0, 1.0)  # scoring.combine's
    kw = _floats([c.keyword for c in candidates])
    age = _days_since(stamps, now)
    fresh, eff = scoring.trust_now(confidence, rate, age, uses)
    idle = 0.0 if written is None else max((now - written).total_seconds() / 86_400, 0.0)
    return Parts(sem, kw, scoring.recency(age, idle), eff, w, fresh, importance, age)


def hand_set(x: Parts) -> Floats:
    """Today's score: scoring.combine over the parts."""
    return scoring.combine(
        x.semantic, x.keyword, x.recency, x.effective_confidence, x.scope_weight, x.importance
    )


# The learned ranker's inputs (service/rules/fusion.py), one column each, in this order.
FEATURES = (
    "hand_set",  # today's score: the learned one starts from it
    "semantic",
    "keyword_share",  # the square root of the keyword part: the share of the query matched
    "recency",
    "trust",
    "scope_weight",
    "importance",
    "semantic_rank",  # log(1 + rank) among the candidates by meaning
    "keyword_rank",  # ... by words; a candidate without a shared word ranks last
    "semantic_gap",  # the cosine less the best candidate's
    "keyword_gap",  # the keyword share less the best candidate's
    "log_age",  # log(1 + days since the last update, at the asking time)
    "has_keyword",
    "in_window",  # said within the days the query points at ("four weeks ago": timewords.py)
    "outside_window",  # log(1 + days outside that window); 0 when the query names none
)


def _log_ranks(values: Floats) -> Floats:
    """log(1 + rank) of each value among all, best (highest) ranked 0."""
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[np.argsort(-values, kind="stable")] = np.arange(len(values), dtype=np.float64)
    return np.log1p(ranks)


def features(x: Parts, window: timewords.Window | None = None) -> Floats:
    """The candidates' feature matrix (one row a candidate, FEATURES' columns), built from
    their parts with whole-array operations: the live scorer and scripts/train_fusion's
    export both read it here, so there is one copy of every feature."""
    share = np.sqrt(x.keyword)
    lo, hi = window if window is not None else (-np.inf, np.inf)
    outside = np.maximum(lo - x.age_days, 0.0) + np.maximum(x.age_days - hi, 0.0)
    kw_rank = np.where(x.keyword > 0, _log_ranks(x.keyword), np.log1p(len(share)))
    columns = (
        hand_set(x),
        x.semantic,
        share,
        x.recency,
        x.effective_confidence,
        x.scope_weight,
        x.importance / scoring.TOP_IMPORTANCE,
        _log_ranks(x.semantic),
        kw_rank,
        x.semantic - x.semantic.max(),
        share - share.max(),
        np.log1p(x.age_days),
        (x.keyword > 0).astype(np.float64),
        np.full(len(share), 0.0) if window is None else (outside == 0).astype(np.float64),
        np.log1p(outside),
    )
    return np.column_stack(columns)


def rank(
    candidates: Sequence[Candidate],
    now: datetime,
    floors: Floors,
    weight: Weight,
    keep: int,
    rates: Mapping[str, float] = scoring.DECAY_RATES,
    query: str = "",
    model: fusion.Model | None = None,
    written: datetime | None = None,
) -> list[Ranked]:
    """The `keep` best candidates above the floors, best first. `rates`: decay per type
    (the engine's, which config.toml's [decay] may have changed). `model`: the learned
    ranker to order by (None: the shipped one, if its file makes it the default);
    `query` is read for the relative dates it names (timewords.py), one of its features.
    `written`: the store's last write by `now`, which recency counts to (`parts`)."""
    if not candidates:
        return []
    x = parts(candidates, now, weight, rates, written)
    sem, kw, eff = x.semantic, x.keyword, x.effective_confidence
    score = hand_set(x)
    if model is None:
        shipped = fusion.shipped()
        # The learned ranker orders the candidates only if it won on every held-out half
        # (its file says so); a hit still reports the hand-set score of its parts.
        model = shipped if shipped is not None and shipped.default else None
    learned = None if model is None else model.relevance(features(x, timewords.window(query)))
    order_by = score if learned is None else learned
    chance = _floats([c.chance for c in candidates])
    relevance = np.maximum(sem + chance, np.sqrt(kw))
    trusted = eff >= floors.confidence
    best = float(relevance[trusted].max()) if trusted.any() else 0.0
    relevant = relevance >= max(floors.relevance, floors.relative * best)
    eligible = np.flatnonzero(trusted & relevant)
    order = eligible[np.argsort(-order_by[eligible], kind="stable")][:keep]
    # Python floats once for the kept few (float() of a numpy element each is slower).
    columns = (score, sem, kw, x.recency, eff, x.scope_weight, x.freshness)
    kept = zip(*(a[order].tolist() for a in columns), strict=True)
    ranked = [Ranked(candidates[i], *k) for i, k in zip(order.tolist(), kept, strict=True)]
    for r, value in zip(ranked, relevance[order].tolist(), strict=True):
        r.relevance = value
    if learned is not None:
        for r, value in zip(ranked, learned[order].tolist(), strict=True):
            r.learned = value
    return ranked


def hits(ranked: Sequence[Ranked]) -> list[p.Hit]:
    """The ranked candidates as wire hits, every score part and validity field set."""
    return [_hit(r) for r in ranked]


def _hit(r: Ranked) -> p.Hit:
    """As of a past moment, the version of then supplies what it said and how sure it was."""
    c = r.candidate
    fields = msgspec.structs.asdict(c.row.entry())
    then = c.then
    if then is not None:
        fields.update(
            content=then.content,
            content_type=then.content_type,
            confidence=then.confidence,
            updated_at=then.changed_at,
            tags=then.tags,
            metadata=then.metadata,
            is_deprecated=then.is_deprecated,
            content_hash=entries.content_hash(then.content),
        )
    return p.Hit(
        **fields,
        score=r.score,
        semantic=r.semantic,
        keyword=r.keyword,
        recency=r.recency,
        effective_confidence=r.effective_confidence,
        scope_weight=r.scope_weight,
        freshness_score=r.freshness_score,
        is_superseded=r.is_superseded,
        superseded_by=r.superseded_by,
        has_conflicts=r.has_conflicts,
        adjusted_score=r.adjusted_score,
        weak=r.relevance < WEAK_RELEVANCE,
    )

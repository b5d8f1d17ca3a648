"""Is a memory still true? Supersession, conflicts, freshness, history, health, as-of.

Recall hits are annotated here: `is_superseded` / `superseded_by` (another entry
has a supersedes edge to it), `has_conflicts` (a conflicts_with edge on either
side), `freshness_score` (the type-aware decay alone), and

    adjusted_score = score · ((1 − freshness_boost) + freshness_boost · freshness)
                           · 0.8 if it has conflicts · 0.5 if it is superseded

by which results are finally ranked. As-of recall answers from the version
history instead of the current rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import msgspec

from enyal_protocol import wire as p

from ..errors import NotFound
from ..store import entries, graph, versions
from . import scoring
from .clock import days_between, parse_iso, to_iso

if TYPE_CHECKING:
    from .memory import Filter, Memory

CONFLICT_FACTOR = 0.8
SUPERSEDED_FACTOR = 0.5
MAX_ISSUE_IDS = 100
CHAIN_DEPTH = 64


@dataclass(frozen=True)
class Validity:
    exclude_superseded: bool = True
    flag_conflicts: bool = True
    freshness_boost: float = 0.1


def annotate(
    memory: Memory, hits: list[p.Hit], v: Validity, as_of: str | None = None
) -> list[p.Hit]:
    """Validity fields on every hit; superseded ones dropped if asked; ranked by adjusted_score."""
    conn = memory.reader()
    ids = [h.id for h in hits]
    superseders = graph.superseded_by(conn, ids, as_of)
    conflicts = graph.conflicted(conn, ids) if v.flag_conflicts else set()
    kept: list[p.Hit] = []
    for h in hits:
        h.superseded_by = superseders.get(h.id)
        h.is_superseded = h.superseded_by is not None
        if h.is_superseded and v.exclude_superseded:
            continue
        h.has_conflicts = h.id in conflicts
        factor = (1.0 - v.freshness_boost) + v.freshness_boost * h.freshness_score
        if h.has_conflicts:
            factor *= CONFLICT_FACTOR
        if h.is_superseded:
            factor *= SUPERSEDED_FACTOR
        h.adjusted_score = h.score * factor
        kept.append(h)
    kept.sort(key=lambda h: h.adjusted_score, reverse=True)
    return kept


# --- as-of recall ----------------------------------------------------------------------


def as_of_instant(text: str) -> str:
    """A date alone means the end of that day: "as of 2026-03-01" includes March 1st."""
    at = parse_iso(text, "as_of")
    if len(text.strip()) == 10:
        at = at + timedelta(days=1) - timedelta(microseconds=1)
    return to_iso(at)


def recall_as_of(
    memory: Memory,
    query: str,
    limit: int,
    min_confidence: float,
    f: Filter,
    v: Validity,
    content_type: str | None,
    tags: list[str],
    as_of: str,
) -> list[p.Hit]:
    """What was believed at `as_of`: entries that existed then, not forgotten and (unless
    asked) not superseded then, with their content, type, tags and confidence of then.

    Ranked by meaning and recency as of then; the keyword part is 0 here because the
    text index holds only current contents. Entries deleted for good are gone from history.
    """
    when = as_of_instant(as_of)
    at = parse_iso(when)
    conn = memory.reader()
    allowed = {
        row[1]: (int(row[0]), row)
        for row in conn.execute(
            f"SELECT {entries.COLUMNS} FROM context_entries e WHERE {f.sql()}", f.args
        )
    }
    states = [
        (entry_id, then)
        for entry_id, then in versions.states_at(conn, when)
        if entry_id in allowed
        and (f.include_deprecated or not then.is_deprecated)
        and (content_type is None or then.content_type == content_type)
        and set(tags) <= set(then.tags)
    ]
    if not states:
        return []
    qvec = memory.embed(query)

    def current_content(entry_id: str) -> str:
        return str(allowed[entry_id][1][2])

    unchanged = [allowed[i][0] for i, then in states if then.content == current_content(i)]
    sims = memory.index.similarity(qvec, unchanged)
    changed = [(i, then) for i, then in states if then.content != current_content(i)]
    if changed:
        old_vecs = memory.embed_many([then.content for _, then in changed])
        for (i, _), sim in zip(changed, old_vecs @ qvec, strict=True):
            sims[allowed[i][0]] = float(sim)
    hits: list[p.Hit] = []
    for entry_id, then in states:
        rid, row = allowed[entry_id]
        age = days_between(then.changed_at, at)
        eff = scoring.effective_confidence(then.confidence, then.content_type, age, 0)
        if eff < min_confidence:
            continue
        sem, rec, weight = sims.get(rid, 0.0), scoring.recency(age), f.weight(row[4], row[5])
        fields: dict[str, Any] = msgspec.structs.asdict(entries.row_to_entry(row))
        fields.update(
            content=then.content,
            content_type=then.content_type,
            confidence=then.confidence,
            tags=then.tags,
            metadata=then.metadata,
            is_deprecated=then.is_deprecated,
            updated_at=then.changed_at,
            content_hash=entries.content_hash(then.content),
        )
        hits.append(
            p.Hit(
                **fields,
                score=scoring.combine(sem, 0.0, rec, eff, weight),
                semantic=max(0.0, sem),
                keyword=0.0,
                recency=rec,
                effective_confidence=eff,
                scope_weight=weight,
                freshness_score=scoring.freshness(then.content_type, age),
            )
        )
    hits.sort(key=lambda h: h.score, reverse=True)
    return annotate(memory, hits[: limit * 3], v, as_of=when)[:limit]


# --- history ----------------------------------------------------------------------------


def history(memory: Memory, params: p.HistoryParams) -> p.HistoryResult:
    from .graph import _entries_by_id, walk

    conn = memory.reader()
    if entries.get_row(conn, params.id) is None:
        raise NotFound(f"no entry with id {params.id!r}")
    newer = walk(conn, params.id, "incoming", ["supersedes"], CHAIN_DEPTH)
    older = walk(conn, params.id, "outgoing", ["supersedes"], CHAIN_DEPTH)
    by_id = _entries_by_id(conn, [i for i, _, _ in newer + older])
    return p.HistoryResult(
        id=params.id,
        versions=versions.list_for(conn, params.id, params.limit),
        supersedes=[by_id[i] for i, _, _ in older if i in by_id],
        superseded_by=[by_id[i] for i, _, _ in newer if i in by_id],
    )


# --- health and review ---------------------------------------------------------------------

_ACTIVE = "e.is_deprecated = 0"
_SUPERSEDED = (
    "EXISTS (SELECT 1 FROM context_edges g WHERE g.target_id = e.id AND g.edge_type = 'supersedes')"
)
_CONFLICTED = (
    "EXISTS (SELECT 1 FROM context_edges g WHERE g.edge_type = 'conflicts_with' "
    "AND (g.source_id = e.id OR g.target_id = e.id))"
)
_ORPHAN = (
    "NOT EXISTS (SELECT 1 FROM context_edges g WHERE g.source_id = e.id) "
    "AND NOT EXISTS (SELECT 1 FROM context_edges g WHERE g.target_id = e.id)"
)


def _stale(stale_days: int) -> tuple[str, str]:
    cutoff = to_iso(datetime.now(UTC) - timedelta(days=stale_days))
    return "e.updated_at < ?", cutoff


def _ids(memory: Memory, where: str, args: tuple[Any, ...] = ()) -> list[str]:
    cur = memory.reader().execute(
        f"SELECT e.id FROM context_entries e WHERE {_ACTIVE} AND {where} ORDER BY e.updated_at",
        args,
    )
    return [str(r[0]) for r in cur]


def health_score(active: int, superseded: int, conflicts: int, stale: int, orphans: int) -> float:
    """Seed 000 §11: 1 − (0.05·superseded + 0.1·conflicts + 0.02·stale + 0.01·orphans) / active."""
    if active == 0:
        return 1.0
    penalty = superseded * 0.05 + conflicts * 0.1 + stale * 0.02 + orphans * 0.01
    return max(0.0, 1.0 - penalty / active)


def health(memory: Memory, params: p.HealthParams) -> p.Health:
    row = (
        memory.reader()
        .execute("SELECT count(*), coalesce(sum(is_deprecated = 0), 0) FROM context_entries")
        .fetchone()
    )
    total, active = (int(row[0]), int(row[1])) if row else (0, 0)
    stale_sql, cutoff = _stale(params.stale_days)
    superseded = _ids(memory, _SUPERSEDED)
    conflicted = _ids(memory, _CONFLICTED)
    stale = _ids(memory, stale_sql, (cutoff,))
    orphans = _ids(memory, _ORPHAN)
    return p.Health(
        total_entries=total,
        active_entries=active,
        superseded_count=len(superseded),
        conflicts_count=len(conflicted),
        stale_count=len(stale),
        orphan_count=len(orphans),
        health_score=round(
            health_score(active, len(superseded), len(conflicted), len(stale), len(orphans)), 6
        ),
        issues=p.HealthIssues(
            superseded_entries=superseded[:MAX_ISSUE_IDS],
            conflicted_entries=conflicted[:MAX_ISSUE_IDS],
            stale_entries=stale[:MAX_ISSUE_IDS],
            orphan_entries=orphans[:MAX_ISSUE_IDS],
        ),
    )


def review(memory: Memory, params: p.ReviewParams) -> p.ReviewResult:
    conn = memory.reader()

    def rows(where: str, args: tuple[Any, ...] = ()) -> list[p.Entry]:
        cur = conn.execute(
            f"SELECT {entries.COLUMNS} FROM context_entries e WHERE {_ACTIVE} AND {where} "
            "ORDER BY e.updated_at LIMIT ?",
            (*args, params.limit),
        )
        return [entries.row_to_entry(r) for r in cur]

    want = {params.kind} if params.kind != "all" else {"stale", "orphan", "conflicted"}
    stale_sql, cutoff = _stale(params.stale_days)
    return p.ReviewResult(
        stale=rows(stale_sql, (cutoff,)) if "stale" in want else [],
        orphan=rows(_ORPHAN) if "orphan" in want else [],
        conflicted=rows(_CONFLICTED) if "conflicted" in want else [],
    )


# --- analytics -------------------------------------------------------------------------------


def analytics(memory: Memory, params: p.AnalyticsParams) -> p.AnalyticsResult:
    memory.flush_touches()  # so that what was just done is counted
    since = to_iso(datetime.now(UTC) - timedelta(days=params.days))
    where, args = ["a.event_at >= ?"], [since]
    if params.entry_id is not None:
        where.append("a.entry_id = ?")
        args.append(params.entry_id)
    if params.event_type is not None:
        where.append("a.event_type = ?")
        args.append(params.event_type)
    clause = " AND ".join(where)
    conn = memory.reader()
    events = [
        p.Event(
            id=r[0], entry_id=r[1], event_type=r[2], event_at=r[3], query=r[4], result_rank=r[5]
        )
        for r in conn.execute(
            "SELECT a.id, a.entry_id, a.event_type, a.event_at, a.query, a.result_rank "
            f"FROM context_analytics a WHERE {clause} ORDER BY a.event_at DESC, a.id DESC LIMIT ?",
            (*args, params.limit),
        )
    ]
    by_type = dict(
        conn.execute(
            f"SELECT a.event_type, count(*) FROM context_analytics a WHERE {clause} GROUP BY 1",
            args,
        )
    )
    by_entry = dict(
        conn.execute(
            f"SELECT a.entry_id, count(*) FROM context_analytics a WHERE {clause} "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 100",
            args,
        )
    )
    return p.AnalyticsResult(
        events=events,
        summary=p.AnalyticsSummary(
            total_events=sum(by_type.values()), by_type=by_type, by_entry=by_entry
        ),
    )

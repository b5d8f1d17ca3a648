"""How healthy is the store as a whole, and which entries to look at (seed 000 §11)."""

from __future__ import annotations

from datetime import timedelta

from enyal_protocol import wire as p

from ...store import entries
from ...store import health as queries
from ..core.engine import Engine
from ..files import sharing, sources
from ..hub import membership
from ..rules.clock import to_iso

MAX_ISSUE_IDS = 100


def health_score(active: int, superseded: int, conflicts: int, stale: int, orphans: int) -> float:
    """1 − (0.05·superseded + 0.1·conflicts + 0.02·stale + 0.01·orphans) / active."""
    if active == 0:
        return 1.0
    penalty = superseded * 0.05 + conflicts * 0.1 + stale * 0.02 + orphans * 0.01
    return max(0.0, 1.0 - penalty / active)


def _stale_before(engine: Engine, stale_days: int) -> str:
    return to_iso(engine.clock.now() - timedelta(days=stale_days))


def health(engine: Engine, params: p.HealthParams) -> p.Health:
    conn = engine.reader()
    total, active, _, _ = entries.totals(conn)
    cutoff = _stale_before(engine, params.stale_days)
    superseded = queries.ids(conn, "superseded", cutoff)
    conflicted = queries.ids(conn, "conflicted", cutoff)
    stale = queries.ids(conn, "stale", cutoff)
    orphans = queries.ids(conn, "orphan", cutoff)
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


def review(engine: Engine, params: p.ReviewParams) -> p.ReviewResult:
    conn = engine.reader()
    cutoff = _stale_before(engine, params.stale_days)
    want = (
        {params.kind}
        if params.kind != "all"
        else {"stale", "orphan", "conflicted", "quarantined", "shared"}
    )

    def listed(kind: queries.Kind) -> list[p.Entry]:
        if kind not in want:
            return []
        return [r.entry() for r in queries.rows(conn, kind, cutoff, params.limit)]

    stale, reasons = _stale(engine, cutoff, params.limit) if "stale" in want else ([], {})
    return p.ReviewResult(
        stale=stale,
        orphan=listed("orphan"),
        conflicted=listed("conflicted"),
        quarantined=listed("quarantined"),
        stale_reasons=reasons,
        shared=(
            (sharing.problems(engine, params.limit) + membership.problems(engine, params.limit))[
                : params.limit
            ]
            if "shared" in want
            else []
        ),
    )


def _stale(
    engine: Engine, cutoff: str, limit: int
) -> tuple[list[p.Entry], dict[str, list[p.StaleReason]]]:
    """Entries not updated since the cutoff and entries whose cited file changed or is
    gone, oldest update first, each with why."""
    conn = engine.reader()
    reasons: dict[str, list[p.StaleReason]] = {}
    rows = {r.id: r for r in queries.rows(conn, "stale", cutoff, limit)}
    for entry_id in rows:
        reasons[entry_id] = ["not_updated"]
    by_source = sources.stale(engine)
    rows.update(entries.by_ids(conn, [i for i in by_source if i not in rows]))
    for entry_id, state in by_source.items():
        reason: p.StaleReason = "source_changed" if state == "changed" else "source_missing"
        reasons.setdefault(entry_id, []).append(reason)
    kept = sorted(rows.values(), key=lambda r: (r.updated_at, r.rid))[:limit]
    found = [r.entry() for r in kept]
    sources.annotate(engine, found)
    return found, {e.id: reasons[e.id] for e in found}

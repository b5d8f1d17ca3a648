"""Is a memory still true? Supersession, conflicts, freshness, and an entry's history.

Recall hits are annotated here: `is_superseded` / `superseded_by` (another entry
has a supersedes edge to it), `has_conflicts` (a conflicts_with edge on either
side), `freshness_score` (the type-aware decay alone), and

    adjusted_score = score · ((1 − freshness_boost) + freshness_boost · freshness)
                           · 0.8 if it has conflicts · 0.5 if it is superseded

by which results are finally ranked (with the learned ranker on, service/rules/fusion.py,
by its relevance times the same factors; adjusted_score is still reported as above).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from enyal_protocol import wire as p

from ...store import entries, graph, versions
from ..core.engine import Engine
from ..rules.clock import parse_iso, to_iso
from ..rules.ranking import Ranked
from .graph import walk

CONFLICT_FACTOR = 0.8
SUPERSEDED_FACTOR = 0.5
CHAIN_DEPTH = 64


@dataclass(frozen=True)
class Validity:
    exclude_superseded: bool = True
    flag_conflicts: bool = True
    freshness_boost: float = 0.1


def annotate(
    engine: Engine, hits: list[Ranked], v: Validity, as_of: str | None = None
) -> list[Ranked]:
    """Validity fields on every hit; superseded ones dropped if asked; ranked by adjusted_score."""
    conn = engine.reader()
    ids = [h.id for h in hits]
    kinds = engine.holds(conn, graph.validity_kinds)
    superseders = graph.superseded_by(conn, ids, as_of) if "supersedes" in kinds else {}
    conflicts = (
        graph.conflicted(conn, ids) if v.flag_conflicts and "conflicts_with" in kinds else set()
    )
    kept: list[Ranked] = []
    keys: dict[str, float] = {}
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
        keys[h.id] = h.order * factor
        kept.append(h)
    kept.sort(key=lambda h: keys[h.id], reverse=True)
    return kept


def as_of_instant(text: str, field: str = "as_of") -> str:
    """A date alone means the end of that day: "as of 2026-03-01" includes March 1st."""
    at = parse_iso(text, field)
    if len(text.strip()) == 10:
        at = at + timedelta(days=1) - timedelta(microseconds=1)
    return to_iso(at)


def history(engine: Engine, params: p.HistoryParams) -> p.HistoryResult:
    """Versions, and the supersession chain both ways as far as it is live: a forgotten
    entry supersedes nothing, so the chain stops at it (store/graph.py has the rule)."""
    conn = engine.reader()
    entry_id = engine.require(params.id, conn).id
    newer = walk(conn, entry_id, "incoming", ["supersedes"], CHAIN_DEPTH)
    older = walk(conn, entry_id, "outgoing", ["supersedes"], CHAIN_DEPTH)
    rows = entries.by_ids(conn, [entry_id, *(i for i, _, _ in newer + older)])

    def chain(found: list[tuple[str, int, p.Edge]], toward_newer: bool) -> list[p.Entry]:
        kept, out = {entry_id}, []
        for i, _, edge in found:  # breadth first: an entry comes after the one it came by
            came_by = edge.target_id if toward_newer else edge.source_id
            superseder = rows.get(edge.source_id)
            if came_by in kept and i in rows and superseder and not superseder.is_deprecated:
                kept.add(i)
                out.append(rows[i].entry())
        return out

    return p.HistoryResult(
        id=entry_id,
        versions=versions.list_for(conn, entry_id, params.limit),
        supersedes=chain(older, toward_newer=False),
        superseded_by=chain(newer, toward_newer=True),
    )

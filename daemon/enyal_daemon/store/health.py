"""SQL for the health report and the review lists: active entries that are superseded,
in a conflict, stale (not updated since a cutoff) or orphaned (a memory on no edge)."""

from __future__ import annotations

from typing import Literal

import apsw

from .graph import LIVE_CONFLICT, LIVE_SUPERSEDES
from .rows import COLUMNS, ENTRIES, EntryRow, entry_row

Kind = Literal["superseded", "conflicted", "stale", "orphan", "quarantined"]

_ACTIVE = "e.is_deprecated = 0"
_WHERE: dict[Kind, str] = {
    "superseded": f"EXISTS (SELECT 1 FROM context_edges g WHERE g.target_id = e.id "
    f"AND {LIVE_SUPERSEDES})",
    "conflicted": f"EXISTS (SELECT 1 FROM context_edges g WHERE {LIVE_CONFLICT} "
    "AND (g.source_id = e.id OR g.target_id = e.id))",
    # Last checked: updated, or confirmed since (confirming says the memory still holds).
    "stale": "max(e.updated_at, coalesce(e.confirmed_at, '')) < ?",
    "quarantined": "e.quarantined = 1",
    # A memory on no edge; not a chunk mirrored from an indexed file (it follows its
    # file) nor a day's log (a record of the day): nothing to link them to.
    "orphan": "NOT EXISTS (SELECT 1 FROM context_edges g WHERE g.source_id = e.id) "
    "AND NOT EXISTS (SELECT 1 FROM context_edges g WHERE g.target_id = e.id) "
    "AND e.content_type != 'log' "
    "AND NOT EXISTS (SELECT 1 FROM context_sources s WHERE s.rid = e.rid "
    "AND s.anchor IS NOT NULL)",
}


def _args(kind: Kind, stale_before: str) -> tuple[str, ...]:
    return (stale_before,) if kind == "stale" else ()


def ids(conn: apsw.Connection, kind: Kind, stale_before: str) -> list[str]:
    """Every active entry of that kind, oldest update first."""
    cur = conn.execute(
        f"SELECT e.id FROM context_entries e WHERE {_ACTIVE} AND {_WHERE[kind]} "
        "ORDER BY e.updated_at",
        _args(kind, stale_before),
    )
    return [str(r[0]) for r in cur]


def rows(conn: apsw.Connection, kind: Kind, stale_before: str, limit: int) -> list[EntryRow]:
    cur = conn.execute(
        f"SELECT {COLUMNS} FROM {ENTRIES} WHERE {_ACTIVE} AND {_WHERE[kind]} "
        "ORDER BY e.updated_at LIMIT ?",
        (*_args(kind, stale_before), limit),
    )
    return [entry_row(r) for r in cur]

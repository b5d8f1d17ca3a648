"""SQL over context_edges. Foreign keys with ON DELETE CASCADE remove an entry's edges
when it is hard-deleted; the service checks existence first to give clear errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, cast

import apsw
import msgspec

from enyal_protocol.wire import Edge

from .db import in_lists

EDGE_COLUMNS = "id, source_id, target_id, edge_type, confidence, created_at, metadata"

# The validity rules, written once for every query that reads them (recall's annotations,
# health, review, history, supersede checks): an edge of context_edges g counts only
# while the entries that make it are live. A forgotten superseder supersedes nothing;
# restoring it supersedes again (a removed middle of a chain is bridged: close_over).
# A conflict with a forgotten entry is no conflict.
LIVE_SUPERSEDES = (
    "g.edge_type = 'supersedes' AND EXISTS (SELECT 1 FROM context_entries s "
    "WHERE s.id = g.source_id AND s.is_deprecated = 0)"
)
LIVE_CONFLICT = (
    "g.edge_type = 'conflicts_with' AND NOT EXISTS (SELECT 1 FROM context_entries s "
    "WHERE s.id IN (g.source_id, g.target_id) AND s.is_deprecated = 1)"
)
# As of a past moment, "live" means not forgotten in the source's version of then.
_LIVE_SOURCE_THEN = (
    "(SELECT v.is_deprecated FROM context_versions v WHERE v.entry_id = g.source_id "
    "AND v.changed_at <= ? ORDER BY v.version DESC LIMIT 1) = 0"
)


def row_to_edge(row: Sequence[Any]) -> Edge:
    return Edge(
        id=row[0],
        source_id=row[1],
        target_id=row[2],
        edge_type=row[3],
        confidence=row[4],
        created_at=row[5],
        metadata=msgspec.json.decode(row[6]),
    )


def insert(
    conn: apsw.Connection,
    source: str,
    target: str,
    edge_type: str,
    confidence: float,
    metadata: dict[str, Any],
    when: str,
) -> Edge:
    edge = Edge(
        id=str(uuid.uuid4()),
        source_id=source,
        target_id=target,
        edge_type=edge_type,  # type: ignore[arg-type]
        confidence=confidence,
        created_at=when,
        metadata=metadata,
    )
    conn.execute(
        f"INSERT INTO context_edges ({EDGE_COLUMNS}) VALUES (?,?,?,?,?,?,?)",
        (
            edge.id,
            source,
            target,
            edge_type,
            confidence,
            when,
            msgspec.json.encode(metadata).decode(),
        ),
    )
    return edge


def insert_edge(conn: apsw.Connection, edge: Edge) -> None:
    """An edge as it was exported: its own id, time, confidence and metadata."""
    conn.execute(
        f"INSERT INTO context_edges ({EDGE_COLUMNS}) VALUES (?,?,?,?,?,?,?)",
        (
            edge.id,
            edge.source_id,
            edge.target_id,
            edge.edge_type,
            edge.confidence,
            edge.created_at,
            msgspec.json.encode(edge.metadata).decode(),
        ),
    )


def get(conn: apsw.Connection, edge_id: str) -> Edge | None:
    row = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM context_edges WHERE id = ?", (edge_id,)
    ).fetchone()
    return row_to_edge(row) if row else None


def page(conn: apsw.Connection, after: int, limit: int) -> list[tuple[int, Edge]]:
    """(rowid, edge) of the next `limit` edges after rowid `after`, in insertion order."""
    cur = conn.execute(
        f"SELECT rowid, {EDGE_COLUMNS} FROM context_edges WHERE rowid > ? ORDER BY rowid LIMIT ?",
        (after, limit),
    )
    return [(int(r[0]), row_to_edge(r[1:])) for r in cur]


def find(conn: apsw.Connection, source: str, target: str, edge_type: str) -> Edge | None:
    row = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM context_edges "
        "WHERE source_id = ? AND target_id = ? AND edge_type = ?",
        (source, target, edge_type),
    ).fetchone()
    return row_to_edge(row) if row else None


def delete(conn: apsw.Connection, edge_id: str) -> None:
    conn.execute("DELETE FROM context_edges WHERE id = ?", (edge_id,))


def drop_between(conn: apsw.Connection, ids: Sequence[str]) -> None:
    """Delete the edges whose two ends are both among `ids`."""
    marks = ",".join("?" * len(ids))
    conn.execute(
        f"DELETE FROM context_edges WHERE source_id IN ({marks}) AND target_id IN ({marks})",
        (*ids, *ids),
    )


def repoint(conn: apsw.Connection, old: str, new: str) -> int:
    """Move every edge of `old` to `new`; returns how many moved. One that `new` already
    has (same ends and type) would be a duplicate and is dropped instead, as is one that
    would become a loop."""
    moved = 0
    for side in ("source_id", "target_id"):
        # OR IGNORE skips the rows that would break the unique or the no-loop rule; the
        # last statement deletes them.
        conn.execute(f"UPDATE OR IGNORE context_edges SET {side} = ? WHERE {side} = ?", (new, old))
        moved += conn.changes()
    conn.execute("DELETE FROM context_edges WHERE ? IN (source_id, target_id)", (old,))
    return moved


def insert_if_free(conn: apsw.Connection, edge: Edge) -> None:
    """Put back an edge as it was, unless an end is gone or the same edge exists again. It
    gets a new id: the moved copy kept the old one."""
    conn.execute(
        f"INSERT OR IGNORE INTO context_edges ({EDGE_COLUMNS}) SELECT ?,?,?,?,?,?,? "
        "WHERE (SELECT count(*) FROM context_entries WHERE id IN (?, ?)) = 2",
        (
            str(uuid.uuid4()),
            edge.source_id,
            edge.target_id,
            edge.edge_type,
            edge.confidence,
            edge.created_at,
            msgspec.json.encode(edge.metadata).decode(),
            edge.source_id,
            edge.target_id,
        ),
    )


CLOSES_OVER = "closes_over"  # metadata key of an edge that bridges a removed link


def close_over(conn: apsw.Connection, entry_id: str, when: str) -> list[Edge]:
    """Before `entry_id` leaves a supersession chain (forgotten or deleted): each entry
    that supersedes it now also supersedes what it superseded, so the chain holds across
    the gap. Returns the edges added (none already there is duplicated)."""
    pairs = conn.execute(
        "SELECT s.source_id, t.target_id, min(s.confidence, t.confidence) "
        "FROM context_edges s JOIN context_edges t ON t.source_id = s.target_id "
        "WHERE s.target_id = ? AND s.edge_type = 'supersedes' AND t.edge_type = 'supersedes' "
        "AND s.source_id != t.target_id",
        (entry_id,),
    ).fetchall()
    added = []
    for source, target, confidence in pairs:
        if find(conn, str(source), str(target), "supersedes") is None:
            meta = {CLOSES_OVER: entry_id}
            weight = cast(float, confidence)  # min of two REAL NOT NULL columns
            added.append(insert(conn, str(source), str(target), "supersedes", weight, meta, when))
    return added


def reopen(conn: apsw.Connection, entry_id: str) -> list[Edge]:
    """`entry_id` is back in its chain: the edges that closed over it go. Returns them."""
    gone = [
        row_to_edge(r)
        for r in conn.execute(
            f"DELETE FROM context_edges WHERE edge_type = 'supersedes' "
            f"AND json_extract(metadata, '$.{CLOSES_OVER}') = ? RETURNING {EDGE_COLUMNS}",
            (entry_id,),
        )
    ]
    return gone


def merged_by(conn: apsw.Connection, entry_id: str) -> list[Edge]:
    """The supersedes edges consolidation made when it merged `entry_id` into another."""
    cur = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM context_edges WHERE target_id = ? "
        "AND edge_type = 'supersedes' AND json_extract(metadata, '$.consolidated') IS NOT NULL",
        (entry_id,),
    )
    return [row_to_edge(r) for r in cur]


def touching(
    conn: apsw.Connection, ids: Iterable[str], direction: str, types: Sequence[str] = ()
) -> list[Edge]:
    """Edges leaving (outgoing), entering (incoming) or touching (both) any of `ids`."""
    out: dict[str, Edge] = {}
    type_sql = f" AND edge_type IN ({','.join('?' * len(types))})" if types else ""
    sides = {
        "outgoing": ["source_id"],
        "incoming": ["target_id"],
        "both": ["source_id", "target_id"],
    }
    for chunk, marks in in_lists(ids):
        for side in sides[direction]:
            cur = conn.execute(
                f"SELECT {EDGE_COLUMNS} FROM context_edges WHERE {side} IN ({marks}){type_sql} "
                "ORDER BY created_at, id",
                (*chunk, *types),
            )
            for row in cur:
                out[row[0]] = row_to_edge(row)
    return sorted(out.values(), key=lambda e: (e.created_at, e.id))


def validity_kinds(conn: apsw.Connection) -> frozenset[str]:
    """Which of the edge types a recall's validity reads (supersedes, conflicts_with) the
    store holds at all: a store without one has no hit to look it up for."""
    cur = conn.execute(
        "SELECT DISTINCT edge_type FROM context_edges "
        "WHERE edge_type IN ('supersedes', 'conflicts_with')"
    )
    return frozenset(str(r[0]) for r in cur)


def superseded_by(
    conn: apsw.Connection, ids: Sequence[str], as_of: str | None = None
) -> dict[str, str]:
    """For each of `ids` that a live entry supersedes (live then, with `as_of`): the id of
    the newest such superseder."""
    result: dict[str, str] = {}
    live = (
        f"g.edge_type = 'supersedes' AND g.created_at <= ? AND {_LIVE_SOURCE_THEN}"
        if as_of
        else LIVE_SUPERSEDES
    )
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            "SELECT g.target_id, g.source_id FROM context_edges g WHERE "
            f"g.target_id IN ({marks}) AND {live} ORDER BY g.created_at",
            (*chunk, *([as_of, as_of] if as_of else [])),
        )
        for target, source in cur:
            result[target] = source
    return result


def head_of(conn: apsw.Connection, entry_id: str, max_depth: int = 64) -> str:
    """The newest live entry of the supersession chain above `entry_id` (itself if none)."""
    head = entry_id
    for _ in range(max_depth):
        newer = superseded_by(conn, [head]).get(head)
        if newer is None or newer == entry_id:
            break
        head = newer
    return head


def conflicting(conn: apsw.Connection, limit: int) -> list[tuple[str, str]]:
    """The (source, target) ids of live conflicts_with edges, oldest edge first: read from
    the edges (few), not by probing every entry."""
    cur = conn.execute(
        f"SELECT g.source_id, g.target_id FROM context_edges g WHERE {LIVE_CONFLICT} "
        "ORDER BY g.created_at, g.id LIMIT ?",
        (limit,),
    )
    return [(a, b) for a, b in cur]


def conflicted(conn: apsw.Connection, ids: Sequence[str]) -> set[str]:
    """Those of `ids` on either end of a conflicts_with edge between live entries."""
    found: set[str] = set()
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            f"SELECT g.source_id, g.target_id FROM context_edges g WHERE {LIVE_CONFLICT} "
            f"AND (g.source_id IN ({marks}) OR g.target_id IN ({marks}))",
            (*chunk, *chunk),
        )
        wanted = set(chunk)
        for a, b in cur:
            found.update({a, b} & wanted)
    return found


def counts(conn: apsw.Connection) -> tuple[int, dict[str, int], int]:
    """(total edges, edges by type, entries with at least one edge)."""
    by_type = dict(conn.execute("SELECT edge_type, count(*) FROM context_edges GROUP BY 1"))
    row = conn.execute(
        "SELECT count(*) FROM (SELECT source_id AS id FROM context_edges "
        "UNION SELECT target_id FROM context_edges)"
    ).fetchone()
    return sum(by_type.values()), by_type, int(row[0]) if row else 0

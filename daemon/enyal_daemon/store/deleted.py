"""SQL over context_deleted: the ids of memories deleted for good (forget --hard, an
expiry, a hub's tombstone) and when. Only the id and the time: nothing of the text is
kept, but `get`, `history` and `restore` can say the memory is gone for good rather
than that it never was."""

from __future__ import annotations

import apsw

from . import entries


def record(conn: apsw.Connection, entry_id: str, at: str) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO context_deleted (id, deleted_at) VALUES (?, ?)", (entry_id, at)
    )


def find(conn: apsw.Connection, entry_id: str, prefix: bool) -> tuple[str, str] | None:
    """(id, deleted_at) of the memory deleted with this id, or the one whose id this
    prefix starts (None when no or several match)."""
    if not prefix:
        row = conn.execute(
            "SELECT id, deleted_at FROM context_deleted WHERE id = ?", (entry_id,)
        ).fetchone()
        return (str(row[0]), str(row[1])) if row else None
    rows = conn.execute(
        "SELECT id, deleted_at FROM context_deleted WHERE id >= ? AND id < ? LIMIT 2",
        entries.prefix_range(entry_id),
    ).fetchall()
    return (str(rows[0][0]), str(rows[0][1])) if len(rows) == 1 else None

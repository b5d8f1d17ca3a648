"""The project roots seen on this machine, each with the key it had (context_project_roots),
and moving a project's memories (and when it was last briefed) from one key to another."""

from __future__ import annotations

import apsw

from .meta import BRIEFED


def known(conn: apsw.Connection) -> dict[str, str]:
    """root -> the key it had when last seen."""
    return {str(r): str(k) for r, k in conn.execute("SELECT root, key FROM context_project_roots")}


def record(conn: apsw.Connection, root: str, key: str) -> None:
    conn.execute(
        "INSERT INTO context_project_roots(root, key) VALUES (?, ?) "
        "ON CONFLICT(root) DO UPDATE SET key = excluded.key",
        (root, key),
    )


def forget(conn: apsw.Connection, root: str) -> None:
    conn.execute("DELETE FROM context_project_roots WHERE root = ?", (root,))


def rekey(conn: apsw.Connection, old: str, new: str) -> int:
    """Every project and file scope at `old` or under it (`old/...`), and every file
    source_ref, moved to `new`; the number of entries whose scope moved."""
    # Under `old` as a range ('/' + 1 is '0'), which the scope index serves.
    args = (new, len(old) + 1, old, old + "/", old + "0")
    conn.execute(
        "UPDATE context_entries SET scope_path = ? || substr(scope_path, ?) "
        "WHERE scope_level IN ('project', 'file') "
        "AND (scope_path = ? OR (scope_path >= ? AND scope_path < ?))",
        args,
    )
    moved = conn.changes()
    conn.execute(
        "UPDATE context_entries SET source_ref = ? || substr(source_ref, ?) "
        "WHERE source_type = 'file' AND (source_ref = ? OR (source_ref >= ? AND source_ref < ?))",
        args,
    )
    conn.execute(
        "UPDATE context_project_roots SET key = ? || substr(key, ?) "
        "WHERE key = ? OR (key >= ? AND key < ?)",
        args,
    )
    # When the project was last briefed moves with it (unless the new key has its own).
    b = (BRIEFED + new, len(BRIEFED + old) + 1, BRIEFED + old, BRIEFED + old + "/")
    conn.execute(
        "UPDATE OR IGNORE enyal_meta SET key = ? || substr(key, ?) "
        "WHERE key = ? OR (key >= ? AND key < ?)",
        (*b, BRIEFED + old + "0"),
    )
    return int(moved)

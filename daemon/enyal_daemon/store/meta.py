"""Facts about the database itself (enyal_meta): the model its vectors came from."""

from __future__ import annotations

import apsw

# + a project's key: when its last brief was made (service/session/brief.py), then a space and
# the last context_versions.id it saw (briefs before that hold the time alone). Said here so
# the migration and a project's change of key (store/roots.py) move it with the project.
BRIEFED = "last_brief:"


def get(conn: apsw.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM enyal_meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def put(conn: apsw.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO enyal_meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def record_model(conn: apsw.Connection, model_id: str, dim: int, sha256: str) -> None:
    """Which model the database's vectors came from, on the caller's transaction."""
    put(conn, "model_id", model_id)
    put(conn, "model_dim", str(dim))
    put(conn, "model_sha256", sha256)


def delete(conn: apsw.Connection, *keys: str) -> None:
    conn.executemany("DELETE FROM enyal_meta WHERE key = ?", [(k,) for k in keys])

"""Opening the database: one file, WAL, sqlite-vec loaded, schema migrated.

apsw rather than the stdlib sqlite3: many Pythons (pyenv's, python.org's macOS
builds) compile sqlite3 without extension loading, so sqlite-vec cannot load
there. apsw bundles a current SQLite with loading enabled on every platform.
"""

from __future__ import annotations

from pathlib import Path

import apsw
import sqlite_vec

from .migrations import migrate

BUSY_TIMEOUT_MS = 10_000


def connect(path: Path, *, writer: bool) -> apsw.Connection:
    """A connection with sqlite-vec loaded. Only the writer migrates the schema."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = apsw.Connection(str(path))
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    conn.execute("PRAGMA foreign_keys=ON")
    # Pages cached per connection; there is one reader per request thread, so the total is
    # what the daemon's memory pays. Reads are served from the OS page cache anyway: 2 MB
    # for readers changed no latency and saved ~25 MB at 100k (scripts/bench).
    conn.execute(f"PRAGMA cache_size={-16000 if writer else -2000}")
    if writer:
        conn.execute("PRAGMA journal_mode=WAL")
        # FULL: an acknowledged write has reached the disk, not just the OS. The
        # writer's group commit pays one fsync for a whole burst of writes.
        conn.execute("PRAGMA synchronous=FULL")
        migrate(conn)
    return conn


def sqlite_version() -> str:
    return str(apsw.sqlite_lib_version())


def vec_version(conn: apsw.Connection) -> str:
    row = conn.execute("SELECT vec_version()").fetchone()
    return str(row[0]) if row else "?"

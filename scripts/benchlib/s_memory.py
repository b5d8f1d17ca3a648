"""6 and 7. Daemon RSS at the points that matter, and database bytes per memory."""

from __future__ import annotations

from pathlib import Path

import apsw

from benchlib.config import Ctx
from benchlib.procs import Daemon
from benchlib.report import Row, Target, size
from benchlib.stats import Runs

RSS_TARGET_MB = 250.0  # issue 30: at 100k, after the recalls and after the SciFact import
TARGET_AT = 100_000


def rss_row(ctx: Ctx, daemon: Daemon, n: int, when: str, goal: bool = False) -> None:
    """`goal`: this reading is one the issue sets a bound for (at 100k only)."""
    rss, hwm = daemon.rss()
    target = Target("<=", RSS_TARGET_MB) if goal and n == TARGET_AT else None
    ctx.report.add(
        Row("6", f"daemon RSS {when}", size(n), Runs([rss]), "MB", target, f"peak {hwm:.0f} MB")
    )


def empty_daemon(ctx: Ctx) -> None:
    home = ctx.work / "empty"
    d = Daemon.start(home)
    try:
        conn = d.connect()
        conn.call_raw("recall", {"query": "warm-up"})
        conn.close()
        rss, hwm = d.rss()
        ctx.report.add(
            Row(
                "6",
                "daemon RSS after start, empty store",
                "0",
                Runs([rss]),
                "MB",
                note=f"peak {hwm:.0f} MB; start {d.start_seconds:.2f} s",
            )
        )
    finally:
        d.stop()


def _tables(db: Path) -> dict[str, int]:
    """Bytes per table family (entries, vectors, fts, other) from the dbstat table."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = list(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    except apsw.Error:
        return {}
    finally:
        conn.close()
    out = {"entries": 0, "vectors": 0, "fts": 0, "other": 0}
    for name, nbytes in rows:
        if name.startswith("context_vectors"):
            out["vectors"] += nbytes
        elif name.startswith("context_fts"):
            out["fts"] += nbytes
        elif name.startswith(
            ("context_entries", "context_access", "idx_entries", "sqlite_autoindex_context")
        ):
            out["entries"] += nbytes
        else:
            out["other"] += nbytes
    return out


def storage(ctx: Ctx, db: Path, n: int) -> None:
    nbytes = db.stat().st_size
    parts = _tables(db)
    note = ", ".join(f"{k} {v / n:.0f}" for k, v in parts.items() if v) if parts else ""
    ctx.report.add(Row("7", "DB bytes per memory", size(n), Runs([nbytes / n]), "B", note=note))
    ctx.report.extra.setdefault("storage", {})[str(n)] = {"file_bytes": nbytes, **parts}

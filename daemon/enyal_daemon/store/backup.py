"""An online copy of the database with SQLite's backup API.

The copy is made from a read connection in one step: under WAL that is one
snapshot, so the copy is consistent however many writes commit meanwhile (they go
on, into the WAL), and it holds every committed write up to its start. It is
written to a temporary file beside the target and renamed into place, so a target
path never holds half a copy.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import apsw


def copy(source: apsw.Connection, target: Path) -> tuple[int, int]:
    """Copy `source`'s main database into `target`: (the copy's bytes, its entries)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        # Made 0600 before a page is copied into it (the umask would give 0644 until the
        # rename); SQLite gives its journal the database file's mode, so that one too.
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600))
        os.chmod(tmp, 0o600)
        dest = apsw.Connection(str(tmp))
        try:
            with dest.backup("main", source, "main") as b:
                b.step(-1)  # all pages, one snapshot
            # A self-contained single file: no WAL beside it to lose when copied around.
            dest.execute("PRAGMA journal_mode=DELETE")
            row = dest.execute("SELECT count(*) FROM context_entries").fetchone()
            count = int(row[0]) if row else 0
        finally:
            dest.close()
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return target.stat().st_size, count

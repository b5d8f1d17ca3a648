"""SQLite's storage failures, said as what they are.

A full disk, a read-only file or folder and an I/O error are not bugs: the
request was fine and the machine cannot take it. They get their own error
(StorageError, -32009) with what a person can act on — how much space is left
and where — while reads go on being served. Every other SQLite error is a bug
and stays one.
"""

from __future__ import annotations

import os
from pathlib import Path

import apsw

from ..errors import Busy, StorageError
from .db import BUSY_TIMEOUT_MS

# The apsw exceptions describe() turns into a StorageError.
STORAGE_FAILURES = (apsw.FullError, apsw.ReadOnlyError, apsw.IOError, apsw.CantOpenError)


def free_bytes(path: Path) -> int | None:
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


# Another process holds the database's write lock past the busy timeout (db.py).
LOCKED = (apsw.BusyError, apsw.LockedError)


def describe(exc: BaseException, db: Path) -> StorageError | Busy | None:
    """The error an SQLite exception means, or None if it is not about storage."""
    where = db.parent
    if isinstance(exc, LOCKED):
        return Busy(
            f"the database {db} is locked by another process (waited "
            f"{BUSY_TIMEOUT_MS / 1000:.0f} s); nothing was written. Try again",
            {"reason": "locked", "path": str(db), "waited_ms": BUSY_TIMEOUT_MS},
        )
    if isinstance(exc, apsw.FullError):
        free = free_bytes(where)
        room = f"{free / 1e6:.1f} MB free" if free is not None else "no room"
        return StorageError(
            f"disk full: {room} on {where}; nothing was written. Free some space: "
            "Enyal carries on by itself, and reads work meanwhile",
            {"reason": "full", "free_bytes": free, "path": str(where)},
        )
    if isinstance(exc, apsw.ReadOnlyError):
        return StorageError(
            f"the database {db} is read-only ({exc}); nothing was written. Reads work; "
            "give the file and its folder write permission back to write again",
            {"reason": "read-only", "path": str(db)},
        )
    if isinstance(exc, STORAGE_FAILURES):
        return StorageError(
            f"I/O error on {db}: {exc}; nothing was written",
            {"reason": "io", "path": str(db)},
        )
    return None

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

from ..errors import StorageError

# The apsw exceptions describe() turns into a StorageError.
STORAGE_FAILURES = (apsw.FullError, apsw.ReadOnlyError, apsw.IOError, apsw.CantOpenError)


def free_bytes(path: Path) -> int | None:
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def describe(exc: BaseException, db: Path) -> StorageError | None:
    """The StorageError an SQLite exception means, or None if it is not about storage."""
    where = db.parent
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

"""Which daemon serves a database: a lock file beside it, enyal.db.lock.

The daemon holds an exclusive lock on it for its life and writes its pid and
socket into it. The lock lives with the database, not with the runtime folder:
two shells with different XDG_RUNTIME_DIR (a desktop session and an ssh or cron
one) look for different sockets but share one database, and two daemons on one
database would each keep an index the other's writes never reach. A client that
finds no daemon at its own socket reads the file to find the one that owns the
database.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

import msgspec

from .paths import Paths

LOCK_NAME = "enyal.db.lock"


class Owner(msgspec.Struct, frozen=True):
    pid: int
    socket: str


def lock_path(paths: Paths) -> Path:
    return paths.db.with_name(LOCK_NAME)


def current_owner(paths: Paths) -> Owner | None:
    """The daemon holding the database's lock, or None when no process holds it."""
    try:
        f = lock_path(paths).open("rb")
    except FileNotFoundError:
        return None
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                return msgspec.json.decode(f.read(), type=Owner)
            except msgspec.DecodeError:  # written between our open and read: not yet
                return None
        fcntl.flock(f, fcntl.LOCK_UN)
        return None

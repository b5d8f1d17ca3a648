"""The two locks that say who may write a home's database: the pidfile's (one process
per home: the daemon, or an offline tool such as `reindex` or a bulk load) and the
database's own (enyal_protocol/ownership.py: one daemon per database, whichever runtime
folder started it). Both are flock()s held for the life of the holder, so the kernel
drops them when it dies, however it dies.

Here, and not under server/, because the offline tools take the pidfile's lock too and
must not import the daemon's server to do it.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import msgspec

from enyal_protocol import ownership
from enyal_protocol.paths import Paths, ensure_private_dir
from enyal_protocol.private import make_private_dirs

from .errors import AlreadyRunning

log = logging.getLogger("enyal.daemon")

# How long a daemon waits for a predecessor that holds the pidfile but does not answer
# yet (still loading its model, or exiting after idling) before it gives up.
LOCK_WAIT_SECONDS = 30.0


def lock_pidfile(path: Path) -> IO[str]:
    """Hold an exclusive lock on the pidfile for the life of the process."""
    ensure_private_dir(path.parent)
    f = path.open("a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        other = f.read().strip() or "?"
        f.close()
        raise AlreadyRunning(
            f"another enyal daemon (pid {other}) already serves {path.parent}"
        ) from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def release_pidfile(path: Path, f: IO[str]) -> None:
    """The pidfile goes before its lock: a successor that won the lock on the unlinked
    file would find it is not the one at the path (acquire_pidfile) and try again."""
    with contextlib.suppress(OSError):
        path.unlink()
    f.close()


@contextlib.contextmanager
def pidfile_held(path: Path) -> Iterator[None]:
    """The pidfile's lock for an offline job: no daemon runs on this home meanwhile (one
    running makes this raise AlreadyRunning; one started meanwhile exits as such)."""
    f = lock_pidfile(path)
    try:
        yield
    finally:
        release_pidfile(path, f)


def _same_file(f: IO[str], path: Path) -> bool:
    try:
        a, b = os.fstat(f.fileno()), os.stat(path)
    except FileNotFoundError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def acquire_pidfile(
    path: Path, *, holder_alive: Callable[[], bool], wait: float = LOCK_WAIT_SECONDS
) -> IO[str]:
    """lock_pidfile, patient with a predecessor that holds the lock but does not answer yet.

    A holder that `holder_alive` says is alive (a daemon answering on the socket) makes a
    second one exit at once. One that does not answer is loading its model or exiting after
    idling; we wait for it, `wait` seconds at most."""
    deadline = time.monotonic() + wait
    while True:
        try:
            f = lock_pidfile(path)
        except AlreadyRunning:
            if holder_alive() or time.monotonic() >= deadline:
                raise
            time.sleep(0.1)
            continue
        # The previous owner unlinks the pidfile as it exits: a lock won on the unlinked
        # file would let a third daemon lock the new one. Only the file at the path counts.
        if _same_file(f, path):
            return f
        f.close()


def lock_database(paths: Paths) -> IO[bytes] | None:
    """Hold the database's own lock (enyal_protocol/ownership.py) for the life of the
    process: one daemon per database, whichever runtime folder it was started from.
    In a read-only folder the lock is held if the file is there, and skipped if not:
    a daemon that cannot write cannot corrupt what another one writes."""
    path = ownership.lock_path(paths)
    try:
        make_private_dirs(path.parent)  # the database's folder (store/db.py)
        f: IO[bytes] = path.open("a+b")
    except OSError:
        try:
            f = path.open("rb")
        except OSError:
            log.warning("cannot create %s (read-only folder): serving without it", path)
            return None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        owner = ownership.current_owner(paths)
        where = f"pid {owner.pid}, socket {owner.socket}" if owner else "starting up"
        raise AlreadyRunning(
            f"another enyal daemon ({where}) already serves the database {paths.db}"
        ) from None
    if f.writable():
        f.seek(0)
        f.truncate()
        f.write(msgspec.json.encode(ownership.Owner(pid=os.getpid(), socket=str(paths.socket))))
        f.flush()
    return f

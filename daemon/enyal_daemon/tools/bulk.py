"""Bulk loading: entries with precomputed vectors written straight into a database file.

An internal path for benchmarks and tests, not a user feature: it lets a store of
a million memories be built in minutes instead of the hours embedding them would
take. It writes through the same store functions the daemon uses
(entries.insert: the context_entries row, its vec0 vector with rowid = rid, and
by trigger its FTS5 row), records the model like the daemon does, and refuses to
run while a daemon holds the home's pidfile, because the daemon's in-memory index
would not see these rows. Start the daemon afterwards; it loads them at start.

    from enyal_daemon.tools import bulk
    bulk.load(paths.db, items, locate(paths.data_dir), pid_file=paths.pid_file)

`items` yields (Entry, vector) pairs; each vector is (384,) float32 and should be
unit length, as the embedder's are (checked). Entries get no passage vectors
(embedder/passages.py): a text longer than a passage is found by its whole vector only,
which suits the short memories benchmarks load. Where the vectors come from is the
caller's business, and the caller must say (scripts/benchlib/corpus.py does).
Durability: batches commit with synchronous=OFF (a power cut mid-load can lose
the file; a killed process cannot corrupt it), then the WAL is checkpointed and
fsynced once at the end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from enyal_protocol import wire as p

from ..embedder.model_files import DIM, ModelFiles
from ..errors import AlreadyRunning, Conflict, InvalidValue
from ..locks import lock_pidfile, release_pidfile
from ..service.core.engine import bind_model
from ..store import db, entries, text_segments

Item = tuple[p.Entry, npt.NDArray[np.float32]]
BATCH = 5000
NORM_TOLERANCE = 1e-3


@contextlib.contextmanager
def _daemon_stopped(pid_file: Path | None) -> Iterator[None]:
    """Hold the pidfile's lock (locks.py), so no daemon starts (or is running) while we
    write. A running one is a Conflict here: the caller's to stop, not a failed start."""
    if pid_file is None:
        yield
        return
    try:
        f = lock_pidfile(pid_file)
    except AlreadyRunning:
        raise Conflict(
            f"a daemon is running on {pid_file.parent}; stop it before a bulk load"
        ) from None
    try:
        yield
    finally:
        release_pidfile(pid_file, f)


def _checked(vec: npt.NDArray[np.float32]) -> bytes:
    v = np.asarray(vec, dtype=np.float32)
    if v.shape != (DIM,):
        raise InvalidValue(f"a vector must have shape ({DIM},), not {v.shape}")
    norm = float(np.linalg.norm(v))
    if abs(norm - 1.0) > NORM_TOLERANCE:
        raise InvalidValue(f"a vector must be unit length (norm {norm:.4f})")
    return v.tobytes()


def load(
    db_path: Path,
    items: Iterable[Item],
    files: ModelFiles,
    *,
    pid_file: Path | None = None,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Insert every (entry, vector); returns how many were stored. One transaction per
    `batch` entries; an entry whose id exists already fails the whole batch (apsw raises)."""
    stored = 0
    with _daemon_stopped(pid_file):
        conn = db.connect(db_path, writer=True)
        try:
            bind_model(conn, files, DIM)
            conn.execute("PRAGMA synchronous=OFF")
            pending: list[Item] = []

            def flush() -> None:
                nonlocal stored
                with conn:
                    for entry, vec in pending:
                        # No passages: the caller's vectors are the whole texts'
                        # (the bench's memories fit in one passage; see the docstring).
                        entries.insert(conn, entry, _checked(vec), ())
                stored += len(pending)
                pending.clear()
                if progress is not None:
                    progress(stored)

            for item in items:
                pending.append(item)
                if len(pending) >= batch:
                    flush()
            if pending:
                flush()
            # As the daemon leaves a store once writes go quiet (service/upkeep/
            # text_merge.py): a daemon started on a loaded store then measures or serves
            # that state, not its own merge in its first seconds.
            with conn:
                text_segments.merge_whole(conn)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    return stored

"""Opening the database: one file, WAL, sqlite-vec loaded, schema migrated.

apsw rather than the stdlib sqlite3: many Pythons (pyenv's, python.org's macOS
builds) compile sqlite3 without extension loading, so sqlite-vec cannot load
there. apsw bundles a current SQLite with loading enabled on every platform.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

import apsw
import sqlite_vec

from enyal_protocol.private import make_private_dirs

from ..errors import StorageError
from . import cjk
from .migrations import migrate

T = TypeVar("T")

# How long a connection waits for a lock another process holds (the daemon's own writes
# never wait: one writer). Then the write is refused as Busy (store/failures.py), so a
# client hears "try again" in seconds rather than waiting on a lock nobody releases.
BUSY_TIMEOUT_MS = 5_000
# The database file grows (and is truncated) to a multiple of this (`grow_in_chunks`).
DB_CHUNK = 4 << 20


def writable(path: Path) -> bool:
    """Whether the database (and the folder its WAL lives in) can be written: false on a
    read-only file, folder or file system."""
    if path.exists() and not os.access(path, os.W_OK):
        return False
    return os.access(path.parent, os.W_OK)


def connect(path: Path, *, writer: bool) -> apsw.Connection:
    """A connection with sqlite-vec loaded. Only the writer migrates the schema. A database
    that cannot be written is opened read-only: reads work, writes fail as ReadOnlyError
    (said as a StorageError by store/failures.py)."""
    if not path.exists():
        make_private_dirs(path.parent)  # the database's folder: only its user may look in
    if not writable(path):
        if not path.exists():
            raise StorageError(
                f"cannot create the database {path}: its folder is read-only",
                {"reason": "read-only", "path": str(path)},
            )
        conn = _open_read_only(path)
        _load_vec(conn)
        cjk.register(conn)
        return conn
    conn = apsw.Connection(str(path))
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    grow_in_chunks(conn)  # every connection that may checkpoint: the writer, its checkpointer
    _load_vec(conn)
    cjk.register(conn)
    conn.execute("PRAGMA foreign_keys=ON")
    # Pages cached per connection; there is one reader per request thread, so the total is
    # what the daemon's memory pays. Reads are served from the OS page cache anyway: 2 MB
    # for readers changed no latency and saved ~25 MB at 100k (scripts/bench).
    conn.execute(f"PRAGMA cache_size={-16000 if writer else -2000}")
    if writer:
        # Deleted rows and freed pages are overwritten with zeros, not left in free space:
        # a hard delete, an expiry or a redaction leaves no byte of the old text (with
        # the FTS index's own secure-delete, and the WAL emptied after: see `purge`).
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("PRAGMA journal_mode=WAL")
        # FULL: an acknowledged write has reached the disk, not just the OS. The
        # writer's group commit pays one fsync for a whole burst of writes.
        conn.execute("PRAGMA synchronous=FULL")
        migrate(conn)
    return conn


def _open_read_only(path: Path) -> apsw.Connection:
    """SQLite opens a WAL database read-only only if its -shm file exists or can be made.
    In a read-only folder after a clean stop (WAL checkpointed and removed) neither holds:
    then the file is opened immutable, which is exact, since nothing can change it."""
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    shm = path.with_name(path.name + "-shm")
    if shm.exists() or os.access(path.parent, os.W_OK):
        return apsw.Connection(f"file:{quote(str(path))}?mode=ro", flags=flags)
    return apsw.Connection(f"file:{quote(str(path))}?immutable=1", flags=flags)


def _load_vec(conn: apsw.Connection) -> None:
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)


def read_only(conn: apsw.Connection) -> bool:
    return bool(conn.readonly("main"))


def sqlite_version() -> str:
    return str(apsw.sqlite_lib_version())


def vec_version(conn: apsw.Connection) -> str:
    row = conn.execute("SELECT vec_version()").fetchone()
    return str(row[0]) if row else "?"


def vacuum(conn: apsw.Connection) -> None:
    """Rebuild the file from its live rows: text deleted or overwritten earlier lingers in
    free space inside pages until then. Outside any transaction; holds the writer."""
    conn.execute("VACUUM")


def checkpoint(conn: apsw.Connection) -> bool:
    """Copy the WAL into the database file and truncate it; False when a reader's snapshot
    kept part of it (a later checkpoint finishes the job)."""
    row = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return row is not None and not row[0]


def reserve_wal(conn: apsw.Connection, size: int, most: int) -> tuple[bool, int]:
    """The WAL file extended with zeros towards `size` bytes, `most` at a time, and made
    durable: (whether it is still short, its size). A commit whose frames go past the
    file's end also commits the file system's journal (the new blocks) in its fsync: on
    this VM's ext4 a 100 KB fdatasync's p90 was 16-22 ms appending against 8-11
    overwriting (docs/ARCHITECTURE.md, "Round sixteen"). SQLite reads a WAL up to its
    last valid frame and writes it from the start again after a checkpoint, so what lies
    past its frames is never read: the zeros only make the blocks. The caller holds the
    writer's turn (a job): no frame is appended meanwhile, and only bytes past the
    file's end are written."""
    try:
        fd = os.open(conn.filename_wal, os.O_WRONLY)
    except FileNotFoundError:  # nothing written yet: SQLite makes it
        return False, 0
    try:
        end = os.fstat(fd).st_size
        if end >= size:
            return False, end
        step = min(most, size - end)
        os.pwrite(fd, bytes(step), end)
        os.fdatasync(fd)
        return end + step < size, end + step
    finally:
        os.close(fd)


def grow_in_chunks(conn: apsw.Connection) -> None:
    """The database file grown (and truncated) to a multiple of DB_CHUNK bytes by this
    connection (SQLITE_FCNTL_CHUNK_SIZE: SQLite writes a byte in each new block, so the
    blocks are there, not holes). A checkpoint that writes pages past the file's end
    allocates blocks, and its fdatasync then commits ext4's journal too: on this VM, 60
    random pages and 12 appended, fdatasync p50 8.0 / p99 20 ms against 4.0 / 9.7 with the
    12 written inside blocks already there (docs/ARCHITECTURE.md, "Round seventeen
    (writes)"). The file is at most DB_CHUNK bytes larger than its pages."""
    value = ctypes.c_int(DB_CHUNK)
    conn.file_control("main", apsw.SQLITE_FCNTL_CHUNK_SIZE, ctypes.addressof(value))


def cut_to_pages(conn: apsw.Connection) -> None:
    """The database file cut to its pages, made durable. A checkpoint that shrinks it
    (after a VACUUM) truncates to a multiple of DB_CHUNK, and what lies past the pages is
    then old pages' bytes: text the vacuum was to remove among them. Only with no frame
    left in the WAL past the pages (emptied), or a checkpoint could copy one there."""
    pages = conn.execute("PRAGMA page_count").fetchone()
    page = conn.execute("PRAGMA page_size").fetchone()
    if pages is None or page is None:
        return
    size = int(pages[0]) * int(page[0])
    fd = os.open(conn.filename, os.O_WRONLY)
    try:
        if os.fstat(fd).st_size > size:
            os.ftruncate(fd, size)
            os.fsync(fd)
    finally:
        os.close(fd)


IN_LIST = 500  # values per IN (...) list, well under SQLite's variable limit


def in_lists(values: Iterable[T]) -> Iterator[tuple[list[T], str]]:
    """`values` in lists short enough for one IN (...) each, with that list's `?,?,…`."""
    items = list(values)
    for start in range(0, len(items), IN_LIST):
        chunk = items[start : start + IN_LIST]
        yield chunk, ",".join("?" * len(chunk))


def present(conn: apsw.Connection, table: str, column: str, values: Iterable[str]) -> set[str]:
    """Which of `values` stand in `table`'s `column` (an indexed key: one seek a value)."""
    found: set[str] = set()
    for chunk, marks in in_lists(values):
        cur = conn.execute(f"SELECT {column} FROM {table} WHERE {column} IN ({marks})", chunk)
        found.update(str(r[0]) for r in cur)
    return found

"""The single writer: acknowledged writes ahead of bookkeeping, checkpoints off its thread,
and bookkeeping written in small chunks."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import apsw
import pytest

from enyal_daemon import niced
from enyal_daemon.niced import NICE, Niced
from enyal_daemon.service.core import bookkeeping as bookkeeping_module
from enyal_daemon.service.hub.replica import replica_of
from enyal_daemon.service.memory import memories
from enyal_daemon.store import analytics, db
from enyal_daemon.store import writer as writer_module
from enyal_daemon.store.writer import Tx, Writer
from enyal_protocol import wire as p


@pytest.fixture
def writer(home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    # No WAL grown at open: a step of it would take the turn the tests' writes look at.
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_KEPT", 0)
    path = home / "w.db"
    conn = db.connect(path, writer=True)
    conn.execute("CREATE TABLE log (job TEXT, txn INTEGER)")
    w = Writer(conn, db.connect(path, writer=False))
    yield w
    w.close()


def test_durable_writes_commit_before_bookkeeping_queued_ahead_of_them(writer: Any) -> None:
    started, release = threading.Event(), threading.Event()

    def blocker(tx: Tx) -> None:
        started.set()
        release.wait(10)

    def record(name: str) -> Any:
        def job(tx: Tx) -> None:
            # the transaction's first rowid tells jobs of one transaction from another
            tx.conn.execute("INSERT INTO log VALUES (?, (SELECT count(*) FROM log))", (name,))

        return job

    first = writer.submit(blocker, durable=False)
    assert started.wait(10)
    book = writer.submit(record("bookkeeping"), durable=False)  # queued while blocked
    ack = writer.submit(record("remember"))
    release.set()
    for fut in (first, book, ack):
        fut.result(10)
    order = [r[0] for r in writer.conn.execute("SELECT job FROM log ORDER BY rowid")]
    assert order == ["remember", "bookkeeping"]


def test_a_background_job_commits_alone_on_the_niced_thread_and_the_jobs_behind_it_after(
    writer: Any,
) -> None:
    """A replica's catch-up's job (issue 28): its statements and its commit run at low CPU
    priority, so a recall's threads get the cores; a job queued with it shares neither its
    transaction nor its priority, and the order holds."""
    started, release = threading.Event(), threading.Event()
    seen: dict[str, tuple[str, int, int]] = {}

    def blocker(tx: Tx) -> None:
        started.set()
        release.wait(10)

    def record(name: str) -> Any:
        def job(tx: Tx) -> None:
            tid = threading.get_native_id()
            priority = os.getpriority(os.PRIO_PROCESS, tid)
            seen[name] = (threading.current_thread().name, priority, writer.version.value)
            tx.conn.execute("INSERT INTO log VALUES (?, 0)", (name,))

        return job

    first = writer.submit(blocker)
    assert started.wait(10)
    queued = [  # all three waiting together: before, they made one transaction
        writer.submit(record("before")),
        writer.submit(record("catch-up"), background=True),
        writer.submit(record("after")),
    ]
    release.set()
    for fut in (first, *queued):
        fut.result(10)
    order = [r[0] for r in writer.conn.execute("SELECT job FROM log ORDER BY rowid")]
    assert order == ["before", "catch-up", "after"]
    assert [seen[n][0] for n in order] == ["enyal-writer", "enyal-writer-low", "enyal-writer"]
    versions = [seen[n][2] for n in order]
    assert versions == [versions[0], versions[0] + 1, versions[0] + 2]  # three commits
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert seen["before"][1] == seen["after"][1] == own
    if sys.platform.startswith("linux"):
        assert seen["catch-up"][1] == min(19, own + NICE)


def test_a_background_jobs_after_commit_work_runs_at_the_daemons_priority(
    writer: Any, home: Path
) -> None:
    """What follows a catch-up's commit takes locks a request waits for (the vector index's
    write lock, as a slice's vectors load): held by the niced thread while other work
    kept it off a core, a recall waited up to ~0.3 s (issue 28). So the hooks run on the
    writer's thread, after the niced commit, in order, before the job is answered."""
    ran: list[tuple[str, int, bool]] = []
    committed: list[int] = []
    other = db.connect(home / "w.db", writer=False)  # sees the row once committed

    def job(tx: Tx) -> str:
        tx.conn.execute("INSERT INTO log VALUES ('catch-up', 0)")

        def hook() -> None:
            committed.append(other.execute("SELECT count(*) FROM log").fetchone()[0])
            tid = threading.get_native_id()
            ran.append(
                (
                    threading.current_thread().name,
                    os.getpriority(os.PRIO_PROCESS, tid),
                    niced.here(),
                )
            )

        tx.after_commit.append(hook)
        return "done"

    assert writer.submit(job, background=True).result(10) == "done"
    assert ran == [("enyal-writer", os.getpriority(os.PRIO_PROCESS, 0), False)]
    assert committed == [1]  # after the commit, the answer after the hook
    other.close()


def test_checkpoints_run_off_the_writer_at_low_priority(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PASSIVE checkpoint blocks nobody, but copies the WAL and fsyncs beside the
    requests: a replica's initial sync fills the WAL, and its checkpoints took a core from
    a recall (issue 28). It runs NICE steps below the daemon, as a catch-up's job does."""
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10)
    path = home / "w.db"
    conn = db.connect(path, writer=True)
    conn.execute("CREATE TABLE log (job TEXT)")
    checkpoints: list[tuple[str, int]] = []
    done = threading.Event()

    class Checkpointer:
        real = db.connect(path, writer=False)

        def wal_checkpoint(self, **kw: Any) -> Any:
            tid = threading.get_native_id()
            checkpoints.append(
                (threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, tid))
            )
            done.set()
            return self.real.wal_checkpoint(**kw)

        def close(self) -> None:
            self.real.close()

    w = Writer(conn, Checkpointer())  # type: ignore[arg-type]
    try:
        for _ in range(30):
            w.run(lambda tx: tx.conn.execute("INSERT INTO log VALUES (?)", ("x" * 3000,)))
        assert done.wait(10)
    finally:
        w.close()
    own = os.getpriority(os.PRIO_PROCESS, 0)
    low = min(19, own + NICE) if sys.platform.startswith("linux") else own
    assert set(checkpoints) == {("enyal-checkpoint", low)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own


def _log_writer(path: Path) -> tuple[Any, Writer]:
    """A writer on a new database of one table, with a checkpointer of its own."""
    conn = db.connect(path, writer=True)
    conn.execute("CREATE TABLE log (job TEXT)")
    return conn, Writer(conn, db.connect(path, writer=False))


def _stream(w: Writer, rows: range) -> None:
    """A commit a row, ~8 KB of frames each."""
    for i in rows:
        w.run(lambda tx, i=i: tx.conn.execute("INSERT INTO log VALUES (?)", (f"{i}" * 3000,)))


def test_the_wal_file_is_kept_ahead_of_its_frames_and_read_back_whole(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream of commits finds the WAL file's blocks already there (zeros written ahead
    on the writer's turn once commits pause, not between them), so its fsyncs overwrite
    instead of growing the file; the database, copied as a crash would leave it
    mid-stream, reads every commit back."""
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10**6)  # no restart
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_STEP", 10**6)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_QUIET", 1.0)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_AHEAD_FROM", 64 << 10)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_KEPT", 0)  # none grown at open
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_AHEAD", 512 << 10)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_STEP", 128 << 10)
    path = home / "w.db"
    conn, w = _log_writer(path)
    wal = Path(conn.filename_wal)
    try:
        _stream(w, range(20))  # ~160 KB of frames: past WAL_AHEAD_FROM
        frames = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
        used = 32 + frames * (4096 + 24)
        assert wal.stat().st_size < used + (128 << 10)  # not while the commits came
        for _ in range(500):  # the steps run in lulls, one after another
            if wal.stat().st_size >= used + (512 << 10) - (128 << 10):
                break
            threading.Event().wait(0.01)
        ahead = wal.stat().st_size
        assert ahead >= used + (512 << 10) - (128 << 10)
        _stream(w, range(20, 30))  # within what is ahead: the file does not grow
        crashed = home / "crashed"
        crashed.mkdir()
        for f in (path, wal):
            (crashed / f.name).write_bytes(f.read_bytes())
    finally:
        w.close()
    assert ahead > used
    back = db.connect(crashed / path.name, writer=False)
    rows = [r[0] for r in back.execute("SELECT job FROM log ORDER BY rowid")]
    assert rows == [f"{i}" * 3000 for i in range(30)]


def test_the_wal_is_extended_a_step_at_a_time_not_after_every_commit(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the WAL file is ahead of its frames, a few small commits, each followed by a
    lull, use what is ahead: no extension step (a write and an fdatasync) for each."""
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10**6)
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_STEP", 10**6)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_QUIET", 0.05)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_AHEAD_FROM", 64 << 10)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_KEPT", 0)  # none grown at open
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_AHEAD", 512 << 10)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_STEP", 512 << 10)
    steps: list[int] = []
    real = db.reserve_wal

    def counted(conn: Any, size: int, most: int) -> tuple[bool, int]:
        steps.append(size)
        return real(conn, size, most)

    monkeypatch.setattr(db, "reserve_wal", counted)
    path = home / "w.db"
    conn, w = _log_writer(path)
    wal = Path(conn.filename_wal)
    try:
        _stream(w, range(20))  # ~160 KB of frames: past WAL_AHEAD_FROM
        for _ in range(300):
            if steps and wal.stat().st_size > 500 << 10:
                break
            threading.Event().wait(0.01)
        assert len(steps) == 1, "the first extension, in the lull after the stream"
        for i in range(5):  # each a lull of its own, within what is ahead
            w.run(lambda tx, i=i: tx.conn.execute("INSERT INTO log VALUES (?)", (f"{i}" * 900,)))
            threading.Event().wait(0.15)
        assert len(steps) == 1, steps
    finally:
        w.close()


def _wal_size(path: Path) -> int:
    """The WAL file's size, read off the file system: the writer's connection may be busy."""
    return os.path.getsize(f"{path}-wal")


def test_the_wal_file_is_grown_to_its_working_size_at_open_and_after_it_is_emptied(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before any stream of writes (which leaves no quiet spell for it), the WAL file is
    grown with zeros to its working size, so the stream's commits overwrite blocks instead
    of adding them; a copy taken as a crash would leave it reads every commit back. Emptied
    (a hard delete's purge truncates it), it is grown again with zeros only: not a byte of
    the old frames comes back."""
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10**6)  # a copy whole
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_STEP", 10**6)
    path = home / "w.db"
    _, w = _log_writer(path)
    kept = min(writer_module.WAL_KEPT, path.stat().st_size)
    try:
        assert kept >= 1 << 20  # the database file is a chunk at least (db.DB_CHUNK)
        _until(lambda: _wal_size(path) >= kept)  # not grown at open: times out
        grown = _wal_size(path)
        _stream(w, range(20))  # ~160 KB of frames, inside what was grown
        assert _wal_size(path) == grown, "a commit grew the file"
        crashed = home / "crashed"
        crashed.mkdir()
        for f in (path, Path(f"{path}-wal")):
            (crashed / f.name).write_bytes(f.read_bytes())
        assert (crashed / f"{path.name}-wal").read_bytes()[-(512 << 10) :] == bytes(512 << 10)
        emptied: list[bool] = []
        w.run(lambda tx: tx.after_commit.append(lambda: emptied.append(w.empty_wal(cut=True))))
        assert emptied == [True]
        kept = min(writer_module.WAL_KEPT, path.stat().st_size)  # the file cut to its pages
        _until(lambda: _wal_size(path) >= kept)
        wal = Path(f"{path}-wal").read_bytes()
        assert len(wal) >= kept, "not grown again after it was emptied"
        assert wal == bytes(len(wal)), "old frames' bytes in the WAL file"
    finally:
        w.close()
    back = db.connect(crashed / path.name, writer=False)
    rows = [r[0] for r in back.execute("SELECT job FROM log ORDER BY rowid")]
    assert rows == [f"{i}" * 3000 for i in range(20)]
    assert back.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_wal_extension_refused_leaves_the_checkpoints_running(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the database's write lock when the WAL is to be extended
    ahead: the step is refused (its job cannot begin) and the checkpoint thread goes on,
    checkpointing once the lock is free (the step's BusyError ended the thread, and every
    checkpoint after it, in the torture's "outside write lock" case)."""
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_QUIET", 0.2)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_AHEAD_FROM", 64 << 10)
    monkeypatch.setattr("enyal_daemon.store.writer.WAL_KEPT", 0)  # none grown at open
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAUSE", 0.0)
    path = home / "w.db"
    conn = db.connect(path, writer=True)
    conn.set_busy_timeout(100)
    conn.execute("CREATE TABLE log (job TEXT)")
    checkpointed = threading.Event()

    class Checkpointer:
        real = db.connect(path, writer=False)

        def wal_checkpoint(self, **kw: Any) -> Any:
            checkpointed.set()
            return self.real.wal_checkpoint(**kw)

        def close(self) -> None:
            self.real.close()

    w = Writer(conn, Checkpointer())  # type: ignore[arg-type]
    outside = apsw.Connection(str(path))
    try:
        for i in range(20):  # ~160 KB of frames: an extension is due once they pause
            w.run(lambda tx, i=i: tx.conn.execute("INSERT INTO log VALUES (?)", (f"{i}" * 3000,)))
        outside.execute("BEGIN IMMEDIATE")  # before the quiet spell ends
        threading.Event().wait(0.6)  # the step tried and refused
        outside.execute("ROLLBACK")
        assert w._checkpoint_thread is not None and w._checkpoint_thread.is_alive()
        monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 1)
        w.run(lambda tx: tx.conn.execute("INSERT INTO log VALUES ('after')"))
        assert checkpointed.wait(10), "no checkpoint after the refused step"
    finally:
        outside.close()
        w.close()


class _Timed:
    """A checkpointer that notes when each checkpoint starts."""

    def __init__(self, path: Path) -> None:
        self.real = db.connect(path, writer=False)
        self.starts: list[float] = []

    def wal_checkpoint(self, **kw: Any) -> Any:
        self.starts.append(time.monotonic())
        return self.real.wal_checkpoint(**kw)

    def close(self) -> None:
        self.real.close()


def _until(done: Any) -> None:
    for _ in range(500):
        if done():
            return
        threading.Event().wait(0.01)
    raise AssertionError("not within 5 s")


def test_a_few_commits_are_checkpointed_once_the_writer_is_idle_not_while_a_job_waits(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint copies a few commits' frames (CHECKPOINT_STEP) right after a commit,
    long before the WAL holds CHECKPOINT_PAGES, but only once the writer is idle: not
    while a job queued behind that commit waits or runs (its commit's fsync would share
    the disk with the checkpoint's)."""
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10**6)
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_STEP", 8)
    monkeypatch.setattr("enyal_daemon.store.writer.IDLE_WAIT", 0.05)
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAUSE", 0.0)
    path = home / "w.db"
    conn = db.connect(path, writer=True)
    conn.execute("CREATE TABLE log (job TEXT)")
    timed = _Timed(path)
    w = Writer(conn, timed)  # type: ignore[arg-type]
    release = threading.Event()
    held: list[float] = []

    def queued_behind(tx: Tx) -> None:
        release.wait(10)
        tx.conn.execute("INSERT INTO log VALUES ('behind')")
        held.append(time.monotonic())  # the job's end: its commit and answer follow

    def many(tx: Tx) -> None:
        for i in range(12):
            tx.conn.execute("INSERT INTO log VALUES (?)", (f"{i}" * 3000,))
        behind.append(w.submit(queued_behind))

    behind: list[Any] = []
    try:
        _stream(w, range(12))  # ~12 frames: more than a step
        _until(lambda: timed.starts and w._uncopied() < 8)
        before = len(timed.starts)
        w.run(many)  # a step's frames again, and a job queued behind them
        threading.Event().wait(0.3)
        assert len(timed.starts) == before, "a checkpoint beside the job queued"
        release.set()
        behind[0].result(10)
        _until(lambda: len(timed.starts) > before)
        assert timed.starts[before] >= held[0]
    finally:
        release.set()
        w.close()


def test_the_database_file_grows_in_chunks_and_reads_back_whole(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkpoints that add pages to the database file find its blocks already written
    (a chunk at a time), so their fsync seldom commits the file system's journal; the
    file, a chunk's multiple, reads back every row."""
    monkeypatch.setattr(db, "DB_CHUNK", 1 << 20)
    path = home / "w.db"
    conn, w = _log_writer(path)
    try:
        _stream(w, range(40))
        assert w.empty_wal()  # every page copied into the file
        grown = path.stat().st_size
        pages = conn.execute("PRAGMA page_count").fetchone()[0] * 4096
    finally:
        w.close()
    assert grown % (1 << 20) == 0 and grown >= pages, (grown, pages)
    assert path.stat().st_size == grown
    back = db.connect(path, writer=False)
    assert back.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = [r[0] for r in back.execute("SELECT job FROM log ORDER BY rowid")]
    assert rows == [f"{i}" * 3000 for i in range(40)]


def test_a_vacuum_leaves_no_old_page_past_the_database_files_pages(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A VACUUM moves live rows to lower pages and its checkpoint truncates the file, in
    chunks to a chunk's multiple: the old pages' bytes past the new end are what `cut`
    takes off. Rows moved there and then deleted for good leave no byte behind."""
    monkeypatch.setattr(db, "DB_CHUNK", 1 << 20)
    path = home / "w.db"
    _, w = _log_writer(path)

    def fill(tx: Tx) -> None:
        for _ in range(250):
            tx.conn.execute("INSERT INTO log VALUES (?)", ("f" * 3000,))
        for i in range(250):
            tx.conn.execute("INSERT INTO log VALUES (?)", (f"MARKER{i:04d}" * 300,))
        tx.after_commit.append(w.empty_wal)  # the rows in the file's pages

    def purge(tx: Tx) -> None:
        tx.conn.execute("DELETE FROM log WHERE job LIKE 'f%'")
        tx.after_commit.append(lambda: db.vacuum(tx.conn))
        tx.after_commit.append(lambda: w.empty_wal(cut=True))

    def forget(tx: Tx) -> None:
        tx.conn.execute("DELETE FROM log")
        tx.after_commit.append(w.empty_wal)

    try:
        w.run(fill)
        w.run(purge)
        w.run(forget)
    finally:
        w.close()
    assert b"MARKER" not in path.read_bytes()


def test_bookkeeping_is_written_in_small_transactions(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bookkeeping_module, "TOUCH_CHUNK", 2)
    monkeypatch.setattr(bookkeeping_module, "EVENT_CHUNK", 3)
    ids = [
        memories.remember(memory, p.RememberParams(content=f"note {i}", scope="global")).id
        for i in range(5)
    ]
    jobs: list[Any] = []
    real = memory.writer.run

    def counting(fn: Any, durable: bool = True) -> Any:
        jobs.append(durable)
        return real(fn, durable)

    monkeypatch.setattr(memory.writer, "run", counting)
    memory.bookkeeping.touch(ids)
    memory.bookkeeping.events((i, "recall", memory.clock.now_iso(), "q", 1) for i in ids)
    memory.flush_bookkeeping()
    assert jobs.count(False) >= 3 + 2  # 5 counts by 2, 5 events by 3 (and pruning)
    for entry_id in ids:
        assert memory.require(entry_id).access_count == 1
    events = memory.reader().execute("SELECT count(*) FROM context_analytics").fetchone()[0]
    assert events == 5


def test_pruning_drops_old_and_surplus_events_a_chunk_at_a_time(memory: Any) -> None:
    e = memories.remember(memory, p.RememberParams(content="an entry", scope="global")).id
    rows = [(e, "recall", f"2026-01-{d:02d}T00:00:00Z", "q", 1) for d in range(1, 21)]
    memory.write(lambda tx: analytics.insert(tx.conn, rows))

    def prune(tx: Tx) -> int:
        return analytics.prune(tx.conn, "2026-01-06T00:00:00Z", keep=10, limit=3)

    dropped = [memory.write(prune) for _ in range(5)]
    assert dropped == [3, 3, 3, 1, 0]  # 5 too old, then 5 more beyond the newest 10
    left = [r[0] for r in memory.reader().execute("SELECT event_at FROM context_analytics")]
    assert sorted(left) == [r[2] for r in rows[10:]]


def test_a_write_leaves_no_cycle_for_the_collector(memory: Any) -> None:
    # The hub capture (always on) keeps what a job touched in a hook on the job's Tx that
    # holds the Tx: a cycle, and since heap.freeze a full collection is rare, so an
    # import's chunks waited in such cycles, vectors and all (issue 30). Reference counts
    # alone free a job's Tx now: the collector finds none unreachable.
    replica_of(memory)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable, kept to look at
    try:
        memories.remember(memory, p.RememberParams(content="an entry", scope="global"))
        memory.write(lambda tx: None)  # the remember's batch is done with by then
        gc.collect()
        cycles = [o for o in gc.garbage if isinstance(o, Tx)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert cycles == []


def _logged(tx: Tx) -> str:
    """The job's thread, logged and returned."""
    name = threading.current_thread().name
    tx.conn.execute("INSERT INTO log VALUES (?, 0)", (name,))
    return name


def _jobs(writer: Any) -> list[str]:
    return [r[0] for r in writer.conn.execute("SELECT job FROM log ORDER BY rowid")]


def _held(writer: Any) -> tuple[threading.Thread, threading.Event, list[str]]:
    """A durable write holding the writer's turn on a caller's thread ("caller") until the
    event returned is set; what the callers' writes return goes to the list."""
    started, release = threading.Event(), threading.Event()
    out: list[str] = []

    def first(tx: Tx) -> str:
        tx.conn.execute("INSERT INTO log VALUES ('first', 0)")
        started.set()
        release.wait(10)
        return threading.current_thread().name

    caller = threading.Thread(target=lambda: out.append(writer.run(first)), name="caller")
    caller.start()
    assert started.wait(10)
    return caller, release, out


def test_a_write_finding_the_writer_idle_runs_on_its_callers_thread(writer: Any) -> None:
    """No hand to the writer's thread and back (issue 30): two wake-ups a remember."""
    assert writer.run(_logged) == threading.current_thread().name
    assert writer.run(_logged, durable=False) == "enyal-writer"  # bookkeeping never
    assert _jobs(writer) == [threading.current_thread().name, "enyal-writer"]


def test_a_write_in_place_is_durable_as_on_the_writers_thread(writer: Any) -> None:
    seen: list[int] = []
    writer.run(lambda tx: seen.append(tx.conn.execute("PRAGMA synchronous").fetchone()[0]))
    assert seen == [2]  # FULL: its commit fsyncs the WAL before it is acknowledged


def test_writes_arriving_while_one_runs_in_place_wait_and_commit_together(
    writer: Any,
) -> None:
    caller, release, out = _held(writer)
    version = writer.version.value
    seconds = [threading.Thread(target=lambda: out.append(writer.run(_logged))) for _ in "ab"]
    for t in seconds:
        t.start()
        t.join(0.2)
        assert t.is_alive()  # the first holds the turn: queued behind it
    assert writer.queued()  # for a catch-up's stepping aside (service/hub/converge.py)
    release.set()
    for t in (caller, *seconds):
        t.join(10)
    assert out == ["caller", "enyal-writer", "enyal-writer"]
    assert _jobs(writer) == ["first", "enyal-writer", "enyal-writer"]
    assert writer.version.value == version + 2  # the two behind it in one transaction
    assert not writer.queued()


def test_a_write_from_a_niced_thread_goes_to_the_writers_thread(writer: Any) -> None:
    """The turn held at low priority would keep the writes behind it waiting for a core."""
    low = Niced("low")
    try:
        assert low.run(lambda: writer.run(_logged)) == "enyal-writer"
    finally:
        low.close()


def test_close_waits_for_a_write_running_on_a_callers_thread(home: Path) -> None:
    path = home / "w.db"
    conn = db.connect(path, writer=True)
    conn.execute("CREATE TABLE log (job TEXT, txn INTEGER)")
    w = Writer(conn, db.connect(path, writer=False))
    caller, release, _ = _held(w)
    closing = threading.Thread(target=w.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # the connection is not closed under the running job
    release.set()
    caller.join(10)
    closing.join(10)
    assert not closing.is_alive()
    reopened = db.connect(path, writer=False)
    assert reopened.execute("SELECT job FROM log").fetchall() == [("first",)]
    reopened.close()

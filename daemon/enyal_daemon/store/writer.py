"""The single writer: one connection, one transaction at a time, in order, group commit.

Every write in the daemon is a job submitted here. Its thread takes the first
waiting job and whatever else is queued behind it (up to MAX_BATCH), runs each in
its own savepoint inside one transaction, commits once (one fsync), and only then
resolves the jobs' futures: a write is acknowledged after it is durable, and a
burst of writes shares the cost of making it so. A failing job rolls back to its
savepoint and fails alone.

An acknowledged write that finds the writer idle (nothing queued, nothing under way) runs
on its caller's thread instead, under the same turn (`_turn`): the hand to the writer's
thread and the hand back are each a thread woken that must then get a core and the
interpreter's lock (issue 30: docs/ARCHITECTURE.md, "Round fifteen"). A write arriving
meanwhile queues, and the writer's thread runs it once the turn is free: one connection,
one transaction at a time, in the order the jobs came. Not from a niced thread (niced.py):
the turn held at its low priority would keep the writes behind it waiting for a core.

Jobs that are not durable (bookkeeping: access counts, usage events) never share a
transaction with durable ones: of the jobs taken together, the durable ones commit
first, and the others after, in a transaction of their own. So an acknowledged write
waits for at most the one bookkeeping transaction already running, and its commit
carries none of their work.

Checkpoints (copying the WAL back into the database file, and an fsync of it) run on
a thread and connection of their own, not inside whichever commit happened to cross
SQLite's auto-checkpoint threshold: that commit, often a remember, used to wait 20-120
ms for it (scripts/bench). A PASSIVE checkpoint never blocks the writer or a reader.
It still writes and fsyncs the database file beside the commits' fsyncs of the WAL, so
it copies a few commits' frames at a time (CHECKPOINT_STEP, CHECKPOINT_PAUSE apart at
least), right after a commit once the writer is idle: a stream of remembers' next commit
is then an embedding away, and the checkpoint's fsync ends before it (issue 30). One
copying SQLite's 1,000 frames at once took 50-120 ms and held up the commit it overlapped
as long. A writer never idle still has its WAL copied once it holds CHECKPOINT_PAGES
frames, in a lull (`lull`: the engine's waits while an acknowledged write is coming,
bounded). The database file grows a chunk at a time (db.DB_CHUNK), so that a
checkpoint's fsync seldom commits the file system's journal.

The same thread keeps the WAL file's blocks ahead of its frames (zeros past the file's
end, made durable, on the writer's turn once no acknowledged write has committed for
WAL_QUIET): a commit that grows the file also commits the file system's journal in its
fsync, one that overwrites does not. The file is grown to its working size (WAL_KEPT) as
the writer opens and after each truncation, before a stream of writes comes (which leaves
no quiet spell), and further ahead of its frames once a stream has filled a first MB past
what it holds.

A job submitted as `background` (a replica's catch-up: service/hub/converge.py) is
committed alone, on a thread of low CPU priority (niced.py) while this one waits for it:
the same connection, one transaction at a time as ever, but its statements and its commit
give a core up to a request's threads, which a piece under way could not (issue 28). What
follows its commit (the after-commit hooks: the index's load of its vectors, under the
index's write lock) runs back on this thread, at the daemon's priority: a lock a request
waits for is never held by a thread that the machine's other work keeps off a core.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

import apsw

from .. import niced
from ..errors import ShuttingDown
from ..niced import NICE, Niced, renice_this_thread
from . import db

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_BATCH = 128
# WAL frames that call for a checkpoint whatever the writer is doing (SQLite's own default):
# a writer never idle (an import's batches) still has its WAL copied, CHECKPOINT_PAUSE
# seconds apart at most (a busy writer commits often), in a lull.
CHECKPOINT_PAGES = 1000
CHECKPOINT_PAUSE = 0.25
# Once the WAL's frames reach WAL_AHEAD_FROM bytes (a stream of writes), its file is kept
# WAL_AHEAD bytes past them, WAL_STEP at a time, so that commits overwrite blocks instead
# of adding them (db.reserve_wal). A step holds the writer's turn for its fsync, so it is
# taken only once no acknowledged write has committed for WAL_QUIET seconds: in the middle
# of a stream of remembers a step made one of them wait 10-20 ms (docs/ARCHITECTURE.md,
# "Round sixteen").
WAL_AHEAD_FROM = 1 << 20
WAL_AHEAD = 4 << 20
WAL_STEP = 1 << 20
WAL_QUIET = 0.02
# The WAL file's working size, reached as the writer opens (and after a truncation),
# before any stream: a stream of remembers beside back-to-back recalls took it from empty
# to 3.5-19 MB in 520 remembers at 100k, in ~100 KB appends, 70-160 of the remembers'
# commits each growing the file (a checkpoint copies every frame, but the WAL starts again
# from its beginning only if no reader is still on an older snapshot as the next write
# begins; docs/ARCHITECTURE.md, "Round eighteen (writes)"). At most the database file's
# size: a new store (a new user's, a test's) is not given 16 MB of WAL.
WAL_KEPT = 16 << 20
# A checkpoint of what the last commits added, once CHECKPOINT_STEP frames are left to copy
# (and CHECKPOINT_PAUSE has passed since the last: an import's chunks commit every ~0.1 s,
# and a checkpoint after each cost it ~6% of its rate): run right after a commit, once the
# writer is idle (IDLE_WAIT at most), it is done before the next acknowledged write's
# commit, an embedding away (docs/ARCHITECTURE.md, "Round seventeen (writes)").
CHECKPOINT_STEP = 200
IDLE_WAIT = 0.005
# What a refused write logs: not SQLite's "database is locked", which the torture reads as
# a bug's sign (scripts/torturelib/harness.py, logged_faults).
LOCK_HELD = "another process holds the database's write lock"


@dataclass
class Tx:
    """What a job sees: the writer's connection, work to do after commit, and work to do
    at the end of the job, inside its savepoint (`before_commit`: what the job changed is
    recorded in the same transaction, once, as it finally is: the hub's outbox)."""

    conn: apsw.Connection
    after_commit: list[Callable[[], None]] = field(default_factory=list)
    before_commit: list[Callable[[], None]] = field(default_factory=list)
    counted: bool = True  # False: nothing a remembered search result reads (Version)
    used: bool = True  # False: not even access counts (Version)


@dataclass
class _Job:
    fn: Callable[[Tx], Any]
    future: Future[Any]
    durable: bool = True
    background: bool = False  # committed alone, on the niced thread


class Version:
    """How many transactions have changed what searches read: read before a search, it
    says whether a result remembered under it still holds. Moved after a commit, before
    its writers are answered: a client that was told its write is done reads the new
    version. Kept by the engine, so a writer opened anew (writes back after a read-only
    spell) goes on counting, never back to a value already used. Two counts:

    value   the memories, their scopes, edges and text index (index/keywords.py's
            remembered results). A job that writes none of it says so on its Tx
            (`counted = False`): bookkeeping, a brief's own time.
    used    that, or what use moves: access counts (the brief's remembered rows,
            service/session/brief.py). A job that writes neither says so too
            (`used = False`): a brief's own time."""

    def __init__(self) -> None:
        # Moved by the writer's turn only (its thread or a write's caller's); read
        # anywhere (an int: atomic).
        self.value = 0
        self.used = 0


_STOP = object()
_Outcome = tuple[_Job, Tx, Any, BaseException | None]  # a job, its Tx, result or error


class Writer:
    def __init__(
        self,
        conn: apsw.Connection,
        checkpointer: apsw.Connection | None = None,
        version: Version | None = None,
        lull: Callable[[], object] | None = None,
    ) -> None:
        """`checkpointer`: another connection to the database, for checkpoints off the
        writer's thread; without one, SQLite checkpoints inside commits. `version`: what
        counts the commits (a fresh one if not given). `lull`: waited for before each
        checkpoint."""
        self.conn = conn
        self.version = version or Version()
        self._queue: queue.SimpleQueue[_Job | object] = queue.SimpleQueue()
        # Guards _closed and _pending: the jobs accepted and not yet done, queued, taken
        # by the writer's thread or under way on a caller's (`run` runs one there only
        # when there are none).
        self._state = threading.Condition()
        self._closed = False
        self._pending = 0
        # Held while jobs run on `conn` (on the writer's thread, the niced one or a
        # caller's), with how many: one transaction at a time.
        self._turn = threading.Lock()
        self._running = 0
        # When the last acknowledged write arrived (monotonic): the daemon's own upkeep
        # waits for a quiet moment. Bookkeeping, never acknowledged, does not count.
        self.last_write = 0.0
        self._thread = threading.Thread(target=self._run, name="enyal-writer", daemon=True)
        self._low = Niced("enyal-writer-low")  # background jobs' (started at the first)
        self._checkpointer = checkpointer
        self._checkpoint_due = threading.Event()
        self._checkpoint_stop = threading.Event()
        self._checkpoint_thread: threading.Thread | None = None
        # Held by whichever checkpoint runs: a second one started meanwhile would fail at
        # once (SQLITE_BUSY, no busy handler), and empty_wal must not.
        self._checkpoint_lock = threading.Lock()
        self._lull = lull
        # A WAL frame's bytes; the WAL file's size as last extended ahead, and the size
        # it is to be extended to (0: none), by the checkpoint thread in a lull.
        row = conn.execute("PRAGMA page_size").fetchone()
        self._frame = 24 + (int(row[0]) if row else 4096)
        self._wal_end = 0
        self._extend_to = 0
        self._checkpoint_wanted = False
        # The WAL's frames after the last commit, and those the last checkpoint copied.
        self._frames = 0
        self._copied = 0
        self._cut = False  # the database file to be cut to its pages (empty_wal's `cut`)
        if checkpointer is not None:
            conn.set_wal_hook(self._after_commit)  # replaces the auto-checkpoint
            self._extend_to = self._kept()
            self._checkpoint_thread = threading.Thread(
                target=self._checkpoint_forever, name="enyal-checkpoint", daemon=True
            )
            self._checkpoint_thread.start()
        self._thread.start()

    def queued(self) -> bool:
        """Whether a job waits behind the ones under way (a job that steps aside for
        requests must not while one of theirs waits for it: service/hub/converge.py).
        Counted, not read off the queue: the writer's thread may hold a job it took off
        the queue while it waits for the turn."""
        return self._pending > self._running

    def submit(
        self, fn: Callable[[Tx], T], durable: bool = True, background: bool = False
    ) -> Future[T]:
        """Queue `fn`; its future. `background`: committed alone, at low CPU priority."""
        fut: Future[T] = Future()
        with self._state:
            if self._closed:
                raise ShuttingDown("the daemon is shutting down; retry")
            self._pending += 1
            self._queue.put(_Job(fn, fut, durable, background))
        return fut

    def run(self, fn: Callable[[Tx], T], durable: bool = True) -> T:
        """Submit and wait: returns once the job's transaction has committed. A job that is
        not `durable` (bookkeeping nobody was promised) does not wait for the disk, and
        may commit after durable jobs submitted after it. A durable job that finds the
        writer idle runs on this thread (the module's docstring)."""
        if not durable or niced.here() or not self._claim():
            return self.submit(fn, durable).result()
        fut: Future[T] = Future()
        try:
            with self._turn:
                self._commit([_Job(fn, fut)])
        finally:
            self._done(1)
        return fut.result()

    def _claim(self) -> bool:
        """The writer's next turn taken for a job on the caller's thread, if no job is
        pending and the writer is open."""
        with self._state:
            if self._closed or self._pending:
                return False
            self._pending = 1
            return True

    def _done(self, jobs: int) -> None:
        with self._state:
            self._pending -= jobs
            if not self._pending:
                self._state.notify_all()

    def _commit(self, batch: list[_Job]) -> None:
        """These jobs, under the turn: the durable ones in one transaction, then the others
        in one of their own; a background job (alone) on the niced thread."""
        self._running = len(batch)
        try:
            if batch[0].background:
                # Committed at low priority; its after-commit work here, at the daemon's:
                # that work takes locks a request waits for (the index's, as it loads a
                # slice's vectors), and held by a niced thread that the machine's other
                # work keeps off a core, a recall waited up to ~0.3 s for it (issue 28).
                done = self._low.run(functools.partial(self._transact, batch))
                if done is not None:
                    self._settle(done)
                return
            durable = [job for job in batch if job.durable]
            if durable:
                self._commit_batch(durable)
            if len(durable) < len(batch):
                self._commit_batch([job for job in batch if not job.durable])
        finally:
            self._running = 0

    def release_cache(self) -> None:
        """Free the pages the writer's connection caches (up to its cache_size, 16 MB), once
        every job queued before has committed. After a burst of writes (an import) they are
        heap the daemon would keep until the next burst; the writes after read the pages
        they need from the OS's page cache again (issue 30: 16 MB of the daemon's RSS after
        importing long texts at 100k)."""

        def release(tx: Tx) -> None:
            tx.counted = tx.used = False  # no search's result changes
            tx.after_commit.append(self.conn.release_memory)  # on this thread, no tx open

        self.run(release, durable=False)

    def close(self) -> None:
        """Finish every job already accepted, then checkpoint the WAL and close."""
        with self._state:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()
        with self._state:  # a job under way on a caller's thread finishes too
            self._state.wait_for(lambda: not self._pending)
        self._low.close()
        if self._checkpoint_thread is not None and self._checkpointer is not None:
            self._checkpoint_stop.set()
            self._checkpoint_due.set()
            self._checkpoint_thread.join()
            self._checkpointer.close()
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except apsw.Error as exc:  # a reader still open keeps part of the WAL; not fatal
            log.warning("WAL checkpoint at close: %s", exc)
        self.conn.close()

    def empty_wal(self, cut: bool = False) -> bool:
        """Checkpoint the WAL into the database file and truncate it, waiting (busy timeout)
        for readers of older snapshots; False if one still held it. Under the
        writer's turn (an after-commit hook): no write can add to the WAL meanwhile.
        `cut`: the database file cut to its pages too (after a VACUUM: db.cut_to_pages),
        now, or if a reader held part of the WAL, after the first checkpoint that empties
        it."""
        with self._checkpoint_lock:
            emptied = db.checkpoint(self.conn)
            if cut and emptied:
                db.cut_to_pages(self.conn)
            self._cut = self._cut or (cut and not emptied)
        self._wal_end = 0  # truncated: zeros written again, none of the old frames' bytes
        self._frames = self._copied = 0
        if self._checkpointer is not None:
            self._extend_to = self._kept()
            self._checkpoint_due.set()
        return emptied

    def _kept(self) -> int:
        """The WAL file's working size for this store (WAL_KEPT, or less for a small one)."""
        try:
            return min(WAL_KEPT, os.path.getsize(self.conn.filename))
        except OSError:
            return 0

    def _uncopied(self) -> int:
        """The WAL's frames no checkpoint has copied (after a restart, every frame)."""
        frames, copied = self._frames, self._copied
        return frames - copied if frames >= copied else frames

    def _after_commit(self, conn: apsw.Connection, name: str, pages: int) -> int:
        self._frames = pages
        if pages >= CHECKPOINT_PAGES:
            self._checkpoint_wanted = True
        if pages >= CHECKPOINT_PAGES or self._uncopied() >= CHECKPOINT_STEP:
            self._checkpoint_due.set()
        used = 32 + pages * self._frame  # the WAL's header, then its frames
        # Extended again once less than WAL_AHEAD - WAL_STEP is left ahead, not after every
        # commit: each step is a write and an fdatasync, and a step of one commit's few
        # KB would double a stream's fsyncs.
        ahead = max(self._wal_end, self._extend_to) - used
        if used >= WAL_AHEAD_FROM and ahead < WAL_AHEAD - WAL_STEP:
            self._extend_to = used + WAL_AHEAD  # further, if a step is pending
            self._checkpoint_due.set()
        return apsw.SQLITE_OK

    def _checkpoint_forever(self) -> None:
        """Checkpoints, CHECKPOINT_PAUSE apart at least: of CHECKPOINT_STEP frames or more
        right after a commit, once the writer is idle; otherwise, once the WAL holds
        CHECKPOINT_PAGES, in a lull. And the WAL file extended ahead of its frames (not held
        up by that pause), in a lull."""
        assert self._checkpointer is not None
        renice_this_thread(NICE)
        next_checkpoint = 0.0
        while True:
            waits = []
            if self._checkpoint_wanted:
                waits.append(next_checkpoint - time.monotonic())
            if self._extend_to:
                waits.append(self.last_write + WAL_QUIET - time.monotonic())
            self._checkpoint_due.wait(max(0.0, min(waits)) if waits else None)
            if self._checkpoint_stop.is_set():
                return
            self._checkpoint_due.clear()
            if (
                self._uncopied() >= CHECKPOINT_STEP
                and time.monotonic() >= next_checkpoint
                and self._idle()
            ):
                # Not the lull: right after a commit, a write already announced is still
                # embedding its text, and this checkpoint's fsync ends before its commit's.
                self._checkpoint()
                next_checkpoint = time.monotonic() + CHECKPOINT_PAUSE
                continue
            now = self._checkpoint_wanted and time.monotonic() >= next_checkpoint
            if not now and not self._extend_to:
                continue
            if self._lull is not None:
                self._lull()
            if self._extend_to and time.monotonic() - self.last_write >= WAL_QUIET:
                try:  # a job: the write lock, so no process appends a frame meanwhile
                    self.run(self._extend_wal, durable=False)
                except ShuttingDown:
                    return
                except apsw.Error as exc:
                    # Another process holding the database's write lock, say (said as the
                    # refused writes say it): left until a commit passes the target again,
                    # and never this thread's end (it ended here, and with it every
                    # checkpoint, under the torture's outside lock).
                    held = isinstance(exc, apsw.BusyError)
                    log.info("WAL not extended ahead: %s", LOCK_HELD if held else exc)
                    self._extend_to = 0
            if not now:
                continue
            self._checkpoint()
            next_checkpoint = time.monotonic() + CHECKPOINT_PAUSE

    def _idle(self) -> bool:
        """Whether the writer is idle (no job queued or under way), waiting IDLE_WAIT at most
        for the job whose commit woke this thread to be done."""
        with self._state:
            return self._state.wait_for(lambda: not self._pending, timeout=IDLE_WAIT)

    def _checkpoint(self) -> None:
        """A PASSIVE checkpoint: what no reader still needs from the WAL, copied."""
        assert self._checkpointer is not None
        self._checkpoint_wanted = False
        try:
            with self._checkpoint_lock:
                frames, self._copied = self._checkpointer.wal_checkpoint(
                    mode=apsw.SQLITE_CHECKPOINT_PASSIVE
                )
                if self._cut and frames == self._copied:
                    db.cut_to_pages(self._checkpointer)
                    self._cut = False
        except (apsw.Error, OSError) as exc:  # the next commit asks again
            log.warning("WAL checkpoint: %s", exc)

    def _extend_wal(self, tx: Tx) -> None:
        """A step of the WAL file's extension ahead of its frames (db.reserve_wal); the next
        after the next lull."""
        tx.counted = tx.used = False  # no search's result changes
        try:
            short, self._wal_end = db.reserve_wal(self.conn, self._extend_to, WAL_STEP)
        except OSError as exc:  # a full disk, say: commits append, as before
            log.info("WAL not extended ahead: %s", exc)
            short, self._wal_end = False, 1 << 62
        if short:
            self._checkpoint_due.set()
        else:
            self._extend_to = 0

    def _run(self) -> None:
        stopping = False
        held: _Job | None = None  # a background job taken while gathering a batch: next
        while not stopping:
            first = held if held is not None else self._queue.get()
            held = None
            if first is _STOP:
                return
            assert isinstance(first, _Job)
            batch: list[_Job] = [first]
            # The batch gathered once the turn is this thread's: with what queued while a
            # caller's job held it.
            with self._turn:
                while not first.background and len(batch) < MAX_BATCH:
                    try:
                        nxt = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is _STOP:
                        stopping = True
                        break
                    assert isinstance(nxt, _Job)
                    if nxt.background:
                        held = nxt
                        break
                    batch.append(nxt)
                try:
                    self._commit(batch)
                finally:
                    self._done(len(batch))

    def _commit_batch(self, batch: list[_Job]) -> None:
        """One transaction for these jobs, all durable or none, and what follows it."""
        done = self._transact(batch)
        if done is not None:
            self._settle(done)

    def _transact(self, batch: list[_Job]) -> list[_Outcome] | None:
        """The jobs' transaction: each job's outcome once committed; None if it failed
        (every job's future then holds the exception)."""
        outcomes: list[_Outcome] = []
        durable = batch[0].durable
        if durable:
            self.last_write = time.monotonic()
        try:
            if not durable:  # WAL + NORMAL: consistent after a crash, just not fsync'd yet
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("BEGIN IMMEDIATE")
            for job in batch:
                tx = Tx(self.conn)
                try:
                    with self.conn:  # a savepoint inside the open transaction
                        result = job.fn(tx)
                        for last in tx.before_commit:
                            last()
                    outcomes.append((job, tx, result, None))
                except Exception as exc:
                    outcomes.append((job, tx, None, exc))
                finally:
                    # A hook may hold its Tx (the hub capture's pending ids do), a cycle
                    # that only a full collection frees, rare since heap.freeze: an
                    # import's chunks stayed, vectors and all (issue 30).
                    tx.before_commit.clear()
            self.conn.execute("COMMIT")
        except Exception as exc:
            if isinstance(exc, apsw.BusyError):  # not a fault of ours: said to the caller
                log.warning("write refused: %s", LOCK_HELD)
            elif isinstance(exc, apsw.FullError | apsw.ReadOnlyError | apsw.IOError):
                log.warning("write transaction failed: %s", exc)  # the caller says why
            else:
                log.exception("write transaction failed")
            if not self.conn.getautocommit():
                self.conn.execute("ROLLBACK")
            for job in batch:
                if not job.future.done():
                    job.future.set_exception(exc)
            return None
        finally:
            if not durable:
                self.conn.execute("PRAGMA synchronous=FULL")
            else:  # a quiet spell counts from the commit's end
                self.last_write = time.monotonic()
        return outcomes

    def _settle(self, outcomes: list[_Outcome]) -> None:
        """After a commit: the version moved, each job's after-commit hooks run, its
        future answered."""
        done = [tx for _, tx, _, error in outcomes if error is None]
        if any(tx.counted for tx in done):
            self.version.value += 1
        if any(tx.counted or tx.used for tx in done):
            self.version.used += 1
        for job, tx, result, error in outcomes:
            if error is not None:
                job.future.set_exception(error)
                continue
            for hook in tx.after_commit:
                try:
                    hook()
                except Exception:
                    log.exception("after-commit hook failed")
            job.future.set_result(result)

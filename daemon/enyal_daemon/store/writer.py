"""The single writer: one connection, one thread, writes in order, group commit.

Every write in the daemon is a job submitted here. The thread takes the first
waiting job and whatever else is queued behind it (up to MAX_BATCH), runs each in
its own savepoint inside one transaction, commits once (one fsync), and only then
resolves the jobs' futures: a write is acknowledged after it is durable, and a
burst of writes shares the cost of making it so. A failing job rolls back to its
savepoint and fails alone.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

import apsw

from ..errors import ShuttingDown

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_BATCH = 128


@dataclass
class Tx:
    """What a job sees: the writer's connection and a place for work to do after commit."""

    conn: apsw.Connection
    after_commit: list[Callable[[], None]] = field(default_factory=list)


@dataclass
class _Job:
    fn: Callable[[Tx], Any]
    future: Future[Any]
    durable: bool = True


_STOP = object()


class Writer:
    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn
        self._queue: queue.SimpleQueue[_Job | object] = queue.SimpleQueue()
        self._closed = False
        self._close_lock = threading.Lock()
        # When the last acknowledged write arrived (monotonic): the daemon's own upkeep
        # waits for a quiet moment. Bookkeeping, never acknowledged, does not count.
        self.last_write = 0.0
        self._thread = threading.Thread(target=self._run, name="enyal-writer", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[Tx], T], durable: bool = True) -> Future[T]:
        fut: Future[T] = Future()
        with self._close_lock:
            if self._closed:
                raise ShuttingDown("the daemon is shutting down; retry")
            self._queue.put(_Job(fn, fut, durable))
        return fut

    def run(self, fn: Callable[[Tx], T], durable: bool = True) -> T:
        """Submit and wait: returns once the job's transaction has committed. A job that is
        not `durable` (bookkeeping nobody was promised) does not make its batch wait for
        the disk, unless a durable job shares the batch."""
        return self.submit(fn, durable).result()

    def close(self) -> None:
        """Finish every job already accepted, then checkpoint the WAL and close."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except apsw.Error as exc:  # a reader still open keeps part of the WAL; not fatal
            log.warning("WAL checkpoint at close: %s", exc)
        self.conn.close()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is _STOP:
                return
            batch: list[_Job] = [first]  # type: ignore[list-item]
            while len(batch) < MAX_BATCH:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    stopping = True
                    break
                batch.append(nxt)  # type: ignore[arg-type]
            self._commit_batch(batch)

    def _commit_batch(self, batch: list[_Job]) -> None:
        outcomes: list[tuple[_Job, Tx, Any, BaseException | None]] = []
        durable = any(job.durable for job in batch)
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
                    outcomes.append((job, tx, result, None))
                except Exception as exc:
                    outcomes.append((job, tx, None, exc))
            self.conn.execute("COMMIT")
        except Exception as exc:
            if isinstance(exc, apsw.FullError | apsw.ReadOnlyError | apsw.IOError):
                log.warning("write transaction failed: %s", exc)  # the caller says why
            else:
                log.exception("write transaction failed")
            if not self.conn.getautocommit():
                self.conn.execute("ROLLBACK")
            for job in batch:
                if not job.future.done():
                    job.future.set_exception(exc)
            return
        finally:
            if not durable:
                self.conn.execute("PRAGMA synchronous=FULL")
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

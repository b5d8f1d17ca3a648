"""A thread of low CPU priority that runs what it is handed, one thing at a time, while
the caller waits: background work that must not take a core from a request (issue 28).

A replica's initial sync runs beside the recalls of the person it serves. It steps aside
between its pieces while a request is served (service/core/traffic.py), but a piece under
way is not interrupted: the writer's part of a slice and its commit (~1.6 and ~3 ms of
CPU), the checks of one text. On two cores, a recall that arrived meanwhile waited for a
core while they ran (its embedding and its keyword search run side by side). Run NICE
steps of nice below the daemon, the same piece gives the core up to a request's thread as
soon as one wakes (the scheduler's weights: 110 against 1,024 at nice 10 and 0), and
takes it back once the request waits (docs/ARCHITECTURE.md, "Initial sync").

Linux only: its setpriority() on a thread's id renices that thread alone; elsewhere
(macOS: the call takes a process id) the thread runs at the process's priority. Niceness
cannot be lowered again without privilege (RLIMIT_NICE is 0 by default), so the work is
handed to a thread kept for it, and the caller's thread keeps its priority.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

# 10, not 19: a niced piece may hold something a request waits for (the writer, whose next
# job may be a remember's; the interpreter's lock between two statements), and when other
# processes keep the cores busy at nice 0, a thread at 19 gets ~1.5% of one (at 10, ~10%).
# 19 measured no better for the recalls (docs/ARCHITECTURE.md, "Initial sync").
NICE = 10

_STOP = object()
_this = threading.local()  # `niced`: set on a Niced thread


def renice_this_thread(by: int) -> bool:
    """Lower the calling thread's CPU priority by `by` steps of nice (to 19 at most: below
    the daemon's own, whatever it runs at); whether it could (Linux only: see above)."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
        return True
    return False


def here() -> bool:
    """Whether the calling thread is a Niced one (what it holds, others wait for slowly)."""
    return getattr(_this, "niced", False)


class Niced:
    """One daemon thread, started at the first `run` and reniced then (by `nice` steps),
    kept until `close`."""

    def __init__(self, name: str, nice: int = NICE) -> None:
        self.name = name
        self.nice = nice
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | object] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, fn: Callable[[], T]) -> T:
        """`fn()` on the niced thread; its result, or its exception raised here."""
        future: Future[T] = Future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            self._queue.put((fn, future))
        return future.result()

    def close(self) -> None:
        """Stop the thread once what it was handed is done."""
        with self._lock:
            thread, self._thread = self._thread, None
            if thread is not None:
                self._queue.put(_STOP)
        if thread is not None:
            thread.join()

    def _serve(self) -> None:
        renice_this_thread(self.nice)
        _this.niced = True
        while (item := self._queue.get()) is not _STOP:
            assert isinstance(item, tuple)
            fn, future = item
            try:
                future.set_result(fn())
            except BaseException as exc:  # the caller's to raise, on its own thread
                future.set_exception(exc)

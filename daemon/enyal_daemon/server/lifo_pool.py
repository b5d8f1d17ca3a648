"""The request pool: threads that take work last-in-first-out.

concurrent.futures.ThreadPoolExecutor hands each job to the idle thread that has waited
longest (its queue wakes waiters in order), so one client's requests, one at a time, go
round every thread the pool ever started. Each request thread has its own SQLite reader
(Engine.reader) with its own page cache, and a round of four readers kept four cold
caches: ~310 page reads from the OS a recall at 10k (pread64, /proc's syscr), where one
reader asked every time keeps the pages it read last (docs/ARCHITECTURE.md, "Where a
recall's CPU goes", round sixteen). Here the thread that finished last takes the next
job, so a lone client's requests stay on one thread and its reader stays warm; under
load every thread works, as before. Threads are started on demand, at most
`max_workers`, by the submitting thread (the event loop's), as ThreadPoolExecutor does.
"""

from __future__ import annotations

import collections
import functools
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class _Worker:
    """One thread's hand-over: the job it is given while idle (None: stop), and the lock
    it sleeps on until then (held while it sleeps, released to wake it)."""

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.wake = threading.Lock()
        self.wake.acquire()


class LifoPool(Executor):
    def __init__(self, max_workers: int, thread_name_prefix: str) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max = max_workers
        self._prefix = thread_name_prefix
        self._lock = threading.Lock()
        self._queued: collections.deque[_Job] = collections.deque()  # no thread idle
        self._idle: list[_Worker] = []  # a stack: the last to finish is woken first
        self._threads: list[threading.Thread] = []
        self._shutdown = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        job: _Job = (future, fn, args, kwargs)
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if self._idle:
                worker = self._idle.pop()
                worker.job = job
                worker.wake.release()
            elif len(self._threads) < self._max:
                thread = threading.Thread(
                    target=self._work,
                    args=(job,),
                    name=f"{self._prefix}_{len(self._threads)}",
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._queued.append(job)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while self._queued:
                    self._queued.popleft()[0].cancel()
            while self._idle:
                self._idle.pop().wake.release()  # its job None: it stops
            threads = list(self._threads)
        if wait:
            for thread in threads:
                thread.join()

    def _work(self, job: _Job | None) -> None:
        me = _Worker()
        while job is not None:
            future, fn, args, kwargs = job
            settle = _outcome(future, fn, args, kwargs)
            # Idle (or given the next queued job) before the answer is out: the loop, woken
            # by it, may submit the client's next request at once, and it should find this
            # thread on the stack, not a cold one.
            with self._lock:
                job = self._queued.popleft() if self._queued else None
                sleep = job is None and not self._shutdown
                if sleep:
                    self._idle.append(me)
            settle()
            if sleep:
                me.wake.acquire()  # released by submit (a job) or shutdown (None)
                job, me.job = me.job, None


def _outcome(
    future: Future[Any], fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Callable[[], None]:
    """Run the job (unless it was cancelled) and return what hands its outcome over."""
    if not future.set_running_or_notify_cancel():
        return lambda: None
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:
        return functools.partial(future.set_exception, exc)
    return functools.partial(future.set_result, result)

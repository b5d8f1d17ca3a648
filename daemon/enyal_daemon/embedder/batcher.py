"""Queries that arrive together are embedded together.

One text at a time costs ~5.9 ms here; a batch of 4 short queries 3.3 ms each, of
8 2.9 ms (scripts/bench, before the 8-bit build; the vectors agree to a cosine of
0.9999999, the mask keeps padding out of the pooling). With the 8-bit build a short
query costs about as much CPU alone as in a batch (docs/ARCHITECTURE.md, "Round
four"): batching now saves little, and costs a lone request nothing. So requests
hand their text to a queue served by one worker per inference slot: a worker takes
whatever is waiting, up to MAX_BATCH, and embeds it in one run. Alone, a request is
taken at once and embedded alone, so a single client waits no longer; under load,
batches form by themselves while the workers are busy.

A worker takes its batch only once it holds an inference slot, not before waiting for
one: texts that arrive while every slot is busy join the batch, and a text submitted
`first` (a memory being written: its writer waits on it, a recall's keyword search
runs meanwhile) goes ahead of every query waiting, so a remember waits at most for the
inferences already running, not for the queue of recalls before it (issue 30). And when
a slot is free as `embed` is asked for such a text, it is embedded there and then, on
the caller's thread: no hop to a worker and back. Each hop is a thread woken that must
then take the interpreter's lock, which a busy thread gives up only when its switch
interval (5 ms) runs out; beside a recall, the hand back alone took p99 ~10 ms of a
remember's embedding (scripts/benchlib/profile_tail.py --remember, docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future
from typing import Protocol

from ..errors import ShuttingDown
from .onnx import Embedder, Vectors

MAX_BATCH = 8


class Slots(Protocol):
    """The inference slots, shared with other embedding work (a semaphore)."""

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool: ...

    def release(self, n: int = 1) -> None: ...


class Batcher:
    def __init__(
        self,
        embedder: Embedder,
        slots: Slots,
        workers: int,
    ) -> None:
        """One of `slots` is held around each inference."""
        self._embedder = embedder
        self._slots = slots
        self._cond = threading.Condition()
        self._waiting: deque[tuple[str, Future[Vectors]]] = deque()
        self._first: deque[tuple[str, Future[Vectors]]] = deque()  # taken before _waiting
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"enyal-embed-{i}", daemon=True)
            for i in range(workers)
        ]
        for t in self._threads:
            t.start()

    def embed(self, text: str, first: bool = False) -> Vectors:
        """The text's vector. `first`: ahead of the rest, and on this thread if a slot is
        free now."""
        if first and self._slots.acquire(blocking=False):
            return self._held(text)
        return self.submit(text, first).result()

    def here(self, text: str) -> Vectors:
        """The text's vector, made on this thread once a slot is free: no hand-off to a
        worker and back."""
        self._slots.acquire()
        return self._held(text)

    def _held(self, text: str) -> Vectors:
        """`text` embedded under the slot the caller took, which is given back."""
        try:
            return self._embedder.embed(text)
        finally:
            self._slots.release()

    def submit(self, text: str, first: bool = False) -> Future[Vectors]:
        """The text's vector, to come: the caller can do other work while it is embedded.
        `first`: ahead of every text not so marked."""
        fut: Future[Vectors] = Future()
        with self._cond:
            if self._closed:
                raise ShuttingDown("the daemon is shutting down; retry")
            (self._first if first else self._waiting).append((text, fut))
            self._cond.notify()
        return fut

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for t in self._threads:
            t.join()

    def _wait(self) -> bool:
        """Until a text waits (True) or the batcher is closed and drained (False)."""
        with self._cond:
            while not self._first and not self._waiting and not self._closed:
                self._cond.wait()
            return bool(self._first or self._waiting)

    def _take(self) -> list[tuple[str, Future[Vectors]]]:
        """What waits now, up to MAX_BATCH, the texts marked first ahead."""
        with self._cond:
            batch: list[tuple[str, Future[Vectors]]] = []
            for queue in (self._first, self._waiting):
                while queue and len(batch) < MAX_BATCH:
                    batch.append(queue.popleft())
            return batch

    def _work(self) -> None:
        while self._wait():
            batch: list[tuple[str, Future[Vectors]]] = []
            try:
                self._slots.acquire()
                try:
                    batch += self._take()
                    if not batch:
                        continue  # another worker took them while this one waited for a slot
                    if len(batch) == 1:
                        vectors = [self._embedder.embed(batch[0][0])]
                    else:
                        vectors = list(self._embedder.embed_many([t for t, _ in batch]))
                finally:
                    self._slots.release()
            except BaseException as exc:  # every waiter hears of it; the worker lives on
                for _, fut in batch:
                    fut.set_exception(exc)
                continue
            for (_, fut), vec in zip(batch, vectors, strict=True):
                fut.set_result(vec)

"""Concurrent queries share inferences, and get exactly the vectors they would alone."""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from enyal_daemon.embedder.batcher import MAX_BATCH, Batcher
from enyal_daemon.errors import ShuttingDown

TEXTS = [f"how do we deploy service number {i} to staging?" for i in range(24)]


class Counting:
    """The real embedder, counting its inference runs (the test needs to see batching;
    every vector still comes from the model)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.runs: list[int] = []

    def embed(self, text: str) -> Any:
        self.runs.append(1)
        return self.real.embed(text)

    def embed_many(self, texts: list[str]) -> Any:
        self.runs.append(len(texts))
        return self.real.embed_many(texts)


def test_concurrent_texts_are_batched_and_match_single_embeddings(embedder: Any) -> None:
    counting = Counting(embedder)
    slot = threading.Semaphore(0)  # held: the worker waits at it while requests queue up
    batcher = Batcher(counting, slot, workers=1)  # type: ignore[arg-type]
    try:
        with ThreadPoolExecutor(len(TEXTS)) as pool:
            futures = [pool.submit(batcher.embed, t) for t in TEXTS]
            # The worker waits at the slot (it takes its batch once it holds one); once 16
            # or more wait, they can only go through in batches of 8.
            for _ in range(1000):
                if len(batcher._waiting) >= len(TEXTS) - MAX_BATCH:
                    break
                threading.Event().wait(0.01)
            slot.release(len(TEXTS))
            vectors = [f.result(timeout=60) for f in futures]
        # Every text embedded once, in batches of up to 8 rather than one by one.
        assert sum(counting.runs) == len(TEXTS) and max(counting.runs) == MAX_BATCH
        for text, vec in zip(TEXTS, vectors, strict=True):
            assert float(np.dot(vec, embedder.embed(text))) > 0.99999
    finally:
        batcher.close()


def test_a_closed_batcher_refuses_new_texts(embedder: Any) -> None:
    batcher = Batcher(embedder, threading.Semaphore(2), workers=2)
    assert batcher.embed("one text").shape == (384,)
    batcher.close()
    with pytest.raises(ShuttingDown):
        batcher.embed("too late")


def test_a_text_marked_first_is_embedded_before_the_queries_queued_ahead_of_it(
    embedder: Any,
) -> None:
    """A remember's text does not wait behind every recall query queued before it (issue
    30: remember p99 under recall): the worker takes its batch once it holds a slot, and
    takes the text marked first ahead of the rest."""
    slot = threading.Semaphore(0)  # held: texts queue up while the worker waits for it
    batcher = Batcher(embedder, slot, workers=1)
    done: list[str] = []
    try:
        queries = [batcher.submit(t) for t in TEXTS[:10]]  # more than one batch's worth
        for i, fut in enumerate(queries):
            fut.add_done_callback(lambda _, i=i: done.append(f"query {i}"))
        write = batcher.submit("we deploy with the blue-green script", first=True)
        write.add_done_callback(lambda _: done.append("write"))
        slot.release(100)
        assert write.result(timeout=60).shape == (384,)
        for fut in queries:
            fut.result(timeout=60)
        # the write went in the first inference: before the queries it did not fit beside
        assert done.index("write") < min(done.index(f"query {i}") for i in range(MAX_BATCH, 10))
        assert done[0] == "write"
        expected = embedder.embed("we deploy with the blue-green script")
        assert float(np.dot(write.result(), expected)) > 0.99999
    finally:
        slot.release(100)  # a failure above must not leave the worker waiting at the slot
        batcher.close()


def test_a_memory_being_written_is_embedded_ahead_of_queued_recall_queries(memory: Any) -> None:
    """The engine marks a memory's text first and a query's not: what makes a remember
    under steady recall wait for the inferences running, not the queries queued."""
    slots = memory._embed_slots
    for _ in range(2):  # both inference slots held: the queries queue up
        slots.acquire()
    held = 2
    queries_done_before_write: list[int] = []
    pool = ThreadPoolExecutor(1)
    try:
        queries = [memory.embed_query_soon(t) for t in TEXTS[:20]]
        queued = sum(len(q) for q in vars(memory._batcher).values() if isinstance(q, deque))
        write = pool.submit(memory.embed_memory, "we deploy with the blue-green script")
        for _ in range(1000):  # until the write's text is queued too
            if sum(len(q) for q in vars(memory._batcher).values() if isinstance(q, deque)) > queued:
                break
            threading.Event().wait(0.01)
        write.add_done_callback(
            lambda _: queries_done_before_write.append(sum(f.done() for f in queries))
        )
        slots.release()  # one inference at a time: 20 queries take three (of <= 8)
        held = 1
        write.result(timeout=60)
        slots.release()
        held = 0
        for fut in queries:
            fut.result(timeout=60)
        # the write went in the first inference, beside 7 queries at most (behind the
        # queries, it would have waited for all three inferences)
        assert queries_done_before_write[0] <= MAX_BATCH - 1
    finally:
        if held:  # a failure above must not leave the workers waiting at the slots
            slots.release(held)
        pool.shutdown()


class Where(Counting):
    """The real embedder, noting the thread each single text is embedded on."""

    def __init__(self, real: Any) -> None:
        super().__init__(real)
        self.threads: list[str] = []

    def embed(self, text: str) -> Any:
        self.threads.append(threading.current_thread().name)
        return super().embed(text)


def test_a_text_marked_first_is_embedded_on_its_callers_thread_when_a_slot_is_free(
    embedder: Any,
) -> None:
    """No hop to a worker and back (each a wake-up that waits for the interpreter's lock:
    issue 30); with every slot busy, it waits for a worker as before."""
    where = Where(embedder)
    slot = threading.Semaphore(1)
    batcher = Batcher(where, slot, workers=1)  # type: ignore[arg-type]
    pool = ThreadPoolExecutor(1, thread_name_prefix="request")
    try:
        text = "we deploy with the blue-green script"
        vec = pool.submit(batcher.embed, text, True).result(timeout=60)
        assert where.threads == ["request_0"]
        assert float(np.dot(vec, embedder.embed(text))) > 0.99999
        assert slot.acquire(blocking=False)  # given back
        waiting = pool.submit(batcher.embed, text, True)  # the one slot held: queued
        for _ in range(1000):
            if batcher._first:
                break
            threading.Event().wait(0.01)
        assert batcher._first and not waiting.done()
        slot.release()
        assert waiting.result(timeout=60).shape == (384,)
        assert where.threads[1].startswith("enyal-embed")
    finally:
        pool.shutdown()
        batcher.close()

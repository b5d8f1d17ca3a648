"""Concurrent queries share inferences, and get exactly the vectors they would alone."""

from __future__ import annotations

import threading
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
    batcher = Batcher(counting, lambda: slot, workers=1)  # type: ignore[arg-type]
    try:
        with ThreadPoolExecutor(len(TEXTS)) as pool:
            futures = [pool.submit(batcher.embed, t) for t in TEXTS]
            # The worker took a first batch (at most MAX_BATCH) and waits at the slot; once
            # 16 more wait behind it, they can only go through as two batches of 8.
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
    batcher = Batcher(embedder, lambda: threading.Lock(), workers=2)
    assert batcher.embed("one text").shape == (384,)
    batcher.close()
    with pytest.raises(ShuttingDown):
        batcher.embed("too late")

"""The embedding bound: what two threads doing nothing but embedding achieve, one text at a
time, on the texts the agents send (80% short questions, 20% memories).

Every agent op embeds one text, and that is the work no design removes; on 2 cores
two onnxruntime runs at once is the most the hardware gives. So agents' throughput
over this figure is the share of the machine the rest of the daemon leaves them.
Measured in this process with the daemon's own Embedder class and settings, right
before each round of agents, so both see the same load on the shared machine."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence

from benchlib import corpus
from benchlib.agent_worker import RECALL_SHARE
from benchlib.store import Engine

THREADS = 2


def texts(count: int = 600, seed: int = 31) -> list[str]:
    rng = random.Random(seed)
    qs = corpus.questions(count, seed=seed)
    mem = [t for _, t in corpus.base_texts(count, seed=seed)]
    return [qs[i] if rng.random() < RECALL_SHARE else mem[i] for i in range(count)]


def measure(engine: Engine, seconds: float, sample: list[str]) -> float:
    """Texts embedded per second by THREADS threads over `seconds`."""
    done = [0] * THREADS
    stop = time.perf_counter() + seconds

    def work(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            engine.embedder.embed(sample[i % len(sample)])
            done[k] += 1
            i += THREADS

    engine.embedder.embed(sample[0])  # the session's first run allocates: not timed
    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - t0)


def batched(
    engine: Engine, sample: list[str], ids: Sequence[list[int] | None] | None = None
) -> float:
    """Texts embedded per second by THREADS threads, each embedding its share of `sample` in
    batches, as the daemon embeds an import: the most an import can store per second.
    `ids`: each text's token ids where the daemon has them already (Embedder.embed_many)."""
    engine.embedder.embed_many(sample[:32])  # first runs at these widths allocate: not timed
    given = list(ids) if ids is not None else [None] * len(sample)
    parts = [(sample[k::THREADS], given[k::THREADS]) for k in range(THREADS)]
    t0 = time.perf_counter()
    threads = [threading.Thread(target=engine.embedder.embed_many, args=part) for part in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(sample) / (time.perf_counter() - t0)


def stored(engine: Engine, sample: list[str]) -> float:
    """Memories per second embedded as the daemon stores them (a short text whole, a long
    one as its passages, its whole vector made of theirs: embedder/passages.py), by
    THREADS threads in batches: the most an import of these texts can store per second."""
    from enyal_daemon.embedder import passages

    unique, ids, _ = passages.plan_tokenized(sample, engine.embedder.token_ids)
    return batched(engine, unique, ids) * len(sample) / len(unique)

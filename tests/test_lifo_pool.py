"""The request pool (server/lifo_pool.py): the thread that finished last takes the next
job, so a lone client's requests stay on one thread and its SQLite reader stays warm."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from enyal_daemon.server.lifo_pool import LifoPool


def _busy_all(pool: LifoPool, n: int) -> None:
    """Start n threads in the pool: n jobs that wait for each other."""
    gate = threading.Barrier(n)
    for f in [pool.submit(gate.wait) for _ in range(n)]:
        f.result(timeout=5)


def test_one_at_a_time_stays_on_one_thread() -> None:
    """Four threads started, then jobs one after another as the loop hands over a client's
    requests: every one runs on the same thread (ThreadPoolExecutor went round all four)."""
    with LifoPool(4, "t") as pool:
        _busy_all(pool, 4)

        async def client() -> set[str]:
            loop = asyncio.get_running_loop()
            names = set()
            for _ in range(40):
                names.add(await loop.run_in_executor(pool, lambda: threading.current_thread().name))
            return names

        names = asyncio.run(client())
    assert len(names) == 1


def test_results_errors_and_threads_at_most_max() -> None:
    started = threading.Event()
    release = threading.Event()

    def hold(i: int) -> int:
        started.set()
        release.wait(5)
        return i * 2

    with LifoPool(2, "t") as pool:
        futures = [pool.submit(hold, i) for i in range(5)]  # 2 run, 3 queue
        started.wait(5)
        time.sleep(0.05)
        assert sum(f.running() for f in futures) == 2
        release.set()
        assert [f.result(timeout=5) for f in futures] == [0, 2, 4, 6, 8]
        failing = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failing.result(timeout=5)
        assert pool.submit(sum, [1, 2], start=3).result(timeout=5) == 6  # keywords passed
        names = {t.name for t in threading.enumerate() if t.name.startswith("t_")}
    assert names == {"t_0", "t_1"}


def test_shutdown_waits_and_cancels() -> None:
    release = threading.Event()
    pool = LifoPool(1, "s")
    running = pool.submit(release.wait, 5)
    queued = pool.submit(lambda: "ran")
    cancelled = pool.submit(lambda: "ran")
    assert cancelled.cancel()  # a job cancelled while queued never runs
    release.set()
    pool.shutdown(wait=True)
    assert running.result() is True and queued.result() == "ran"
    assert not any(t.name.startswith("s_") for t in threading.enumerate())
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)

    later = LifoPool(1, "c")
    gate = threading.Event()
    first = later.submit(gate.wait, 5)
    dropped = later.submit(lambda: "ran")
    later.shutdown(wait=False, cancel_futures=True)
    gate.set()
    assert first.result(timeout=5) is True
    assert dropped.cancelled()

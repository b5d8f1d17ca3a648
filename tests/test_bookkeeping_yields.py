"""The bookkeeping flush waits while an acknowledged write is coming: from a remember's
embedding to its commit, no chunk of counts or events is written (issue 30), and the
wait is bounded, so a write that never settles cannot hold the counts back for good. Nor
does its redaction of the queries hold the interpreter's lock from a request."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from enyal_daemon.hygiene import secrets
from enyal_daemon.service.core import traffic
from enyal_daemon.service.core.bookkeeping import Bookkeeping
from enyal_daemon.service.memory import memories
from enyal_daemon.service.rules import redaction
from enyal_daemon.service.rules.clock import SYSTEM
from enyal_protocol import wire as p


def _recording(memory: Any, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The writer's jobs, in the order they are run: durable (True) or bookkeeping."""
    jobs: list[bool] = []
    real = memory.writer.run

    def run(fn: Any, durable: bool = True) -> Any:
        jobs.append(durable)
        return real(fn, durable)

    monkeypatch.setattr(memory.writer, "run", run)
    return jobs


@contextlib.contextmanager
def write_coming() -> Iterator[None]:
    """An acknowledged write announced on another thread (a remember being embedded) for
    as long as the block runs, then settled."""
    announced, done = threading.Event(), threading.Event()

    def coming() -> None:
        traffic.announce()
        traffic.announce()  # once per thread, however often
        announced.set()
        done.wait(10)
        traffic.settle()

    other = threading.Thread(target=coming)
    other.start()
    try:
        assert announced.wait(10)
        yield
    finally:
        done.set()
        other.join(10)


def test_a_flush_waits_for_a_remember_being_embedded(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traffic, "MOST", 10.0)  # the bound is not what is tested here
    seen = memories.remember(memory, p.RememberParams(content="seen", scope="global")).id
    embedding, release = threading.Event(), threading.Event()
    real_embed = memory.embed_memory

    def slow_embed(text: str) -> Any:
        embedding.set()
        release.wait(10)
        return real_embed(text)

    monkeypatch.setattr(memory, "embed_memory", slow_embed)
    jobs = _recording(memory, monkeypatch)
    params = p.RememberParams(content="a new note", scope="global")
    remember = threading.Thread(target=memories.remember, args=(memory, params))
    remember.start()
    assert embedding.wait(10)
    memory.bookkeeping.touch([seen])
    memory.bookkeeping.event(seen, "recall", "q", 1)
    flush = threading.Thread(target=memory.flush_bookkeeping)
    flush.start()
    time.sleep(0.3)  # a flush that does not wait writes its chunks meanwhile
    assert jobs == []
    release.set()
    remember.join(10)
    flush.join(10)
    assert jobs[0] is True and jobs.count(False) >= 2  # the remember, then the chunks
    assert traffic.writes_coming() == 0
    assert memory.require(seen).access_count == 1


def test_a_write_never_settled_holds_a_flush_back_a_bounded_time(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traffic, "MOST", 0.05)
    seen = memories.remember(memory, p.RememberParams(content="seen", scope="global")).id
    with write_coming():  # announced, never made until the block ends
        assert traffic.writes_coming() == 1
        memory.bookkeeping.touch([seen])
        start = time.monotonic()
        assert memory.flush_bookkeeping()
        assert 0.05 <= time.monotonic() - start < 5
        assert memory.require(seen).access_count == 1
    assert traffic.writes_coming() == 0


def test_a_checkpoint_waits_for_a_lull_in_acknowledged_writes(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint due by the WAL's size alone (CHECKPOINT_PAGES: a writer seldom idle)
    does not start its fsync of the database file beside a write coming. (The small one
    after a commit once the writer is idle does not wait: tests/test_writer.py.)"""
    monkeypatch.setattr(traffic, "MOST", 10.0)
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_PAGES", 10)
    monkeypatch.setattr("enyal_daemon.store.writer.CHECKPOINT_STEP", 10**6)
    checkpoints: list[float] = []
    ran = threading.Event()
    real = memory.writer._checkpointer

    class Recording:
        def wal_checkpoint(self, **kw: Any) -> Any:
            checkpoints.append(time.monotonic())
            ran.set()
            return real.wal_checkpoint(**kw)

        def close(self) -> None:
            real.close()

    monkeypatch.setattr(memory.writer, "_checkpointer", Recording())
    with write_coming():
        memory.write(lambda tx: tx.conn.execute("CREATE TABLE scratch (x TEXT)"))
        for _ in range(30):
            memory.write(
                lambda tx: tx.conn.execute("INSERT INTO scratch VALUES (?)", ("x" * 3000,))
            )
        time.sleep(0.3)  # a checkpoint that does not wait has run by now
        assert checkpoints == []
        settled_at = time.monotonic()
    assert ran.wait(10)
    assert checkpoints[0] >= settled_at


def test_a_request_that_fails_after_announcing_its_write_settles_it() -> None:
    """A remember whose embedding or checks fail before its write: the dispatcher settles
    what it announced, or every flush after would wait MOST a chunk."""
    from enyal_daemon.server import dispatch

    def failing(params: Any) -> Any:
        traffic.announce()
        raise ValueError("the model failed")

    with pytest.raises(ValueError):
        dispatch._settled(failing, None)
    assert traffic.writes_coming() == 0


def test_redacting_the_queries_lets_a_request_thread_in_between_them() -> None:
    """The flush redacts every query recalled since the last one, in Python's regex
    engine, which keeps the interpreter's lock: a request thread coming back from C
    (SQLite, numpy, onnxruntime) waited for the whole scan, up to a switch interval. The
    interval is made a second here, so only the drain giving the lock up between queries
    lets the other thread in before the drain ends."""
    queries = [f"how do I rotate the deploy key of service {i}? " * 90 for i in range(60)]
    book = Bookkeeping(SYSTEM, lambda q: redaction.text(secrets, q))
    for q in queries:
        book.recalled(["a", "b"], q)
    t0 = time.perf_counter()
    for q in queries:
        redaction.text(secrets, q)
    alone = time.perf_counter() - t0  # the whole scan, ~1 ms a query
    waits: list[float] = []
    started, stop = threading.Event(), threading.Event()

    def request_thread() -> None:
        started.set()
        while not stop.is_set():
            t = time.perf_counter()
            time.sleep(0.0002)  # C without the lock, then back for it
            waits.append(time.perf_counter() - t - 0.0002)

    was = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    other = threading.Thread(target=request_thread)
    try:
        other.start()
        started.wait()
        time.sleep(0.01)
        batch = book.drain()
    finally:
        stop.set()
        other.join()
        sys.setswitchinterval(was)
    # one row a recall (store/analytics.py), its two hits in it
    assert [len(getattr(e, "ids", ())) for e in batch.events] == [2] * len(queries)
    assert alone > 0.02, alone  # long enough for the wait to tell
    assert max(waits) < alone / 2, (max(waits), alone)

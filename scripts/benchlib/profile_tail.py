"""Where a recall's tail comes from: a real daemon under the bench's recall load (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.profile_tail [--calls 500] [--json out.json]

Runs the daemon on a copy of the quick bench's 10k store (as profile_daemon.py; --n for
another size) with a recorder installed in it: every cyclic GC collection (gc.callbacks:
generation, duration, thread), every bookkeeping flush and heap trim, every writer
commit and WAL checkpoint, every inference, how long each text waited for an embedding
worker, each keyword search, and each recall's handler (wall and its thread's CPU) and
its whole dispatch (decode -> pool -> verb -> encode), all on CLOCK_MONOTONIC. One
client then sends the bench's recall section's load (one connection, distinct
questions, one at a time, as s_recall.py) and times each recall from outside. The
report: the latency percentiles from outside and inside, the daemon's CPU per recall
(and its read system calls: SQLite's pages read back from the OS),
its RSS, what ran during the slowest recalls beside how often the same ran during any
recall, and the time each kind of event took in all.

`--remember` times remembers instead, on one connection, while another recalls back to
back (the bench's "remember under recall"): the same report, "recall" read as
"remember", with each remember's embedding, its wait for the writer and its whole write;
the embedding taken apart (its wait for a worker, its inference's wall and CPU, the hand
back), and the calls a flush or a checkpoint overlapped against the rest.
"""

from __future__ import annotations

import argparse
import atexit
import bisect
import collections
import functools
import gc
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

Event = tuple[str, float, float, Any]  # kind, start, end, detail


def _recording_daemon(out: str) -> int:
    """`python -m enyal_daemon` with the recorder installed; the events written at exit."""
    events: list[Event] = []
    add = events.append
    clock = time.perf_counter  # CLOCK_MONOTONIC on Linux: the client's clock too
    gc_started: dict[int, float] = {}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        ident = threading.get_ident()
        if phase == "start":
            gc_started[ident] = clock()
        else:
            t0 = gc_started.pop(ident, None)
            if t0 is not None:
                name = threading.current_thread().name
                add((f"gc{info['generation']}", t0, clock(), (name, info["collected"])))

    gc.callbacks.append(on_gc)

    def timed(owner: Any, attr: str, kind: str, detail: Any = None) -> None:
        fn = getattr(owner, attr)

        def wrapper(*a: Any, **kw: Any) -> Any:
            t0, c0 = clock(), time.thread_time()
            try:
                return fn(*a, **kw)
            finally:
                d = detail(a, kw) if callable(detail) else None
                add((kind, t0, clock(), (time.thread_time() - c0, d)))

        setattr(owner, attr, wrapper)

    from enyal_daemon import heap
    from enyal_daemon.embedder import onnx
    from enyal_daemon.server import daemon as daemon_mod
    from enyal_daemon.server import dispatch
    from enyal_daemon.store import writer as writer_mod

    timed(heap, "trim", "trim")
    timed(daemon_mod.Daemon, "_flush_and_trim", "flush")
    timed(
        writer_mod.Writer,
        "_commit_batch",
        "commit",
        lambda a, kw: (len(a[1]), a[1][0].durable),
    )
    timed(onnx.Embedder, "_run", "inference", lambda a, kw: int(a[1].shape[0]))

    from enyal_daemon.embedder import batcher as batcher_mod
    from enyal_daemon.index import keywords as keywords_mod

    timed(keywords_mod.Remembered, "search", "keywords")
    from enyal_daemon.service.hub import converge as converge_mod

    # A replica's catch-up (profile_hubtail.py): the checks of each slice it pulled, and its
    # writer's statements of new memories (each part's wall includes its steps aside).
    timed(converge_mod, "prepare", "sync:prepare")
    timed(converge_mod, "_put_new", "sync:put")
    from enyal_daemon.service.core import bookkeeping as bookkeeping_mod

    # The flush's first step, on its own thread: the recalls' queries redacted.
    timed(bookkeeping_mod.Bookkeeping, "drain", "drain")
    # A recall's parts on the request thread, each on its thread's CPU clock, so that a
    # recall that took more CPU than the rest shows which part did.
    from enyal_daemon.service.core import engine as engine_mod
    from enyal_daemon.service.core import identity
    from enyal_daemon.service.files import sources
    from enyal_daemon.service.memory import recall as recall_mod
    from enyal_daemon.service.memory import validity
    from enyal_daemon.store import entries

    timed(identity, "follow", "part:follow")
    timed(engine_mod.Engine, "sweep_expired", "part:sweep")
    for name in ("_filter", "_gather", "_nearest", "_used", "rank"):
        timed(recall_mod, name, f"part:{name.strip('_')}")
    timed(entries, "by_rids", "part:rows")
    timed(validity, "annotate", "part:validity")
    timed(sources, "annotate", "part:sources")
    submitted: dict[int, float] = {}
    submit = batcher_mod.Batcher.submit

    def timed_submit(self: Any, *a: Any, **kw: Any) -> Any:
        t0 = clock()
        fut = submit(self, *a, **kw)
        submitted[id(fut)] = t0
        return fut

    take = batcher_mod.Batcher._take

    def timed_take(self: Any) -> Any:
        batch = take(self)
        now = clock()
        for _, fut in batch:  # how long each text waited for a worker to take it
            t0 = submitted.pop(id(fut), None)
            if t0 is not None:
                add(("queued", t0, now, len(batch)))
        return batch

    batcher_mod.Batcher.submit = timed_submit  # type: ignore[method-assign]
    batcher_mod.Batcher._take = timed_take  # type: ignore[method-assign]

    class Checkpointer:
        """The writer's checkpoint connection, each checkpoint timed."""

        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def wal_checkpoint(self, *a: Any, **kw: Any) -> Any:
            t0 = clock()
            got = None
            try:
                got = self._conn.wal_checkpoint(*a, **kw)
                return got
            finally:  # the WAL's frames and how many are copied (None: it failed)
                add(("checkpoint", t0, clock(), got))

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

    init = writer_mod.Writer.__init__

    def writer_init(self: Any, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        if self._checkpointer is not None:
            self._checkpointer = Checkpointer(self._checkpointer)

    writer_mod.Writer.__init__ = writer_init  # type: ignore[method-assign]

    handle = dispatch.Dispatcher.handle

    async def timed_handle(self: Any, *a: Any, **kw: Any) -> Any:
        t0 = clock()
        try:
            return await handle(self, *a, **kw)
        finally:
            add(("dispatch", t0, clock(), None))

    dispatch.Dispatcher.handle = timed_handle  # type: ignore[method-assign]

    # A remember's way through (--remember): its text's embedding, its wait for the writer
    # (from submit to its batch's start, with whether that batch was durable; a write that
    # found the writer idle and ran on its caller's thread, never queued, as
    # "wqueued-in-place", its wait 0) and the whole write (queue, job, commit, fsync) on
    # the request thread.
    timed(engine_mod.Engine, "embed_memory", "part:embed")
    timed(engine_mod.Engine, "write", "part:write")
    enqueued: dict[int, float] = {}
    writer_submit = writer_mod.Writer.submit

    def timed_writer_submit(self: Any, *a: Any, **kw: Any) -> Any:
        t0 = clock()
        fut = writer_submit(self, *a, **kw)
        enqueued[id(fut)] = t0
        return fut

    writer_mod.Writer.submit = timed_writer_submit  # type: ignore[method-assign]
    commit_batch = writer_mod.Writer._commit_batch  # already timed above

    def waited_commit_batch(self: Any, batch: Any) -> Any:
        now = clock()
        for job in batch:
            t0 = enqueued.pop(id(job.future), None)
            if t0 is not None:
                add(("wqueued" if job.durable else "wqueued-bk", t0, now, len(batch)))
            elif job.durable:
                add(("wqueued-in-place", now, now, len(batch)))
        return commit_batch(self, batch)

    writer_mod.Writer._commit_batch = waited_commit_batch  # type: ignore[method-assign]

    timed_verb = os.environ.get("ENYAL_TAIL_VERB", "recall")
    if timed_verb == "remember":
        _stage_remember(add, clock)
    handlers = daemon_mod.Daemon.handlers

    def timed_handlers(self: Any, loop: Any) -> Any:
        got = handlers(self, loop)
        verb = got[timed_verb]

        def run(params: Any) -> Any:
            t0, c0, q0 = clock(), time.thread_time(), _run_queue()
            try:
                return verb(params)
            finally:
                d = (time.thread_time() - c0, None, _run_queue() - q0, threading.get_ident())
                add(("verb", t0, clock(), d))

        got[timed_verb] = run
        return got

    daemon_mod.Daemon.handlers = timed_handlers  # type: ignore[method-assign]

    def dump() -> None:
        gc.callbacks.remove(on_gc)
        Path(out).write_text(json.dumps(events))

    atexit.register(dump)
    from enyal_daemon.__main__ import main

    return main([])


def _run_queue() -> float:
    """Seconds this thread has waited on a run queue for a core so far (schedstat's second
    field): a part's wall beyond its CPU and this is time blocked (the interpreter's lock,
    a lock of ours, the disk's fsync)."""
    with open("/proc/thread-self/schedstat", "rb") as f:
        return int(f.read().split()[1]) / 1e9


def _stage_remember(add: Callable[[Event], None], clock: Callable[[], float]) -> None:
    """Each stage of a remember recorded as ("stage", start, end, (name, CPU, run queue,
    thread)): the verb's way in (secret scan, the same text looked up), the text's
    embedding (run here, or queued for a worker), the injection judge, the write (the
    writer's turn waited for, the job's statements, BEGIN and COMMIT with its fsync,
    the hooks after commit) and the shared file after it. The stages of the writer are
    those of durable writes only (a recall's bookkeeping is not)."""
    from enyal_daemon.embedder import batcher
    from enyal_daemon.hygiene import injection
    from enyal_daemon.service.files import shared_files
    from enyal_daemon.service.memory import memories
    from enyal_daemon.service.rules import redaction
    from enyal_daemon.store import entries, writer

    def staged(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        def wrapper(*a: Any, **kw: Any) -> Any:
            t0, c0, q0 = clock(), time.thread_time(), _run_queue()
            try:
                return fn(*a, **kw)
            finally:
                d = (name, time.thread_time() - c0, _run_queue() - q0, threading.get_ident())
                add(("stage", t0, clock(), d))

        return wrapper

    from enyal_daemon.index import entry_index

    entry_index.EntryIndex.add = staged(entry_index.EntryIndex.add, "write: index add")  # type: ignore[method-assign]
    redaction.scrub = staged(redaction.scrub, "secret scan")  # type: ignore[assignment]
    entries.find_by_hash = staged(entries.find_by_hash, "same text?")  # type: ignore[assignment]
    memories.judge_memory = staged(injection.judge_memory, "injection judge")  # type: ignore[assignment]
    shared_files.write_file = staged(shared_files.write_file, "shared file")  # type: ignore[assignment]
    batcher.Batcher.here = staged(batcher.Batcher.here, "embed: inference here")  # type: ignore[method-assign]
    batcher.Batcher.embed = staged(batcher.Batcher.embed, "embed")  # type: ignore[method-assign]
    run = writer.Writer.run

    def staged_run(self: Any, fn: Callable[[Any], Any], durable: bool = True) -> Any:
        if not durable:
            return run(self, fn, durable)
        t0 = clock()

        def job(tx: Any) -> Any:
            add(("stage", t0, clock(), ("write: to the job", 0.0, 0.0, threading.get_ident())))
            got = staged(fn, "write: job")(tx)
            tx.after_commit[:] = [staged(h, "write: after commit") for h in tx.after_commit]
            return got

        return staged(run, "write")(self, job, durable)

    writer.Writer.run = staged_run  # type: ignore[method-assign]
    commit = writer.Writer._commit_batch

    def staged_commit(self: Any, batch: Any) -> Any:
        if not batch[0].durable:
            return commit(self, batch)
        wal = self.conn.filename_wal
        size = os.path.getsize(wal) if os.path.exists(wal) else 0
        try:
            return staged(commit, "write: batch")(self, batch)
        finally:  # whether its frames went past the WAL file's end (the file grew)
            grew = os.path.getsize(wal) - size if os.path.exists(wal) else 0
            add(("walgrew", clock(), clock(), grew))

    writer.Writer._commit_batch = staged_commit  # type: ignore[method-assign]


def _commits_beside_checkpoints(
    rows: list[tuple[float, dict[str, list[float]]]],
    spans: list[tuple[float, float] | None],
    checkpoints: list[Event],
) -> None:
    """The remembers' COMMITs (their fsync) that a WAL checkpoint (its copy and its fsync
    of the database file) overlapped, against the rest; and the checkpoints' length."""
    ms = 1e3
    beside: dict[bool, list[float]] = {True: [], False: []}
    for (_, got), span in zip(rows, spans, strict=True):
        if span is None:
            continue
        hit = any(_overlap(span[0], span[1], c[1], c[2]) > 0 for c in checkpoints)
        beside[hit].append(got["write: commit"][0])
    took = [(c[2] - c[1]) * ms for c in checkpoints]
    print(
        f"  the commit when a checkpoint overlapped it ({len(beside[True])}): p50 "
        f"{_pct(beside[True], 50):.2f} p90 {_pct(beside[True], 90):.2f} p99 "
        f"{_pct(beside[True], 99):.2f}; the rest ({len(beside[False])}): p50 "
        f"{_pct(beside[False], 50):.2f} p90 {_pct(beside[False], 90):.2f} p99 "
        f"{_pct(beside[False], 99):.2f}; the checkpoints ({len(took)}) p50 "
        f"{_pct(took, 50):.2f} p99 {_pct(took, 99):.2f} max {max(took, default=0.0):.2f} ms"
    )


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q / 100 * (len(xs) - 1)))] if xs else float("nan")


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def report(lat: list[tuple[float, float]], events: list[Event], slow_share: float) -> None:
    ms = 1e3
    n = len(lat)
    outside = [(t1 - t0) * ms for t0, t1 in lat]
    t_first, t_last = lat[0][0], lat[-1][1]
    inside = [e for e in events if t_first <= e[1] and e[2] <= t_last]
    by_kind: dict[str, list[Event]] = collections.defaultdict(list)
    for e in inside:
        by_kind[e[0]].append(e)
    verbs = sorted(by_kind["verb"], key=lambda e: e[1])
    disp = sorted(by_kind["dispatch"], key=lambda e: e[1])
    print(f"{n} recalls over {t_last - t_first:.1f} s")
    for label, xs in (
        ("from outside (socket)", outside),
        ("dispatch (decode..encode)", [(e[2] - e[1]) * ms for e in disp]),
        ("verb, wall", [(e[2] - e[1]) * ms for e in verbs]),
        ("verb, its thread's CPU", [e[3][0] * ms for e in verbs]),
    ):
        print(
            f"  {label:28s} p50 {_pct(xs, 50):6.2f}  p90 {_pct(xs, 90):6.2f}  "
            f"p99 {_pct(xs, 99):6.2f}  max {max(xs):6.2f} ms"
        )
    # Around the verb, per recall: the way in (socket, the loop's read and decode, the hop
    # to the request pool) and the way out (the hop back to the loop, encode, the reply's
    # write). `dispatch` above ends when the loop has taken the pool's result.
    starts = [e[1] for e in verbs]
    ins, outs = [], []
    for t0, t1 in lat:
        j = bisect.bisect_left(starts, t0)
        if j < len(verbs) and verbs[j][2] <= t1:
            ins.append((verbs[j][1] - t0) * ms)
            outs.append((t1 - verbs[j][2]) * ms)
    for label, xs in (("before the verb (way in)", ins), ("after the verb (way out)", outs)):
        print(
            f"  {label:28s} p50 {_pct(xs, 50):6.2f}  p90 {_pct(xs, 90):6.2f}  "
            f"p99 {_pct(xs, 99):6.2f}  max {max(xs):6.2f} ms"
        )
    print("each part's wall, and each wait for the writer (count, p50, p99, max ms):")
    for kind in sorted(by_kind):
        if kind.startswith(("part:", "wqueued")):
            d = [(e[2] - e[1]) * ms for e in by_kind[kind]]
            print(
                f"  {kind:14s} {len(d):5d}  p50 {_pct(d, 50):6.2f}  p99 {_pct(d, 99):6.2f}  "
                f"max {max(d):6.2f}"
            )
    print("events during the recalls (count, total ms, max ms, per recall ms):")
    for kind in sorted(by_kind):
        if kind in ("verb", "dispatch") or kind.startswith(("part:", "wqueued")):
            continue
        es = by_kind[kind]
        d = [(e[2] - e[1]) * ms for e in es]
        print(
            f"  {kind:10s} {len(es):5d}  {sum(d):8.1f}  {max(d):6.2f}  {sum(d) / n:6.3f}"
            + (
                f"  threads {collections.Counter(e[3][0] for e in es).most_common(4)}"
                if kind.startswith("gc")
                else ""
            )
        )
    k = max(1, round(n * slow_share))
    order = sorted(range(n), key=lambda i: outside[i], reverse=True)
    slow = set(order[:k])
    print(
        f"the slowest {k} recalls ({slow_share:.0%}, >= {outside[order[k - 1]]:.1f} ms) "
        f"against all: share of recalls an event overlaps, and its mean overlap (ms)"
    )
    kinds = [
        k2
        for k2 in sorted(by_kind)
        if k2 not in ("verb", "dispatch") and not k2.startswith(("part:", "wqueued"))
    ]
    for kind in kinds:
        es = by_kind[kind]
        hit = [
            sum(_overlap(t0, t1, e[1], e[2]) for e in es) * ms for (t0, t1) in lat
        ]  # O(n*m): fine at 500 x a few thousand
        s_hit = [hit[i] for i in slow]
        print(
            f"  {kind:10s} slow {sum(1 for x in s_hit if x > 0) / k:5.0%} "
            f"{sum(s_hit) / k:6.2f} ms   all {sum(1 for x in hit if x > 0) / n:5.0%} "
            f"{sum(hit) / n:6.2f} ms"
        )
    print("the 10 slowest: outside ms, and what overlapped them (kind: ms)")
    for i in order[:10]:
        t0, t1 = lat[i]
        parts = []
        for kind in kinds:
            o = sum(_overlap(t0, t1, e[1], e[2]) for e in by_kind[kind]) * ms
            if o > 0:
                parts.append(f"{kind} {o:.1f}")
        v = [e for e in verbs if t0 <= e[1] and e[2] <= t1]
        vtxt = f"verb {(v[0][2] - v[0][1]) * ms:.1f} cpu {v[0][3][0] * ms:.1f}" if v else ""
        print(f"  #{i:3d} {outside[i]:6.1f}  {vtxt}  {', '.join(parts)}")
    _embeds(by_kind)
    _stages(lat, by_kind, slow_share)
    print("from outside, the calls a flush or a checkpoint overlapped and the rest:")
    for kind in ("flush", "checkpoint"):
        hit = [any(_overlap(t0, t1, e[1], e[2]) > 0 for e in by_kind[kind]) for t0, t1 in lat]
        yes = [outside[i] for i in range(n) if hit[i]]
        no = [outside[i] for i in range(n) if not hit[i]]
        print(
            f"  {kind:10s} {len(yes):4d}: p50 {_pct(yes, 50):6.2f} p99 {_pct(yes, 99):6.2f}; "
            f"not {len(no):4d}: p50 {_pct(no, 50):6.2f} p99 {_pct(no, 99):6.2f}"
        )
    parts_of = [k2 for k2 in sorted(by_kind) if k2.startswith("part:")]
    print("the 5 recalls whose verb took the most CPU: its parts' CPU (ms, nested parts overlap)")
    for v in sorted(verbs, key=lambda e: -e[3][0])[:5]:
        got = [
            f"{k2[5:]} {sum(e[3][0] for e in by_kind[k2] if v[1] <= e[1] <= v[2]) * ms:.1f}"
            for k2 in parts_of
        ]
        print(f"  verb {v[3][0] * ms:6.1f}: {', '.join(got)}")


# The stages of a remember as printed, each with what it holds (the rest of the verb:
# "other"); "write: commit" is the batch's end after its job, less the hooks after commit.
STAGES = (
    "secret scan",
    "same text?",
    "embed",
    "embed: inference here",
    "injection judge",
    "write",
    "write: to the job",
    "write: batch",
    "write: job",
    "write: same text?",
    "write: commit",
    "write: after commit",
    "write: index add",
    "shared file",
)


# The stages that do no I/O of their own (SQLite's pages are in memory) nor wait for
# another thread: what blocks them beyond a core is a lock.
NO_IO = (
    "secret scan",
    "same text?",
    "injection judge",
    "write: job",
    "write: after commit",
    "shared file",
)


def _put(got: dict[str, list[float]], name: str, wall: float, cpu: float, runq: float) -> None:
    got[name][0] += wall * 1e3
    got[name][1] += cpu * 1e3
    got[name][2] += runq * 1e3


def _stages(lat: list[tuple[float, float]], by_kind: dict[str, list[Event]], share: float) -> None:
    """Every remember taken apart by stage (--remember): each stage's wall, and of it the
    thread's CPU and its wait on a run queue (the rest blocked: the interpreter's lock, a
    lock, the disk); the stages of the slowest `share` one by one beside all's p50."""
    verbs = sorted(by_kind["verb"], key=lambda e: e[1])
    stages = sorted(by_kind.get("stage", []), key=lambda e: e[1])
    if not stages:
        return
    ms = 1e3
    starts = [e[1] for e in verbs]
    rows: list[tuple[float, dict[str, list[float]]]] = []
    verbs_of: list[Event] = []  # each row's verb
    spans: list[tuple[float, float] | None] = []  # each row's COMMIT (job's end, batch's)
    for t0, t1 in lat:
        j = bisect.bisect_left(starts, t0)
        if j >= len(verbs) or verbs[j][2] > t1:
            continue
        v = verbs[j]
        got: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])

        put = functools.partial(_put, got)
        put("from outside", t1 - t0, 0.0, 0.0)
        put("way in", v[1] - t0, 0.0, 0.0)
        put("verb", v[2] - v[1], v[3][0], v[3][2])
        put("way out", t1 - v[2], 0.0, 0.0)
        job_end = batch = None
        for e in stages[bisect.bisect_left([x[1] for x in stages], v[1]) :]:
            if e[1] > v[2]:
                break
            name, cpu, runq, ident = e[3]
            if e[2] > v[2] or (ident != v[3][3] and not name.startswith("write")):
                continue
            if name == "same text?" and batch is not None:
                name = "write: same text?"  # the job's own look-up again
            put(name, e[2] - e[1], cpu, runq)
            if name == "write: job":
                job_end = e[2]
            elif name == "write: batch":
                batch = e
        span = None
        if batch is not None and job_end is not None:
            hooks = got["write: after commit"]
            put("write: commit", batch[2] - job_end - hooks[0] / ms, 0.0, 0.0)
            span = (job_end, batch[2] - hooks[0] / ms)
        spans.append(span)
        top = sum(got[k][0] for k in ("secret scan", "same text?", "embed", "injection judge"))
        top += got["write"][0] + got["shared file"][0]
        other = got["verb"]
        put("other", other[0] / ms - top / ms, 0.0, 0.0)
        rows.append((t1 - t0, got))
        verbs_of.append(v)
    names = ["from outside", "way in", "verb", *STAGES, "other", "way out"]
    print(f"each remember by stage ({len(rows)}): wall p50 / p99, and CPU and run queue p50 ms")
    for name in names:
        xs = [r[1][name] for r in rows if name in r[1]]
        if not xs:
            continue
        print(
            f"  {name:24s} {len(xs):4d}  {_pct([x[0] for x in xs], 50):6.2f} / "
            f"{_pct([x[0] for x in xs], 99):6.2f}   cpu {_pct([x[1] for x in xs], 50):5.2f}"
            f"  runq {_pct([x[2] for x in xs], 50):5.2f}"
            f"  blocked p99 {_pct([x[0] - x[1] - x[2] for x in xs if x[1]], 99):6.2f}"
        )
    # Off a core yet not waiting for one, in stages that neither read the disk nor wait for
    # another thread's work: the interpreter's lock (or a lock of ours, the index's).
    held = [sum(r[1][n][0] - r[1][n][1] - r[1][n][2] for n in NO_IO if n in r[1]) for r in rows]
    print(
        f"  blocked in {', '.join(NO_IO)} (a remember's sum): p50 {_pct(held, 50):.2f} "
        f"p90 {_pct(held, 90):.2f} p99 {_pct(held, 99):.2f} mean {sum(held) / len(held):.2f}"
    )
    grew = sorted(by_kind.get("walgrew", []), key=lambda e: e[1])
    if grew:
        ends = [e[1] for e in grew]
        commits: dict[bool, list[float]] = {True: [], False: []}
        for v, (_, got) in zip(verbs_of, rows, strict=True):
            j = bisect.bisect_left(ends, v[1])
            if j < len(grew) and grew[j][1] <= v[2] and "write: commit" in got:
                commits[grew[j][3] > 0].append(got["write: commit"][0])
        print(
            f"  the commit (COMMIT, its fsync) when its frames grew the WAL file "
            f"({len(commits[True])}): p50 {_pct(commits[True], 50):.2f} p90 "
            f"{_pct(commits[True], 90):.2f} p99 {_pct(commits[True], 99):.2f}; when they "
            f"overwrote it ({len(commits[False])}): p50 {_pct(commits[False], 50):.2f} p90 "
            f"{_pct(commits[False], 90):.2f} p99 {_pct(commits[False], 99):.2f}"
        )
    _commits_beside_checkpoints(rows, spans, by_kind.get("checkpoint", []))
    k = max(1, round(len(rows) * share))
    slow = sorted(rows, key=lambda r: -r[0])[:k]
    print(f"the slowest {k} by stage: wall (cpu, run queue) ms; stages of 0.5 ms or more")
    for _, got in slow:
        parts = [
            f"{name} {got[name][0]:.1f}"
            + (f" ({got[name][1]:.1f}, {got[name][2]:.1f})" if got[name][1] else "")
            for name in names
            if name in got and (got[name][0] >= 0.5 or name == "from outside")
        ]
        print("  " + "; ".join(parts))
    print(f"the slowest {k}, mean of each stage's wall against all's mean (ms)")
    for name in names:
        a = [r[1][name][0] for r in rows if name in r[1]]
        b = [g[name][0] for _, g in slow if name in g]
        if a:
            print(f"  {name:24s} slow {sum(b) / k:7.2f}  all {sum(a) / len(rows):7.2f}")


def _embeds(by_kind: dict[str, list[Event]]) -> None:
    """A remember's embedding (--remember) taken apart: its text's wait for a worker, its
    inference's wall and CPU (the worker thread's clock: wall beyond it is the core or the
    GIL taken by others), and the hand back to the request thread; with whether a
    bookkeeping commit, a flush's drain, a checkpoint or another inference (a query's)
    overlapped it."""
    embeds = by_kind.get("part:embed", [])
    if not embeds:
        return
    ms = 1e3
    infer = sorted(by_kind["inference"], key=lambda e: e[1])
    queued = sorted(by_kind["queued"], key=lambda e: e[2])
    starts = [e[1] for e in infer]
    takes = [e[2] for e in queued]
    rows = []
    for e in embeds:
        j = bisect.bisect_left(starts, e[1])
        got = [x for x in infer[j : j + 4] if x[2] <= e[2]]
        if not got:
            continue
        inf = got[-1]  # the last to end inside it: its own (a recall's started before)
        k = bisect.bisect_right(takes, inf[1]) - 1
        wait = (queued[k][2] - queued[k][1]) * ms if k >= 0 and queued[k][1] >= e[1] else 0.0
        over = {
            kind: any(_overlap(e[1], e[2], x[1], x[2]) > 0 for x in by_kind.get(kind, []))
            for kind in ("drain", "checkpoint")
        }
        bk = any(_overlap(e[1], e[2], x[1], x[2]) > 0 and not x[3][1][1] for x in by_kind["commit"])
        # Another inference (a query's) running beside this one's: three busy threads on
        # two cores with the recall's keyword search.
        beside = any(_overlap(inf[1], inf[2], x[1], x[2]) > 0 for x in infer if x is not inf)
        rows.append(
            (
                (e[2] - e[1]) * ms,
                wait,
                (inf[2] - inf[1]) * ms,
                inf[3][0] * ms,
                (e[2] - inf[2]) * ms,
                bk,
                over["drain"],
                over["checkpoint"],
                beside,
            )
        )
    print(f"each remember's embedding ({len(rows)}): p50 / p99 ms")
    for i, label in enumerate(
        ("embed, wall", "queued for a worker", "inference, wall", "inference, CPU", "hand back")
    ):
        xs = [r[i] for r in rows]
        print(f"  {label:22s} {_pct(xs, 50):6.2f} / {_pct(xs, 99):6.2f}")
    for i, label in (
        (5, "a bookkeeping commit"),
        (6, "a flush's drain"),
        (7, "a checkpoint"),
        (8, "a query's inference"),
    ):
        yes = [r[0] for r in rows if r[i]]
        no = [r[0] for r in rows if not r[i]]
        print(
            f"  overlapping {label:22s} {len(yes):4d}: p50 {_pct(yes, 50):6.2f} "
            f"p99 {_pct(yes, 99):6.2f}; not {len(no):4d}: p50 {_pct(no, 50):6.2f} "
            f"p99 {_pct(no, 99):6.2f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", help=argparse.SUPPRESS)  # internal: be the recorded daemon
    ap.add_argument("--n", type=int, default=10_000, help="memories in the store")
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--slow", type=float, default=0.02, help="share of recalls called slow")
    ap.add_argument("--json", type=Path, help="also write the latencies and events here")
    ap.add_argument(
        "--remember",
        action="store_true",
        help="time remembers instead (the bench's 'remember under recall': another "
        "connection recalls back to back meanwhile)",
    )
    ap.add_argument(
        "--scifact",
        action="store_true",
        help="recall on the bench's SciFact store (1d) its claims, without a cwd, as "
        "s_scifact.py asks them (--n ignored; --calls at most 300)",
    )
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    args = ap.parse_args()
    if args.daemon:
        sys.exit(_recording_daemon(args.daemon))
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib import corpus
    from benchlib.background import RecallLoad
    from benchlib.procs import Daemon
    from benchlib.store import install, quick_store
    from benchlib.vocab import PROJECTS

    qs = corpus.questions(args.warmup + args.calls, seed=args.n)
    where: dict[str, str] = {"cwd": PROJECTS[0]}
    if args.scifact:
        from benchlib.s_scifact import store_and_claims

        store, claims, _, _ = store_and_claims(args.cache, args.calls)
        qs, where = qs[: args.warmup] + claims, {}
        args.calls = len(claims)
    else:
        store = quick_store(args.n, args.cache, print)
    home = Path(tempfile.mkdtemp(prefix="enyal-tail-"))
    install(store, home)
    events_file = home / "events.json"
    os.environ["ENYAL_BENCH_DAEMON"] = (
        f"{sys.executable} {HERE / 'profile_tail.py'} --daemon {events_file}"
    )
    method, key = ("remember", "content") if args.remember else ("recall", "query")
    os.environ["ENYAL_TAIL_VERB"] = method
    if args.remember:  # as s_writes.py: every text new, so each remember stores
        count = args.warmup + args.calls
        qs = [f"{t} (tail note {i})" for i, (_, t) in enumerate(corpus.base_texts(count, 4242))]
    daemon = Daemon.start(home)
    lat: list[tuple[float, float]] = []
    load = RecallLoad(daemon, corpus.questions(500, seed=args.n + 1), PROJECTS[1])
    try:
        conn = daemon.connect()
        for q in qs[: args.warmup]:
            conn.call_raw(method, {key: q, **where})
        if args.remember:
            load.__enter__()
            while load.served == 0 and load.error is None:
                time.sleep(0.005)  # the recalls are under way before the clock starts
        rss0 = daemon.rss()
        load0 = os.getloadavg()
        cpu0, reads0 = daemon.cpu(), daemon.read_calls()
        for q in qs[args.warmup :]:
            t0 = time.perf_counter()
            conn.call_raw(method, {key: q, **where})
            lat.append((t0, time.perf_counter()))
        cpu, reads = daemon.cpu() - cpu0, daemon.read_calls() - reads0
        load1 = os.getloadavg()
        rss1 = daemon.rss()
        if args.remember:
            load.__exit__(None, None, None)
            print(f"{load.served} recalls on the other connection meanwhile")
        conn.close()
    finally:
        daemon.stop()
    events = [tuple(e) for e in json.loads(events_file.read_text())]
    shutil.rmtree(home, ignore_errors=True)
    print(
        f"daemon CPU {cpu / args.calls * 1e3:.2f} ms per {method} (utime+stime), "
        f"{reads / args.calls:.1f} read system calls; "
        f"RSS {rss0[0]:.0f} MB after warm-up, {rss1[0]:.0f} MB after (peak {rss1[1]:.0f}); "
        f"load average {load0[0]:.2f} before, {load1[0]:.2f} after"
    )
    report(lat, events, args.slow)  # type: ignore[arg-type]
    if args.json:
        args.json.write_text(json.dumps({"lat": lat, "events": events}))


if __name__ == "__main__":
    main()

"""A replica's initial sync from a real PostgreSQL, in this process, taken apart (issue 28).

    cd scripts && PYTHONPATH=../daemon:../client ../.venv/bin/python -m benchlib.profile_sync
        [--n 3000] [--recall [--remember]] [--profile out.prof]

A throwaway cluster (harnesslib/pg_cluster.py, as section 12 of the bench) holds a space
of n put changes in the replicas' shape, vectors carried under our model id; an engine on
a fresh database (the daemon's, without its socket) inits the hub as its own role and
joins the space, and the sync runs on the replica's own worker thread until every memory
is stored. Reports memories/s and each thread's CPU per synced memory (from
/proc/self/task: waiting counts nothing, so the shares hold on a loaded machine); with
`--recall`, a thread recalls every 20 ms through the server's Dispatcher during the sync
and as many times idle after it (the bench's recall p99 ratio, in-process; `--remember`:
a remember each time instead, a write that waits for the writer the sync shares); with
`--profile`, every thread runs under cProfile on its own CPU clock (the figures of a
profiled run are for its shares, not its speed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import shutil
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RECALL_GAP = 0.02  # as s_hub.py's client: an agent's pace


def _thread_cpu() -> dict[str, float]:
    """CPU seconds so far of each live thread of this process, by name (a pool's threads
    together; threads not started by Python, onnxruntime's and the tokenizer's, under
    "native"), from /proc: what each thread ran, not what it waited."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a thread that ended meanwhile
            continue
        name = names.get(int(task.name), "native").rstrip("0123456789_-")
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def _sync_cpu() -> tuple[float, float]:
    """CPU seconds so far of the sync's own threads, the replica's worker and the writer,
    from schedstat (nanoseconds, where stat counts 10 ms ticks): read around each recall,
    what the sync still ran while a recall was being served."""
    got = {"enyal-hub": 0, "enyal-writer": 0}
    for t in threading.enumerate():
        name = t.name.removesuffix("-low")  # its niced thread's (enyal_daemon/niced.py)
        if name in got and t.native_id is not None:
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/self/task/{t.native_id}/schedstat").read_text()
                got[name] += int(stat.split()[0])
    return got["enyal-hub"] / 1e9, got["enyal-writer"] / 1e9


SYNC_THREADS = (
    "enyal-hub",
    "enyal-hub-low",
    "enyal-writer",
    "enyal-writer-low",
    "enyal-checkpoint",
)


def _sched() -> tuple[float, float, float]:
    """(CPU, run-queue wait) in seconds so far of the threads a recall runs on (all but
    the sync's own: the loop, the request pool, the embedder, native ones), and the sync's
    threads' CPU, from schedstat. Around a recall: what it ran, what it waited for a core
    (CPU contention), and, by difference from its wall, what it slept (the interpreter's
    lock, a lock of the index or the writer's, I/O)."""
    sync = {t.native_id for t in threading.enumerate() if t.name in SYNC_THREADS}
    cpu = wait = theirs = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            ran, waited, _ = (int(x) for x in (task / "schedstat").read_text().split())
        except (OSError, ValueError):
            continue
        if int(task.name) in sync:
            theirs += ran
        else:
            cpu += ran
            wait += waited
    return cpu / 1e9, wait / 1e9, theirs / 1e9


def _breakdown(what: str, walls: list[float], scheds: list[tuple[float, float, float]]) -> None:
    """Mean wall of the recalls, and of their slowest 5%, split into the recall's threads'
    CPU, their wait for a core, and the rest (asleep: the interpreter's lock, locks, I/O);
    with the sync's threads' CPU meanwhile."""
    rows = sorted(zip(walls, scheds, strict=True), key=lambda r: r[0])
    for label, part in (("all", rows), ("slowest 5%", rows[-max(1, len(rows) // 20) :])):
        n = len(part)
        wall = sum(w for w, _ in part) / n
        cpu = sum(s[0] for _, s in part) / n * 1e3
        runq = sum(s[1] for _, s in part) / n * 1e3
        theirs = sum(s[2] for _, s in part) / n * 1e3
        print(
            f"  {what:6s} {label:10s} ({n:4d}): wall {wall:6.2f} ms = recall CPU {cpu:5.2f} + "
            f"wait for a core {runq:5.2f} + asleep {wall - cpu - runq:6.2f}; sync CPU meanwhile "
            f"{theirs:5.2f}"
        )


def _seed(url: str, texts: list[str], vecs: Any, model_id: str) -> None:
    import msgspec

    from enyal_daemon.hub.change import Change
    from enyal_daemon.hub.link import PgLink
    from enyal_daemon.service.hub import body

    alice = PgLink(url)
    state = body.State(
        content="",
        content_type="fact",
        scope_level="global",
        scope_path=None,
        confidence=1.0,
        created_at="2026-11-20T12:00:00.000Z",
        updated_at="2026-11-20T12:00:00.000Z",
        tags=["sync"],
        importance=3,
        forgotten=False,
    )
    try:
        alice.join("big")
        alice.invite("big", "carol")
        device = uuid.uuid4().hex
        for start in range(0, len(texts), 500):
            batch = [
                Change(
                    uuid.uuid4().hex,
                    "big",
                    str(uuid.uuid4()),
                    i + 1,
                    device,
                    body.PUT,
                    body.encode(
                        body.Put(
                            state=msgspec.structs.replace(state, content=texts[i]), based=(0, "")
                        )
                    ),
                    vecs[i].astype("<f4").tobytes(),
                    model_id,
                )
                for i in range(start, min(start + 500, len(texts)))
            ]
            alice.push(batch)
    finally:
        alice.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3_000)
    ap.add_argument("--recall", action="store_true")
    ap.add_argument("--remember", action="store_true", help="with --recall: remember instead")
    ap.add_argument("--profile", type=Path)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    import numpy as np

    from benchlib import thread_profiles
    from benchlib.s_hub import asked  # the bench's questions: never one asked before
    from benchlib.stats import pct
    from benchlib.store import Engine as BenchEngine
    from benchlib.store import make_corpus
    from harnesslib.pg_cluster import PgCluster

    bench = BenchEngine.load()
    c = make_corpus(bench, min(args.n, 2_000), args.cache, print)
    base = [t for _, t in c.texts]
    k = len(base)
    texts = [base[i % k] + (f" ({i // k})" if i >= k else "") for i in range(args.n)]
    vecs = np.asarray(c.vecs[np.arange(args.n) % k], dtype="<f4")

    from enyal_daemon.hub.link import PgLink
    from enyal_daemon.server.dispatch import Dispatcher
    from enyal_daemon.service import verbs
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.service.hub import membership
    from enyal_daemon.service.hub.replica import replica_of
    from enyal_daemon.store import hub as rows
    from enyal_protocol import wire as p

    cluster = PgCluster(tcp=True)
    home = Path(tempfile.mkdtemp(prefix="enyal-profsync-"))
    try:
        cluster.start()
        cluster.hub_setup()
        os.environ.update(cluster.env())
        owner = PgLink(cluster.url("enyal_hub"))
        owner.init_schema()
        owner.close()
        _seed(cluster.url("alice"), texts, vecs, bench.files.model_id)
        if args.profile:
            thread_profiles.start()
        engine = Engine(home / "enyal.db", bench.embedder)
        engine.embed("warm up")
        handlers: dict[str, Any] = verbs.bind(engine)
        for name in p.METHODS:
            handlers.setdefault(name, lambda params: None)
        membership.init(engine, p.HubInitParams(url=cluster.url("carol")))
        queries = [f"where is {t.split()[-1]} configured" for t in texts[:: max(1, args.n // 400)]]
        main_prof = cProfile.Profile(time.thread_time)
        during: list[float] = []
        intruded: list[tuple[float, float]] = []  # the sync's CPU during each recall, ms
        scheds: list[tuple[float, float, float]] = []  # _sched's deltas around each recall
        idle: list[float] = []
        with ThreadPoolExecutor((os.cpu_count() or 2) + 2, thread_name_prefix="enyal-req") as pool:
            dispatcher = Dispatcher(handlers, pool, engine.db_path)
            loop = asyncio.new_event_loop()

            def recall(i: int, into: list[float]) -> None:
                frame = (
                    b'{"jsonrpc":"2.0","id":1,"method":"recall","params":{"query":"%s","limit":10}}'
                    % asked(queries, i).encode()
                )
                if args.remember:  # a write instead: it waits for the writer the sync shares
                    frame = (
                        b'{"jsonrpc":"2.0","id":1,"method":"remember","params":{"content":'
                        b'"A note taken while a space syncs, number %d.","scope":"global"}}' % i
                    )
                r0 = _sched()
                q0, s0 = time.perf_counter(), _sync_cpu()
                out = loop.run_until_complete(dispatcher.handle(frame))
                into.append((time.perf_counter() - q0) * 1000)
                s1 = _sync_cpu()
                r1 = _sched()
                scheds.append((r1[0] - r0[0], r1[1] - r0[1], r1[2] - r0[2]))
                intruded.append(((s1[0] - s0[0]) * 1000, (s1[1] - s0[1]) * 1000))
                assert out is not None and b'"error"' not in out[:40], out[:200]

            for i in range(20):  # warm every thread and cache, as the bench's daemon is
                recall(-1 - i, [])
            done = threading.Event()
            cpu0 = _thread_cpu()
            proc0 = time.process_time()
            if args.profile:
                main_prof.enable()
            t0 = time.perf_counter()
            membership.join(engine, p.HubJoinParams(space="big"))
            i = 0
            while not done.is_set():
                if args.recall:
                    recall(i, during)
                    i += 1
                time.sleep(RECALL_GAP)
                if rows.space_counts(engine.reader()).get("big", 0) >= args.n:
                    done.set()
            wall = time.perf_counter() - t0
            if args.profile:
                main_prof.disable()
            proc = time.process_time() - proc0
            cpu1 = _thread_cpu()
            overlap = intruded[20:]  # (the warm-up's are before the sync; idle's after)
            for j in range(len(during)):
                recall(i + j, idle)  # (a question asked again skips its embedding)
                time.sleep(RECALL_GAP)
            loop.close()
        status = membership.status(engine, p.HubStatusParams())
        replica_of(engine).stop()
        engine.close()
        print(
            f"synced {args.n:,} in {wall:.2f} s: {args.n / wall:,.0f} memories/s; "
            f"process CPU {proc / args.n * 1e3:.3f} ms a memory; load {os.getloadavg()[0]:.1f}; "
            f"refused {status.refused}, last error {status.last_error}"
        )
        print("CPU per synced memory, by thread (ms):")
        for name in sorted(cpu1, key=lambda t: cpu0.get(t, 0.0) - cpu1[t]):
            spent = cpu1[name] - cpu0.get(name, 0.0)
            if spent > 0:
                print(f"  {name:24s} {spent / args.n * 1e3:7.3f}")
        if during:
            print(
                f"recall during: {len(during)} p50 {pct(during, 50):.1f} p95 "
                f"{pct(during, 95):.1f} p99 {pct(during, 99):.1f} ms; idle p50 "
                f"{pct(idle, 50):.1f} p95 {pct(idle, 95):.1f} p99 {pct(idle, 99):.1f} ms; "
                f"p99 ratio {pct(during, 99) / pct(idle, 99):.2f}"
            )
            print("where a recall's time goes (schedstat of its threads):")
            _breakdown("during", during, scheds[20 : 20 + len(during)])
            _breakdown("idle", idle, scheds[-len(idle) :])
            for what, spans in (("during the sync", overlap), ("idle", intruded[-len(idle) :])):
                hub, writer = [h for h, _ in spans], [w for _, w in spans]
                both = [h + w for h, w in spans]
                print(
                    f"worker and writer CPU during a recall {what}: mean "
                    f"{sum(both) / len(both):.2f} ms (worker {sum(hub) / len(hub):.2f}, writer "
                    f"{sum(writer) / len(writer):.2f}; the recall's own bookkeeping is the "
                    f"writer's), p99 {pct(both, 99):.1f} ms"
                )
        if args.profile:
            stats = thread_profiles.merged(main_prof)
            stats.dump_stats(str(args.profile))
            stats.sort_stats("tottime").print_stats(45)
    finally:
        cluster.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

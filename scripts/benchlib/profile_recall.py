"""The daemon's CPU per recall, profiled in-process below the socket (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.profile_recall [--n 10000] [--calls 500]
    ... --frozen-at 2026-11-20T00:00:00Z --dump a.json   # then diff two trees' dumps
    ... --scifact          # the bench's SciFact store (1d), asked its claims without a cwd
    ... --clocked          # no profiler: each part on its thread's CPU clock (clocked.py)

Builds (or reuses) the bench's cached store of n memories (benchlib/store.py, all real
embeddings for n <= 10k), opens an Engine on a copy, and sends `calls` distinct recall
frames through the server's own Dispatcher (decode -> request pool -> verb -> encode),
as the socket would hand them over. Reports time.process_time per recall (every thread:
the request pool, the embedding workers, the writer) and a cProfile of every thread,
merged, each on its thread's CPU clock (waiting counts nothing, so the shares hold under
load; every profile includes the 20 warm-up recalls), then one recall's breakdown by
part (PARTS). Bookkeeping is flushed inside the measured span, as the daemon's flusher
would.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

# One recall's parts (ARCHITECTURE.md, "Where a recall's CPU goes"): each the CPU of
# these functions (file suffix, function name; "cum" with what they call, "tot" their own)
# in the merged profile, so a part is the same code before and after a change. "The
# rest" is what no part names: the hops between the loop and the threads, the loop itself.
PARTS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("decode", [("server/dispatch.py", "handle", "tot"), ("~", "<method 'decode' of", "cum")]),
    (
        "filter (cwd's project, view)",
        [("service/memory/recall.py", "_filter", "cum"), ("core/identity.py", "follow", "cum")],
    ),
    ("embed (batcher worker)", [("embedder/batcher.py", "_work", "cum")]),
    ("keywords (FTS5)", [("index/keywords.py", "search", "cum")]),
    (
        # the index's search, whether a filter restricts it (_nearest: a cwd's view) or not
        # (SciFact's claims, asked without a cwd)
        "KNN",
        [
            ("index/entry_index.py", "search", "cum"),
            ("service/memory/recall.py", "_nearest", "tot"),
            ("service/memory/recall.py", "_index_mask", "cum"),
            ("service/memory/recall.py", "_holding", "cum"),
        ],
    ),
    ("keyword hits' similarity", [("index/entry_index.py", "similarity", "cum")]),
    (
        "rows + candidates",
        [("store/entries.py", "by_rids", "cum"), ("recall.py", "_candidates", "cum")],
    ),
    ("scoring", [("service/rules/ranking.py", "rank", "cum")]),
    ("result building", [("service/rules/ranking.py", "_hit", "cum")]),
    ("validity", [("service/memory/validity.py", "annotate", "cum")]),
    ("sources", [("service/files/sources.py", "annotate", "cum")]),
    (
        "bookkeeping (_used + flush)",
        [
            ("recall.py", "_used", "cum"),
            ("engine.py", "flush_bookkeeping", "cum"),
            # the writer's threads: the only writes a recall makes are its bookkeeping's
            ("store/writer.py", "_run", "cum"),
            ("store/writer.py", "_checkpoint_forever", "cum"),
        ],
    ),
    ("encode", [("server/dispatch.py", "result_frame", "cum")]),
]


def breakdown(stats: pstats.Stats, calls: int) -> None:
    """Per recall, each part's CPU and its share of the profiled whole."""
    table: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in table.values())

    def cpu(names: list[tuple[str, str, str]]) -> float:
        return sum(
            v[3 if how == "cum" else 2]
            for (file, _, func), v in table.items()
            for suffix, name, how in names
            if file.endswith(suffix) and (func == name or (file == "~" and func.startswith(name)))
        )

    got = {label: cpu(names) for label, names in PARTS}
    # rank's cumulative time holds the hits it builds: scoring is the rest of it
    got["scoring"] -= got["result building"]
    got["the rest (hops, loop, queues)"] = total - sum(got.values())
    for label, t in got.items():
        print(f"  {label:32s} {t / calls * 1e3:6.2f} ms  {t / total:6.1%}")
    print(f"  {'total profiled':32s} {total / calls * 1e3:6.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument(
        "--scifact",
        action="store_true",
        help="the bench's SciFact store (1d: benchlib/imported.py's cache) asked SciFact's "
        "claims without a cwd, as s_scifact.py asks them (--n ignored; --calls at most 300)",
    )
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    ap.add_argument("--out", type=Path, default=None, help="write the pstats dump here")
    ap.add_argument("--no-profile", action="store_true", help="process_time only")
    ap.add_argument(
        "--clocked",
        action="store_true",
        help="no profiler: each part's thread CPU (benchlib/clocked.py), after the warm-up",
    )
    ap.add_argument(
        "--dump", type=Path, default=None, help="write every answer here (to diff two trees')"
    )
    ap.add_argument(
        "--asked-at",
        default=None,
        help="ask every recall at this moment: recency and freshness no longer follow the "
        "clock, so two trees' --dump compare exactly (bookkeeping is then skipped)",
    )
    ap.add_argument(
        "--frozen-at",
        default=None,
        help="the engine's clock stands still at this moment: as --asked-at, two trees' "
        "--dump compare exactly, but the recalls take the daemon's own path (asked_at adds "
        "a created_before clause that no daemon request has) and keep their bookkeeping",
    )
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib import clocked, corpus, thread_profiles
    from benchlib.store import Engine as BenchEngine
    from benchlib.store import cached_store, install, make_corpus
    from benchlib.vocab import PROJECTS

    log = print
    bench = BenchEngine.load()
    queries = corpus.questions(args.calls + 20, seed=args.n + 7)
    cwd: dict[str, str] = {"cwd": PROJECTS[0]}
    if args.scifact:
        store, queries, cwd = _scifact(args.cache, args.calls)
        args.calls = len(queries) - 20
    else:
        c = make_corpus(bench, min(args.n, 10_000), args.cache, log)
        store, _ = cached_store(bench, c, args.n, args.cache, log)

    from benchlib import in_process
    from enyal_daemon.server.dispatch import Dispatcher
    from enyal_daemon.service.core.engine import Engine

    home = Path(tempfile.mkdtemp(prefix="enyal-profile-"))
    install(store, home)
    profile = not args.no_profile and not args.clocked
    if profile:
        thread_profiles.start()
    if args.clocked:
        clocked.install()
    from enyal_daemon.service.rules.clock import SYSTEM, SetClock, parse_iso

    clock = SYSTEM if args.frozen_at is None else SetClock(parse_iso(args.frozen_at))
    engine = Engine(home / "enyal.db", bench.embedder, clock=clock)
    engine.embed("warm up")
    handlers = in_process.handlers(engine)
    pinned = {} if args.asked_at is None else {"asked_at": args.asked_at}
    frames = in_process.recall_frames(queries, {**cwd, **pinned})
    workers = (os.cpu_count() or 2) + 2  # as server/daemon.py sizes its request pool

    answers: list[bytes] = []

    async def serve(batch: list[bytes]) -> None:
        for frame in batch:
            out = await dispatcher.handle(frame)
            assert out is not None and b'"error"' not in out[:40], out[:200]
            answers.append(out)

    with ThreadPoolExecutor(workers, thread_name_prefix="enyal-req") as pool:
        dispatcher = Dispatcher(handlers, pool, engine.db_path)
        main_prof = cProfile.Profile(time.thread_time)
        if profile:  # the warm-up too, as the threads' profiles hold it
            main_prof.enable()
        asyncio.run(serve(frames[:20]))  # warm every thread and cache
        engine.flush_bookkeeping()
        clocked.reset()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        asyncio.run(serve(frames[20:]))
        engine.flush_bookkeeping()
        cpu = time.process_time() - cpu0
        wall = time.perf_counter() - wall0
        if profile:
            main_prof.disable()
    engine.close()
    shutil.rmtree(home, ignore_errors=True)
    if args.dump:  # ids and scores in order: what a change "without changing results" keeps
        ranked = [
            [(h["id"], round(h["score"], 9)) for h in msgspec.json.decode(a)["result"]["results"]]
            for a in answers
        ]
        args.dump.write_bytes(msgspec.json.encode(ranked))
    where = "SciFact" if args.scifact else f"{args.n:,}"
    print(
        f"{args.calls} recalls at {where}: {cpu / args.calls * 1e3:.2f} ms CPU per recall "
        f"(process_time, all threads), {wall / args.calls * 1e3:.2f} ms wall"
    )
    if args.clocked:
        clocked.report(args.calls)
    if profile:
        stats = thread_profiles.merged(main_prof)
        if args.out:
            stats.dump_stats(str(args.out))
        stats.sort_stats("tottime").print_stats(40)
        breakdown(stats, args.calls + 20)  # the workers' profiles include the warm-up


def _scifact(cache: Path, calls: int) -> tuple[Path, list[str], dict[str, str]]:
    """The store, 20 warm-up questions then the claims, and no cwd: s_scifact.py's recalls."""
    from benchlib import corpus
    from benchlib.s_scifact import WARMUP, store_and_claims

    store, claims, _, _ = store_and_claims(cache, calls)
    return store, corpus.questions(WARMUP, seed=5_183) + claims, {}


if __name__ == "__main__":
    main()

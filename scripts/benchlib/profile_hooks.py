"""Where one hook event's time goes in the daemon (issue 29), profiled in-process.

    cd scripts && ../.venv/bin/python -m benchlib.profile_hooks [--calls 60] [--top 25]

Opens an Engine on a copy of the quick bench's 10k store (benchlib/store.py) and answers
each event of s_hookpaths.py with its inputs (a fresh session and text each call) through
the hook endpoint's own Caller (server/hook_http.py's InProcess: every daemon method a
frame through the Dispatcher, run on the calling thread), which is what the MCP and HTTP
paths cost minus their transport. Reports per event: wall p50, each daemon method's p50
and count, the CPU of the calling thread and of the process (all threads: the embedding
workers, the writer), each part's wall time and its thread's CPU (a wall far above the
CPU is the thread waiting for a core: on a loaded machine a search of 1 ms of CPU often
spans a wait), and, with --top, the calling thread's cProfile on its CPU clock.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=60)
    ap.add_argument("--top", type=int, default=0, help="print the top N functions per event")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    ap.add_argument("--only", default="", help="comma-separated events")
    ap.add_argument("--size", type=int, default=0, help="the full bench's store of this size")
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib.s_hookpaths import EVENTS, _input
    from benchlib.store import Engine as BenchEngine
    from benchlib.store import cached_store, install, make_corpus, quick_store

    bench = BenchEngine.load()
    if args.size:
        from benchlib.config import FULL

        full = make_corpus(bench, FULL.base_texts, args.cache, print)
        store, _ = cached_store(bench, full, args.size, args.cache, print)
    else:
        store = quick_store(10_000, args.cache, print)

    from benchlib import in_process
    from enyal_daemon.server.dispatch import Dispatcher
    from enyal_daemon.server.hook_http import InProcess
    from enyal_daemon.service.core.engine import Engine
    from enyal_protocol.hooks.answer import answer

    home = Path(tempfile.mkdtemp(prefix="enyal-profhooks-"))
    install(store, home)
    os.environ["ENYAL_HOME"] = str(home)  # config.current() reads the home's config.toml
    engine = Engine(home / "enyal.db", bench.embedder)
    engine.embed("warm up")
    handlers = in_process.handlers(engine)
    only = set(filter(None, args.only.split(",")))

    class Timed:
        def __init__(self, inner: Any) -> None:
            self.inner = inner
            self.times: dict[str, list[float]] = defaultdict(list)

        def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            t0 = time.perf_counter()
            try:
                out: dict[str, Any] = self.inner.call(method, params)
                return out
            finally:
                self.times[method].append((time.perf_counter() - t0) * 1e3)

    spans: dict[str, list[float]] = defaultdict(list)
    span_cpu: dict[str, list[float]] = defaultdict(list)

    def timed(owner: Any, attr: str, label: str) -> None:
        inner = getattr(owner, attr)

        def wrapper(*a: Any, **k: Any) -> Any:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return inner(*a, **k)
            finally:
                spans[label].append((time.perf_counter() - t0) * 1e3)
                span_cpu[label].append((time.thread_time() - c0) * 1e3)

        setattr(owner, attr, wrapper)

    from concurrent.futures import Future

    from enyal_daemon.index import entry_index, keywords
    from enyal_daemon.service.core import identity
    from enyal_daemon.service.memory import recall, validity
    from enyal_daemon.service.session import brief
    from enyal_daemon.store import entries
    from enyal_protocol import config

    timed(config, "current", "config.current")
    timed(identity, "follow", "identity.follow (cwd's project)")
    timed(keywords.Remembered, "search", "keywords (FTS5)")
    timed(Future, "result", "waiting on the query's vector")
    timed(entry_index.EntryIndex, "search", "KNN")
    timed(entry_index.EntryIndex, "similarity", "keyword hits' similarity")
    timed(entries, "by_rids", "rows")
    timed(recall, "rank", "rank")
    timed(validity, "annotate", "validity")
    timed(recall, "_pack", "budget pack")
    timed(recall, "_used", "bookkeeping (_used)")
    timed(recall, "shown_to", "shown_to (session)")
    for f in ("_tasks", "_knowledge", "_changed", "_review", "_log", "_pack", "_record"):
        timed(brief, f, f"brief.{f}")
    calls = iter(range(1_000_000))
    with ThreadPoolExecutor(4, thread_name_prefix="enyal-req") as pool:
        dispatcher = Dispatcher(handlers, pool, engine.db_path)
        for name, verb in EVENTS.items():
            if only and name not in only:
                continue
            caller = Timed(InProcess(dispatcher))
            for _ in range(5):  # warm-up
                answer(caller, verb, _input(name, next(calls), "warm"))
            engine.flush_bookkeeping()
            caller.times.clear()
            walls, thread_cpu = [], []
            prof = cProfile.Profile(time.thread_time)
            cpu0 = time.process_time()
            for _ in range(args.calls):
                data = _input(name, next(calls))
                c0, t0 = time.thread_time(), time.perf_counter()
                if args.top:
                    prof.enable()
                answer(caller, verb, data)
                if args.top:
                    prof.disable()
                walls.append((time.perf_counter() - t0) * 1e3)
                thread_cpu.append((time.thread_time() - c0) * 1e3)
            engine.flush_bookkeeping()
            cpu = (time.process_time() - cpu0) / args.calls * 1e3
            methods = ", ".join(
                f"{m} x{len(ts) / args.calls:g} p50 {statistics.median(ts):.2f}"
                for m, ts in caller.times.items()
            )
            print(
                f"{name}: wall p50 {statistics.median(walls):.2f} ms; calling thread CPU p50 "
                f"{statistics.median(thread_cpu):.2f} ms; process CPU/event {cpu:.2f} ms; "
                f"{methods or 'no daemon call'}"
            )
            for part, ts in sorted(spans.items(), key=lambda kv: -sum(kv[1])):
                print(
                    f"    {part:40s} {sum(ts) / args.calls:6.2f} ms/event "
                    f"(x{len(ts) / args.calls:g}), its thread's CPU "
                    f"{sum(span_cpu[part]) / args.calls:6.2f}"
                )
            spans.clear()
            span_cpu.clear()
            if args.top:
                pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)
    engine.close()
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

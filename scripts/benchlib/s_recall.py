"""1. Warm recall through the socket, query embedding included, at each store size."""

from __future__ import annotations

import time

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.procs import Daemon
from benchlib.report import Row, Target, size
from benchlib.stats import Runs, pct

TARGET_P99_MS = {10_000: 15.0, 100_000: 25.0, 1_000_000: 120.0}
PROJECT = corpus.PROJECTS[0]


def run(ctx: Ctx, daemon: Daemon, n: int) -> int:
    """Returns how many recalls the daemon served (for the RSS reading after them)."""
    cfg = ctx.cfg
    total = cfg.warmup + cfg.recall_runs * cfg.recall_queries
    qs = corpus.questions(total + cfg.recall_queries, seed=n)
    conn = daemon.connect()
    served = 0
    try:
        for q in qs[: cfg.warmup]:
            conn.call_raw("recall", {"query": q, "cwd": PROJECT})
            served += 1
        p50, p99, tput = Runs(), Runs(), Runs()
        for r in range(cfg.recall_runs):
            start = cfg.warmup + r * cfg.recall_queries
            lat = []
            t_run = time.perf_counter()
            for q in qs[start : start + cfg.recall_queries]:
                t0 = time.perf_counter()
                conn.call_raw("recall", {"query": q, "cwd": PROJECT})
                lat.append((time.perf_counter() - t0) * 1e3)
            tput.add(len(lat) / (time.perf_counter() - t_run))
            p50.add(pct(lat, 50))
            p99.add(pct(lat, 99))
            served += len(lat)
        scoped = Runs()
        lat = []
        for q in qs[total:]:
            t0 = time.perf_counter()
            conn.call_raw(
                "recall_by_scope",
                {"query": q, "file_path": f"{PROJECT}/handlers.py", "cwd": PROJECT},
            )
            lat.append((time.perf_counter() - t0) * 1e3)
        served += len(lat)
        scoped.add(pct(lat, 50))
        scoped_p99 = Runs([pct(lat, 99)])
    finally:
        conn.close()
    s = size(n)
    q = f"{cfg.recall_queries} queries/run"
    rep = ctx.report
    rep.add(Row("1", "recall via socket, p50", s, p50, "ms", note=q))
    target = TARGET_P99_MS.get(n)
    rep.add(
        Row("1", "recall via socket, p99", s, p99, "ms", Target("<=", target) if target else None)
    )
    rep.add(Row("1", "recall throughput, 1 client", s, tput, "/s"))
    rep.add(Row("1", "recall_by_scope (file→global), p50", s, scoped, "ms", note="1 run"))
    rep.add(Row("1", "recall_by_scope (file→global), p99", s, scoped_p99, "ms", note="1 run"))
    return served

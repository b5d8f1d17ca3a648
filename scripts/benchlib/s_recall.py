"""1. Warm recall through the socket, query embedding included, at each store size.

Every query is distinct (no path is warm for its text) and the p99 is taken over
all runs' samples pooled; each run's own p99 gives the min-max beside it."""

from __future__ import annotations

import time

from benchlib import corpus
from benchlib.config import Config, Ctx
from benchlib.procs import Daemon
from benchlib.report import Row, Target, size
from benchlib.stats import Pooled, Runs
from benchlib.vocab import PROJECTS

TARGET_P99_MS = {10_000: 10.0, 100_000: 15.0, 1_000_000: 50.0}  # issue 30 (issue 13: 12, 20, 60)
TARGET_CPU_MS = {10_000: 5.0}  # issue 30: the daemon's CPU a recall, its embedding included
PROJECT = PROJECTS[0]


def used(cfg: Config) -> int:
    """How many of corpus.questions(..., seed=n) this section takes; later sections take
    the ones after, so no query repeats at a size."""
    return cfg.warmup + cfg.recall_runs * cfg.recall_queries + cfg.recall_queries


def run(ctx: Ctx, daemon: Daemon, n: int) -> int:
    """Returns how many recalls the daemon served (for the RSS reading after them)."""
    cfg = ctx.cfg
    total = cfg.warmup + cfg.recall_runs * cfg.recall_queries
    qs = corpus.questions(used(cfg), seed=n)
    conn = daemon.connect()
    served = 0
    lat = Pooled()
    tput = Runs()
    cpu = Runs()  # the daemon's CPU ms a recall, each run: its background work included
    try:
        for q in qs[: cfg.warmup]:
            conn.call_raw("recall", {"query": q, "cwd": PROJECT})
            served += 1
        for r in range(cfg.recall_runs):
            start = cfg.warmup + r * cfg.recall_queries
            run_lat = []
            t_run = time.perf_counter()
            c_run = daemon.cpu()
            for q in qs[start : start + cfg.recall_queries]:
                t0 = time.perf_counter()
                conn.call_raw("recall", {"query": q, "cwd": PROJECT})
                run_lat.append((time.perf_counter() - t0) * 1e3)
            tput.add(len(run_lat) / (time.perf_counter() - t_run))
            cpu.add((daemon.cpu() - c_run) * 1e3 / len(run_lat))
            lat.add_run(run_lat)
            served += len(run_lat)
        scoped = Pooled()
        run_lat = []
        for q in qs[total:]:
            t0 = time.perf_counter()
            conn.call_raw(
                "recall_by_scope",
                {"query": q, "file_path": f"{PROJECT}/handlers.py", "cwd": PROJECT},
            )
            run_lat.append((time.perf_counter() - t0) * 1e3)
        scoped.add_run(run_lat)
        served += len(run_lat)
    finally:
        conn.close()
    s = size(n)
    note = f"{len(lat):,} distinct queries in {cfg.recall_runs} runs"
    rep = ctx.report
    rep.add(Row("1", "recall via socket, p50", s, lat.per_run(50), "ms", None, note, lat.pct(50)))
    target = TARGET_P99_MS.get(n)
    rep.add(
        Row(
            "1",
            "recall via socket, p99",
            s,
            lat.per_run(99),
            "ms",
            Target("<=", target) if target else None,
            "all samples pooled",
            lat.pct(99),
        )
    )
    rep.add(Row("1", "recall throughput, 1 client", s, tput, "/s"))
    cpu_target = TARGET_CPU_MS.get(n)
    rep.add(
        Row(
            "1",
            "daemon CPU per recall, 1 client",
            s,
            cpu,
            "ms",
            Target("<=", cpu_target) if cpu_target else None,
            "the daemon's user + system time over each run / its recalls (/proc, 10 ms ticks)",
        )
    )
    one = f"{len(scoped)} queries"
    rep.add(
        Row("1", "recall_by_scope (file→global), p50", s, Runs(), "ms", None, one, scoped.pct(50))
    )
    rep.add(
        Row("1", "recall_by_scope (file→global), p99", s, Runs(), "ms", None, one, scoped.pct(99))
    )
    return served

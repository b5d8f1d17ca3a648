"""5. Many agents: N processes doing 80% recall / 20% remember for a fixed time, through
the daemon (8 and 16 clients), and 8 per-client processes that each load the engine and
open the same database file. Rounds interleave: embedding bound, daemon-8,
per-client-8, daemon-16, ... p99s pool every round's samples.

Goals for 8 agents through the daemon: >= 70% of the embedding bound (embed_bound.py),
>= 1.2x the throughput of 8 per-client engines, a lower p99 and less CPU per op."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from benchlib import embed_bound
from benchlib.config import Ctx
from benchlib.procs import HERE, Daemon, env_for
from benchlib.report import Row, Target, size
from benchlib.stats import Pooled, Runs

WORKER = str(HERE / "agent_worker.py")
BOUND_SHARE = 0.70
PEER_SPEEDUP = 1.2


@dataclass
class Mix:
    ops: list[float] = field(default_factory=list)  # per round: completed ops / s
    lat: Pooled = field(default_factory=Pooled)  # ms, every op
    lat_recall: Pooled = field(default_factory=Pooled)
    lat_remember: Pooled = field(default_factory=Pooled)
    errors: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)  # total MB: daemon + clients
    startup: list[float] = field(default_factory=list)  # s until every agent was ready
    cpu_ms: list[float] = field(default_factory=list)  # CPU ms per op, daemon + clients
    cores: list[float] = field(default_factory=list)  # CPU s per s of round: how busy we kept it
    error_kinds: dict[str, int] = field(default_factory=dict)


def _round(ctx: Ctx, daemon: Daemon, mode: str, clients: int, mix: Mix) -> None:
    env = env_for(daemon.home)
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, WORKER, mode, str(ctx.cfg.agent_seconds), str(i)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=str(ctx.work),
        )
        for i in range(clients)
    ]
    results: list[dict[str, Any]] = []
    try:
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"{mode} agent did not start: {line!r}")
        mix.startup.append(time.perf_counter() - t0)
        daemon_cpu = daemon.cpu() if mode == "daemon" else 0.0
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        time.sleep(ctx.cfg.agent_seconds * 0.8)
        daemon_rss = daemon.rss()[0] if mode == "daemon" else 0.0
        for p in procs:
            assert p.stdout is not None
            results.append(json.loads(p.stdout.readline()))
        # the daemon's CPU over the round (+ the few ms each client took to report)
        daemon_cpu = daemon.cpu() - daemon_cpu if mode == "daemon" else 0.0
    finally:
        for p in procs:
            try:
                p.wait(120)
            except subprocess.TimeoutExpired:
                p.kill()
    lat_all: list[float] = []
    rec: list[float] = []
    rem: list[float] = []
    errors = 0
    for r in results:
        rec += r["lat"]["recall"]
        rem += r["lat"]["remember"]
        for kind, count in r["errors"].items():
            mix.error_kinds[kind] = mix.error_kinds.get(kind, 0) + count
            errors += count
    lat_all = [x * 1e3 for x in rec + rem]
    mix.ops.append(len(lat_all) / ctx.cfg.agent_seconds)
    mix.lat.add_run(lat_all)
    mix.lat_recall.add_run([x * 1e3 for x in rec])
    mix.lat_remember.add_run([x * 1e3 for x in rem])
    mix.errors.append(float(errors))
    mix.rss.append(daemon_rss + sum(r["rss_mb"] for r in results))
    cpu = daemon_cpu + sum(r["cpu_s"] for r in results)
    mix.cpu_ms.append(cpu * 1e3 / max(1, len(lat_all)))
    mix.cores.append(cpu / ctx.cfg.agent_seconds)


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    plan = [("daemon", 8), ("per-client", 8), ("daemon", 16)]
    mixes = {key: Mix() for key in plan}
    bound = Runs()
    sample = embed_bound.texts()
    for r in range(ctx.cfg.agent_rounds):
        ctx.log(f"agents: round {r + 1}, embedding bound")
        bound.add(embed_bound.measure(ctx.engine, ctx.cfg.bound_seconds, sample))
        for mode, clients in plan:
            ctx.log(f"agents: round {r + 1}, {mode} x{clients}")
            worker_mode = "daemon" if mode == "daemon" else "peer"
            _round(ctx, daemon, worker_mode, clients, mixes[(mode, clients)])
    s = size(n)
    rep = ctx.report
    secs = f"{ctx.cfg.agent_seconds:g} s × {ctx.cfg.agent_rounds} rounds"
    rep.add(
        Row(
            "5",
            "embedding bound: 2 threads embedding one text at a time",
            s,
            bound,
            "ops/s",
            note=f"{ctx.cfg.bound_seconds:g} s before each round; the agents' texts",
        )
    )
    for (mode, clients), m in mixes.items():
        _rows(
            ctx,
            s,
            f"{clients} agents, {'daemon' if mode == 'daemon' else 'per-client engines'}",
            mode,
            m,
            secs,
        )
    d8, p8 = mixes[("daemon", 8)], mixes[("per-client", 8)]
    rep.add(
        Row(
            "5",
            "8 agents, daemon: throughput / embedding bound",
            s,
            Runs([a / b for a, b in zip(d8.ops, bound.values, strict=True) if b]),
            "×",
            Target(">=", BOUND_SHARE),
            "per round",
        )
    )
    rep.add(
        Row(
            "5",
            "8 agents: throughput, daemon / per-client",
            s,
            Runs([a / b for a, b in zip(d8.ops, p8.ops, strict=True) if b]),
            "×",
            Target(">=", PEER_SPEEDUP),
            "per round",
        )
    )
    rep.add(
        Row(
            "5",
            "8 agents: p99, per-client / daemon",
            s,
            Runs(
                [
                    b / a
                    for a, b in zip(
                        d8.lat.per_run(99).values, p8.lat.per_run(99).values, strict=True
                    )
                    if a
                ]
            ),
            "×",
            Target(">=", 1.0),
            "> 1: the daemon's is lower; value from pooled p99s",
            p8.lat.pct(99) / d8.lat.pct(99),
        )
    )
    rep.add(
        Row(
            "5",
            "8 agents: CPU per op, per-client / daemon",
            s,
            Runs([b / a for a, b in zip(d8.cpu_ms, p8.cpu_ms, strict=True) if a]),
            "×",
            Target(">=", 1.0),
            "> 1: the daemon spends less",
        )
    )
    rep.add(
        Row(
            "5",
            "8 agents: RSS, per-client / daemon",
            s,
            Runs([b / a for a, b in zip(d8.rss, p8.rss, strict=True) if a]),
            "×",
            note="per round",
        )
    )


def _rows(ctx: Ctx, s: str, label: str, mode: str, m: Mix, secs: str) -> None:
    rep = ctx.report
    zero = Target("<=", 0.0)
    rep.add(Row("5", f"{label}: throughput", s, Runs(m.ops), "ops/s", note=secs))
    rep.add(Row("5", f"{label}: p99 (all ops)", s, m.lat.per_run(99), "ms", pooled=m.lat.pct(99)))
    rep.add(
        Row(
            "5",
            f"{label}: p99 recall",
            s,
            m.lat_recall.per_run(99),
            "ms",
            note=f"remember p99 {m.lat_remember.pct(99):.0f} ms",
            pooled=m.lat_recall.pct(99),
        )
    )
    rep.add(Row("5", f"{label}: errors", s, Runs(m.errors), "", zero if mode == "daemon" else None))
    rep.add(
        Row(
            "5",
            f"{label}: CPU per op",
            s,
            Runs(m.cpu_ms),
            "ms",
            note="CPU time of every process involved / completed ops",
        )
    )
    # below the 2 cores with throughput short of the bound: the ops wait on something
    # other than the CPU (a lock, the writer, the GIL), not on the embedding
    rep.add(
        Row(
            "5",
            f"{label}: cores busy",
            s,
            Runs(m.cores),
            "",
            note="CPU s of every process involved per s of round",
        )
    )
    rep.add(
        Row(
            "5",
            f"{label}: total RSS",
            s,
            Runs(m.rss),
            "MB",
            note="daemon + clients" if mode == "daemon" else "sum of processes",
        )
    )
    if mode != "daemon":
        rep.add(Row("5", f"{label}: start-up until all ready", s, Runs(m.startup), "s"))
    if m.error_kinds:
        rep.extra.setdefault("agent_errors", {})[label] = m.error_kinds

"""4. remember through the socket (one durable group commit each), alone and while another
client recalls back to back: each run times a batch alone, then a batch under recall
load, so both see the same minute of the shared machine. p99s pool every run."""

from __future__ import annotations

import time

from benchlib import corpus
from benchlib.background import RecallLoad
from benchlib.config import Ctx
from benchlib.procs import Daemon
from benchlib.report import Row, Target, size
from benchlib.stats import Pooled
from benchlib.vocab import PROJECTS
from enyal_client.transport import Connection

PROJECT = PROJECTS[1]
TARGET_AT = 100_000
TARGET_P99_MS = 20.0


def _batch(conn: Connection, texts: list[str]) -> list[float]:
    lat = []
    for t in texts:
        t0 = time.perf_counter()
        conn.call_raw("remember", {"content": t, "cwd": PROJECT})
        lat.append((time.perf_counter() - t0) * 1e3)
    return lat


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    cfg = ctx.cfg
    per = cfg.remember_per_run
    count = 2 * cfg.remember_runs * per + 5
    # the suffix makes every text new, so each remember stores (none is a dedup hit)
    texts = [f"{t} (bench note {i})" for i, (_, t) in enumerate(corpus.base_texts(count, 4242))]
    load_queries = corpus.questions(500, seed=n + 1)
    alone, loaded = Pooled(), Pooled()
    served = 0
    conn = daemon.connect()
    try:
        _batch(conn, texts[:5])  # warm-up
        for r in range(cfg.remember_runs):
            base = 5 + 2 * r * per
            alone.add_run(_batch(conn, texts[base : base + per]))
            with RecallLoad(daemon, load_queries, PROJECT) as load:
                while load.served == 0 and load.error is None:
                    time.sleep(0.005)  # the recalls are under way before the clock starts
                loaded.add_run(_batch(conn, texts[base + per : base + 2 * per]))
            served += load.served
    finally:
        conn.close()
    s = size(n)
    rep = ctx.report
    target = Target("<=", TARGET_P99_MS) if n == TARGET_AT else None
    note = f"{len(alone)} writes in {cfg.remember_runs} runs, sequential, 1 client"
    rep.add(Row("4", "remember alone, p50", s, alone.per_run(50), "ms", None, note, alone.pct(50)))
    rep.add(Row("4", "remember alone, p99", s, alone.per_run(99), "ms", None, "", alone.pct(99)))
    under = f"another client recalling back to back ({served:,} recalls)"
    rep.add(
        Row(
            "4",
            "remember under recall, p50",
            s,
            loaded.per_run(50),
            "ms",
            None,
            under,
            loaded.pct(50),
        )
    )
    rep.add(
        Row(
            "4",
            "remember under recall, p99",
            s,
            loaded.per_run(99),
            "ms",
            target,
            "the goal: all samples pooled",
            loaded.pct(99),
        )
    )

"""4. Writes: remember through the socket (one durable group commit each), and `enyal import`
of a JSONL file, process start to exit."""

from __future__ import annotations

import json
import subprocess
import time

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.procs import BIN, Daemon, env_for
from benchlib.report import Row, Target, size
from benchlib.stats import Runs, pct

PROJECT = corpus.PROJECTS[1]


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    cfg = ctx.cfg
    rep = ctx.report
    s = size(n)
    texts = [t for _, t in corpus.base_texts(cfg.remember_runs * cfg.remember_per_run + 10, 4242)]
    conn = daemon.connect()
    p50, p99 = Runs(), Runs()
    try:
        for t in texts[:5]:  # warm-up
            conn.call_raw("remember", {"content": t + " (warm-up)", "cwd": PROJECT})
        for r in range(cfg.remember_runs):
            lat = []
            for t in texts[10 + r * cfg.remember_per_run : 10 + (r + 1) * cfg.remember_per_run]:
                t0 = time.perf_counter()
                conn.call_raw("remember", {"content": t, "cwd": PROJECT})
                lat.append((time.perf_counter() - t0) * 1e3)
            p50.add(pct(lat, 50))
            p99.add(pct(lat, 99))
    finally:
        conn.close()
    note = f"{cfg.remember_per_run}/run, sequential, 1 client"
    rep.add(Row("4", "remember p50", s, p50, "ms", note=note))
    rep.add(Row("4", "remember p99", s, p99, "ms", Target("<=", 20.0)))

    env = env_for(daemon.home)
    rate = Runs()
    for r in range(cfg.import_runs):
        path = ctx.work / f"import-{r}.jsonl"
        lines = corpus.base_texts(cfg.import_lines, seed=9000 + r)
        with path.open("w") as f:
            for i, (ctype, text) in enumerate(lines):
                body = f"{text} (imported {r}-{i})"  # unique: every line is stored
                f.write(json.dumps({"content": body, "content_type": ctype}) + "\n")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [str(BIN / "enyal"), "import", str(path), "--json"],
            env=env,
            capture_output=True,
            text=True,
        )
        dt = time.perf_counter() - t0
        if proc.returncode != 0:
            ctx.report.notes.append(f"enyal import failed: {proc.stderr[-300:]}")
            continue
        stored = json.loads(proc.stdout).get("stored", len(lines))
        rate.add(stored / dt)
    rss, hwm = daemon.rss()
    rep.add(
        Row(
            "6",
            f"daemon RSS after importing {cfg.import_runs * cfg.import_lines:,} more",
            s,
            Runs([rss]),
            "MB",
            note=f"peak {hwm:.0f} MB; short texts (16 words on average)",
        )
    )
    rep.add(
        Row(
            "4",
            "`enyal import` throughput",
            s,
            rate,
            "/s",
            Target(">=", 250.0),
            f"{cfg.import_lines} memories/run, {ctx.report.machine.get('cores')} cores",
        )
    )

"""3b. Context for agents (issue 11): the session brief and a budgeted recall through the
socket, and the Claude Code hook commands' wall time, process start to exit, warm daemon.

A hook runs in the client's path (SessionStart before the first prompt, UserPromptSubmit
before every one), so its wall is what a user waits: the goal is a p50 of 80 ms."""

from __future__ import annotations

import json
import subprocess
import time

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.procs import Daemon, env_for
from benchlib.report import Row, Target, size
from benchlib.stats import Pooled
from benchlib.vocab import PROJECTS

HOOK_P50_TARGET_MS = 80.0
PROJECT = PROJECTS[0]


def _hook_wall(ctx: Ctx, event: str, data: dict[str, str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(ctx.client_bin / "enyal"), "hook", event],
        input=json.dumps(data).encode(),
        env=env,
        capture_output=True,
    )
    dt = (time.perf_counter() - t0) * 1e3
    if proc.returncode != 0:
        raise RuntimeError(f"enyal hook {event} exited {proc.returncode}: {proc.stderr[-300:]!r}")
    json.loads(proc.stdout)  # what the client reads must be JSON
    return dt


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    cfg = ctx.cfg
    reps = cfg.cli_reps
    qs = corpus.questions(2 * reps + 2, seed=n + 77)
    s = size(n)
    rep = ctx.report
    conn = daemon.connect()
    brief, budgeted = Pooled(), Pooled()
    try:
        conn.call_raw("brief", {"cwd": PROJECT, "record": False})  # warm-up
        lat = []
        for _ in range(reps):
            t0 = time.perf_counter()
            conn.call_raw("brief", {"cwd": PROJECT, "record": False})
            lat.append((time.perf_counter() - t0) * 1e3)
        brief.add_run(lat)
        lat = []
        for q in qs[:reps]:
            t0 = time.perf_counter()
            conn.call_raw("recall", {"query": q, "cwd": PROJECT, "budget_tokens": 600})
            lat.append((time.perf_counter() - t0) * 1e3)
        budgeted.add_run(lat)
    finally:
        conn.close()
    for name, pooled in (("brief (1,500 tokens)", brief), ("recall, budget_tokens 600", budgeted)):
        for q in (50, 99):
            rep.add(
                Row(
                    "3b",
                    f"{name} via socket, p{q}",
                    s,
                    pooled.per_run(q),
                    "ms",
                    None,
                    f"{len(pooled)} calls",
                    pooled.pct(q),
                )
            )

    env = env_for(daemon.home)
    walls: dict[str, list[float]] = {"session-start": [], "prompt-submit": []}
    _hook_wall(ctx, "session-start", {"cwd": PROJECT}, env)  # warm-up: bytecode, page cache
    _hook_wall(ctx, "prompt-submit", {"cwd": PROJECT, "prompt": qs[-1]}, env)
    for i in range(reps):  # interleaved, so load drifts hit both alike
        walls["session-start"].append(_hook_wall(ctx, "session-start", {"cwd": PROJECT}, env))
        prompt = {"cwd": PROJECT, "prompt": qs[reps + i]}
        walls["prompt-submit"].append(_hook_wall(ctx, "prompt-submit", prompt, env))
    for event, wall in walls.items():
        pooled = Pooled()
        pooled.add_run(wall)
        note = f"{reps} runs, stdin JSON in, hook JSON out"
        rep.add(
            Row(
                "3b",
                f"`enyal hook {event}` wall, p50",
                s,
                pooled.per_run(50),
                "ms",
                Target("<=", HOOK_P50_TARGET_MS),
                note,
                pooled.pct(50),
            )
        )
        rep.add(
            Row(
                "3b",
                f"`enyal hook {event}` wall, p99",
                s,
                pooled.per_run(99),
                "ms",
                None,
                "",
                pooled.pct(99),
            )
        )

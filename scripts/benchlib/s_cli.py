"""3. `enyal recall`, process start to exit, with Python's own start-up beside it and the
per-client alternative (a CLI that loads the engine itself), interleaved. The goal:
the p50 wall within 3x a bare `python -c pass` timed in the same loop (issue 30)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.procs import HERE, Daemon, env_for
from benchlib.report import Row, Target, size
from benchlib.stats import Runs, pct

CLI_TARGET_RATIO = 3.0


def _wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = (time.perf_counter() - t0) * 1e3
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} exited {proc.returncode}: {proc.stderr[-300:]!r}")
    return dt


LEAN_MODULE = "enyal_client.commands.lean_recall"
LEAN = f"python -c 'import {LEAN_MODULE}'"


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    cfg = ctx.cfg
    env = env_for(daemon.home)
    # Every recall timed asks a query of its own: the daemon remembers a query's vector
    # (embedder/memo.py), and a per-client engine starts without one.
    qs = corpus.questions(cfg.cli_reps + 2 + cfg.peer_cli_reps, seed=55)
    py = str(ctx.client_bin / "python")
    enyal = str(ctx.client_bin / "enyal")
    commands: dict[str, Callable[[str], list[str]]] = {
        "enyal recall": lambda q: [enyal, "recall", q],
        "python -c pass": lambda q: [py, "-c", "pass"],
        "python -c 'import enyal_client.cli'": lambda q: [py, "-c", "import enyal_client.cli"],
        # What a plain `enyal recall` imports now (commands/lean_recall.py, no msgspec).
        LEAN: lambda q: [py, "-c", f"import {LEAN_MODULE}"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up
        _wall(argv(qs[0]), env)
    for i in range(cfg.cli_reps):
        for name, argv in commands.items():
            times[name].append(_wall(argv(qs[i + 1]), env))
    peer: list[float] = []
    ours: list[float] = []
    for i in range(cfg.peer_cli_reps):  # interleaved with enyal recall of the same query
        q = qs[cfg.cli_reps + 2 + i]
        ours.append(_wall([enyal, "recall", q], env))
        peer.append(_wall([sys.executable, str(HERE / "peer_mcp.py"), "--once", q], env))
    s = size(n)
    rep = ctx.report
    note = f"{cfg.cli_reps} runs each, interleaved"
    wall = times["enyal recall"]
    bare = times["python -c pass"]
    rep.add(Row("3", "`enyal recall` wall, p50", s, Runs(wall), "ms", note=note))
    rep.add(Row("3", "`enyal recall` wall, p99", s, Runs(), "ms", pooled=pct(wall, 99)))
    rep.add(Row("3", "  floor: `python -c pass`, p50", s, Runs(bare), "ms"))
    # the goal is relative: Python's own start-up moves with the machine's load, and the
    # client's share of the wall is what the design controls
    rep.add(
        Row(
            "3",
            "`enyal recall` p50 / `python -c pass` p50",
            s,
            Runs([a / b for a, b in zip(wall, bare, strict=True) if b]),
            "×",
            Target("<=", CLI_TARGET_RATIO),
            f"per pair min-max; value {pct(wall, 50):.1f} / {pct(bare, 50):.1f} ms",
            pct(wall, 50) / pct(bare, 50),
        )
    )
    imp = times["python -c 'import enyal_client.cli'"]
    rep.add(Row("3", "  floor: `python -c 'import enyal_client.cli'`", s, Runs(imp), "ms"))
    rep.add(Row("3", f"  floor: `{LEAN}`", s, Runs(times[LEAN]), "ms"))
    rep.add(
        Row(
            "3",
            "per-client CLI (engine in-process) wall",
            s,
            Runs(peer),
            "ms",
            note=f"{len(peer)} runs",
        )
    )
    rep.add(
        Row(
            "3",
            "CLI speed-up (per-client / enyal)",
            s,
            Runs([b / a for a, b in zip(ours, peer, strict=True)]),
            "×",
            note="per interleaved pair",
        )
    )

"""Daemons of several trees at once, asked the same recalls in turn (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.side_by_side \\
        --tree main=/work/main --tree this=/work/wt-x [--calls 600] [--n 10000]

On the shared machine the daemon's CPU a recall moves with the load from one minute to
the next by more than a change is worth (docs/ARCHITECTURE.md, "Where a recall's CPU
goes", round sixteen), so two trees run one after the other compare their minutes as
much as their code. Here each tree's daemon (`python -m enyal_daemon` with that tree's
daemon/ and client/ first on the path) serves a copy of the quick bench's store at the
same time, and one client asks each the same distinct question in turn, as
s_recall.py asks (one connection each, the bench's cwd), the order reversed every other
question: every daemon answers under the same load, one at a time. Each one's CPU a
recall (utime + stime over the run, its background work included, as the bench's row),
its read system calls a recall (SQLite's pages read back from the OS), its latency from
outside and its RSS after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

WARMUP = 20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="name=path of a checkout")
    ap.add_argument("--n", type=int, default=10_000, help="memories in the store")
    ap.add_argument("--calls", type=int, default=600, help="recalls each daemon answers")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib import corpus
    from benchlib.procs import Daemon
    from benchlib.store import install, quick_store
    from benchlib.vocab import PROJECTS

    trees = dict(t.split("=", 1) for t in args.tree)
    store = quick_store(args.n, args.cache, print)
    qs = corpus.questions(WARMUP + args.calls, seed=args.n + 3)
    where = {"cwd": PROJECTS[0]}
    daemons: dict[str, Daemon] = {}
    homes: list[Path] = []
    try:
        for name, root in trees.items():
            home = Path(tempfile.mkdtemp(prefix=f"enyal-side-{name}-"))
            homes.append(home)
            install(store, home)
            src = Path(root).resolve()
            path = f"PYTHONPATH={src / 'daemon'}:{src / 'client'}"
            os.environ["ENYAL_BENCH_DAEMON"] = f"env {path} {sys.executable} -m enyal_daemon"
            daemons[name] = Daemon.start(home)
        conns = {name: d.connect() for name, d in daemons.items()}
        for q in qs[:WARMUP]:
            for conn in conns.values():
                conn.call_raw("recall", {"query": q, **where})
        lat: dict[str, list[float]] = {name: [] for name in daemons}
        load0 = os.getloadavg()[0]
        cpu0 = {name: d.cpu() for name, d in daemons.items()}
        reads0 = {name: d.read_calls() for name, d in daemons.items()}
        for i, q in enumerate(qs[WARMUP:]):
            order = list(daemons) if i % 2 == 0 else list(daemons)[::-1]
            for name in order:
                t0 = time.perf_counter()
                conns[name].call_raw("recall", {"query": q, **where})
                lat[name].append((time.perf_counter() - t0) * 1e3)
        load1 = os.getloadavg()[0]
        print(f"{args.calls} recalls each at {args.n:,}, load average {load0:.2f} -> {load1:.2f}")
        for name, d in daemons.items():
            cpu = (d.cpu() - cpu0[name]) / args.calls * 1e3
            reads = (d.read_calls() - reads0[name]) / args.calls
            ms = sorted(lat[name])
            p50, p90 = ms[len(ms) // 2], ms[int(len(ms) * 0.9)]
            print(
                f"  {name:10s} CPU {cpu:5.2f} ms a recall, {reads:6.1f} read calls, "
                f"p50 {p50:6.2f} p90 {p90:6.2f} ms, RSS {d.rss()[0]:.0f} MB"
            )
        for conn in conns.values():
            conn.close()
    finally:
        for d in daemons.values():
            d.stop()
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

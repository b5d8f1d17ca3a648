"""The daemon's own CPU per request under many agents, over the real socket (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.profile_daemon [--clients 8]
        [--seconds 10] [--recall-share 0.8] [--mode daemon|peer] [--profile out.prof]

The agents section of scripts/bench runs 2 s per round in --quick, which on this shared
2-vCPU machine is mostly noise. This runs the same agents (agent_worker.py) against the
quick bench's 10k store for longer and reports what the agents section cannot: the
daemon's own CPU (utime + stime of its process) per request answered, beside the
clients', latencies per kind, the load average before and after, and each of the
daemon's threads' time on a CPU and runnable but waiting for one, per request (the
kernel's schedstat; a thread is labelled by its id less the process's, as Python 3.11
names no OS thread: ARCHITECTURE.md "Round nine" says which is which). `--profile` runs
the daemon under cProfile, every thread on its own CPU clock (as profile_recall.py), and
writes the merged pstats there when it stops; the figures of a profiled run are for its
shares, not its speed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "agent_worker.py")


def _profiled_daemon(out: str) -> int:
    """`python -m enyal_daemon`, every thread under its own profiler, merged at exit."""
    import thread_profiles  # run as a file: its folder, benchlib, is on the path

    thread_profiles.start()
    from enyal_daemon.__main__ import main

    main_prof = cProfile.Profile(time.thread_time)
    main_prof.enable()
    try:
        return main([])
    finally:
        main_prof.disable()
        thread_profiles.merged(main_prof).dump_stats(out)


def _threads(pid: int) -> dict[str, list[int]]:
    """Per thread (by name and id less the process's): ns on a CPU, ns runnable but waiting
    for one, and how many threads. The kernel's own accounting (/proc/<pid>/task/*/
    schedstat): no profiler skews it, and a thread blocked on the interpreter lock is
    asleep in neither column, so running + waiting against the wall shows the lock."""
    out: dict[str, list[int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            run, wait, _ = (int(x) for x in (task / "schedstat").read_text().split())
        except (OSError, ValueError):
            continue  # the thread ended meanwhile
        # Python 3.11 names no OS thread: label by the order they were made (main first)
        name = f"{name} +{int(task.name) - pid}"
        acc = out.setdefault(name, [0, 0, 0])
        acc[0] += run
        acc[1] += wait
        acc[2] += 1
    return out


def _sched_report(before: dict[str, list[int]], after: dict[str, list[int]], ops: int) -> str:
    lines = ["  daemon threads (kernel schedstat, per op): running / runnable-waiting ms"]
    for name, (run, wait, n) in sorted(after.items(), key=lambda kv: -kv[1][0]):
        r0, w0, _ = before.get(name, [0, 0, 0])
        dr, dw = (run - r0) / 1e6 / max(ops, 1), (wait - w0) / 1e6 / max(ops, 1)
        if dr + dw >= 0.01:
            lines.append(f"    {name:<16} x{n:<2} {dr:6.2f} / {dw:6.2f}")
    return "\n".join(lines)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q / 100 * len(xs)))] * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", help=argparse.SUPPRESS)  # internal: be the profiled daemon
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--recall-share", type=float, default=0.8)
    ap.add_argument("--mode", choices=["daemon", "peer"], default="daemon")
    ap.add_argument("--profile", type=Path, help="profile the daemon; pstats written here")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    args = ap.parse_args()
    if args.daemon:
        sys.exit(_profiled_daemon(args.daemon))
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib.procs import Daemon, env_for
    from benchlib.store import install, quick_store

    store = quick_store(10_000, args.cache, print)
    home = Path(tempfile.mkdtemp(prefix="enyal-profd-"))
    install(store, home)
    if args.profile:
        here = str(HERE / "profile_daemon.py")
        os.environ["ENYAL_BENCH_DAEMON"] = (
            f"{sys.executable} {here} --daemon {args.profile.resolve()}"
        )
    daemon = Daemon.start(home)
    load0 = os.getloadavg()
    try:
        env = env_for(home)
        work = Path(tempfile.mkdtemp(prefix="enyal-agents-"))
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    WORKER,
                    args.mode,
                    str(args.seconds),
                    str(i),
                    str(args.recall_share),
                ],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=str(work),
            )
            for i in range(args.clients)
        ]
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"agent did not start: {line!r}")
        cpu0 = daemon.cpu()
        sched0 = _threads(daemon.pid)
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            assert p.stdout is not None
            results.append(json.loads(p.stdout.readline()))
        cpu = daemon.cpu() - cpu0
        sched1 = _threads(daemon.pid)
        for p in procs:
            p.wait(60)
        shutil.rmtree(work, ignore_errors=True)
    finally:
        load1 = os.getloadavg()
        daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    rec = [x for r in results for x in r["lat"]["recall"]]
    rem = [x for r in results for x in r["lat"]["remember"]]
    ops = len(rec) + len(rem)
    client_cpu = sum(r["cpu_s"] for r in results)
    errors = sum(sum(r["errors"].values()) for r in results)
    own = cpu if args.mode == "daemon" else 0.0
    print(
        f"{args.mode} x{args.clients}, {args.seconds:g} s, recall share {args.recall_share}: "
        f"{ops / args.seconds:.1f} ops/s ({len(rec)} recalls, {len(rem)} remembers, "
        f"{errors} errors)\n"
        f"  recall p50 {_pct(rec, 50):.1f} p99 {_pct(rec, 99):.1f} ms; "
        f"remember p50 {_pct(rem, 50):.1f} p99 {_pct(rem, 99):.1f} ms\n"
        f"  CPU per op: daemon {own / max(ops, 1) * 1e3:.2f} ms + clients "
        f"{client_cpu / max(ops, 1) * 1e3:.2f} ms = "
        f"{(own + client_cpu) / max(ops, 1) * 1e3:.2f} ms; cores busy "
        f"{(own + client_cpu) / args.seconds:.2f}\n"
        f"  load average {load0[0]:.2f} before, {load1[0]:.2f} after; "
        f"median client RSS {statistics.median(r['rss_mb'] for r in results):.0f} MB"
    )
    if args.mode == "daemon":
        print(_sched_report(sched0, sched1, ops))


if __name__ == "__main__":
    main()

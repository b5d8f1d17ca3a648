"""Where an import's time goes: `enyal import` of SciFact abstracts (or short lines) into a
fresh home, with the daemon's CPU per thread and, with --profile, its cProfile (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.profile_import [--lines 200]
        [--short] [--profile out.prof]

Prints the import's wall time and rate, the daemon's CPU over the import (utime + stime)
and each of its threads' share, by the thread's name. A profiled run's figures are for
its shares, not its speed (profile_daemon.py profiles the same way).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _threads(pid: int) -> dict[str, float]:
    """CPU seconds so far of each of the process's threads, summed by thread name."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def enyal_import(path: Path, home: Path) -> tuple[int, float, float]:
    """`enyal import PATH --json` into the daemon of `home`: how many it stored, and when
    the command started and ended (perf_counter's clock)."""
    from benchlib.procs import BIN, env_for

    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(BIN / "enyal"), "import", str(path), "--json"],
        env=env_for(home),
        capture_output=True,
        text=True,
        check=True,
    )
    return int(json.loads(proc.stdout)["stored"]), t0, time.perf_counter()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--short", action="store_true", help="short generated memories")
    ap.add_argument("--profile", type=Path, help="profile the daemon; pstats written here")
    args = ap.parse_args()

    from benchlib import corpus
    from benchlib.procs import Daemon
    from benchlib.s_import import _scifact, _write

    home = Path(tempfile.mkdtemp(prefix="enyal-profi-"))
    if args.profile:
        prof = str(HERE / "profile_daemon.py")
        os.environ["ENYAL_BENCH_DAEMON"] = f"{sys.executable} {prof} --daemon {args.profile}"
    if args.short:
        body = [
            {"content": f"{t} (imported {i})", "content_type": c}
            for i, (c, t) in enumerate(corpus.base_texts(args.lines, seed=9000))
        ]
    else:
        body = [{"content": t} for t in _scifact(args.lines)]
    path = home / "in.jsonl"
    _write(path, body)
    daemon = Daemon.start(home)
    try:
        before, cpu0 = _threads(daemon.pid), daemon.cpu()
        stored, t0, t1 = enyal_import(path, home)
        wall = t1 - t0
        cpu, after = daemon.cpu() - cpu0, _threads(daemon.pid)
        rss, hwm = daemon.rss()
    finally:
        daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"{stored} stored in {wall:.2f} s: {stored / wall:.1f}/s; daemon CPU {cpu:.2f} s "
        f"({cpu / max(stored, 1) * 1e3:.1f} ms a memory); RSS {rss:.0f} MB, peak {hwm:.0f}"
    )
    for name, sec in sorted(after.items(), key=lambda kv: -kv[1]):
        spent = sec - before.get(name, 0.0)
        if spent > 0:
            print(f"  {name:<16} {spent:6.2f} s  {spent / max(cpu, 1e-9):5.0%}")


if __name__ == "__main__":
    main()

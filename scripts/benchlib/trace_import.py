"""Where an import's two inference slots wait: `enyal import` of SciFact abstracts through a
daemon that records each model run (its thread, start, end, rows, width, thread CPU) and
each import request's span, then where the slots were free (issue 30; ARCHITECTURE.md,
"Where an import's time goes", import34).

    cd scripts && ../.venv/bin/python -m benchlib.trace_import [--lines 400]
        [--store path/to/store.db] [--dump trace.json]

Prints the rate, the daemon's CPU an abstract, each daemon thread's time on a CPU and
runnable but waiting for one (the kernel's schedstat; Python threads named for the run),
the runs (how many, how many of one or two texts, texts a run, their thread CPU), and the
slot-seconds free over the import: before the first request, between requests, each
request's head (to its first run) and tail (from its last), and between runs. On a loaded
machine every wall figure stretches with the load; the CPU figures hold better.
`--store` copies a store into the fresh home first (the bench's 100k one, for instance).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

SLOTS = 2  # the daemon's inference slots (engine.EMBED_CONCURRENCY)


def _traced_daemon(out: str) -> int:
    """`python -m enyal_daemon`, its runs and import requests recorded, dumped at exit."""
    import ctypes

    from enyal_daemon.embedder import onnx
    from enyal_daemon.service import verbs
    from enyal_daemon.service.upkeep import transfer

    libc = ctypes.CDLL(None)
    boot = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def named(self: threading.Thread) -> None:
        libc.prctl(15, self.name[:15].encode(), 0, 0, 0)  # PR_SET_NAME: schedstat's label
        boot(self)

    threading.Thread._bootstrap_inner = named  # type: ignore[attr-defined]
    runs: list[tuple[int, float, float, int, int, float]] = []
    requests: list[tuple[float, float]] = []
    hidden = onnx.Embedder._hidden

    def traced_hidden(self: Any, ids: Any, mask: Any) -> Any:
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return hidden(self, ids, mask)
        finally:
            span = (time.perf_counter(), time.thread_time() - c0)
            runs.append((threading.get_native_id(), t0, span[0], *ids.shape, span[1]))

    onnx.Embedder._hidden = traced_hidden  # type: ignore[method-assign]
    real = transfer.import_lines

    def traced_import(engine: Any, params: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(engine, params)
        finally:
            requests.append((t0, time.perf_counter()))

    for table in (v for v in vars(verbs).values() if isinstance(v, dict)):
        if table.get("import") is real:
            table["import"] = traced_import
    from enyal_daemon.__main__ import main

    try:
        return main([])
    finally:
        Path(out).write_text(json.dumps({"runs": runs, "requests": requests}))


def _free(runs: list[list[Any]], a: float, b: float) -> float:
    """Slot-seconds free in [a, b]."""
    edges = sorted([(r[1], 1) for r in runs] + [(r[2], -1) for r in runs])
    busy, last, free = 0, a, 0.0
    for t, step in edges:
        if t <= a:
            busy += step
            continue
        if t >= b:
            break
        free += (SLOTS - busy) * (t - last)
        last, busy = t, busy + step
    return free + (SLOTS - busy) * (b - last)


def _report(trace: dict[str, Any], t0: float, t1: float, stored: int) -> None:
    runs, requests = trace["runs"], sorted(trace["requests"])
    small = sum(1 for r in runs if r[3] <= 2)
    cpu = sum(r[5] for r in runs)
    print(
        f"  runs {len(runs)}, of 1-2 texts {small}, {sum(r[3] for r in runs) / len(runs):.2f} "
        f"texts a run; their thread CPU {cpu / stored * 1e3:.1f} ms an abstract"
    )
    wall = t1 - t0
    print(f"  slots free over the import: {_free(runs, t0, t1) / (SLOTS * wall):.1%}")
    print(f"    before the first request {_free(runs, t0, requests[0][0]):.2f} slot-s")
    between = sum(_free(runs, a[1], b[0]) for a, b in itertools.pairwise(requests))
    print(
        f"    between requests {between:.2f}, after the last {_free(runs, requests[-1][1], t1):.2f}"
    )
    heads = tails = mids = 0.0
    for a, b in requests:
        inside = [r for r in runs if a <= r[1] <= b]
        first, last = min(r[1] for r in inside), max(r[2] for r in inside)
        heads += _free(runs, a, first)
        tails += _free(runs, last, b)
        mids += _free(runs, first, last)
    print(f"    requests' heads {heads:.2f}, tails {tails:.2f}, between runs {mids:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=400)
    ap.add_argument("--store", type=Path, help="a store copied into the fresh home first")
    ap.add_argument("--dump", type=Path, help="the trace's JSON kept here")
    args = ap.parse_args()

    from benchlib.procs import Daemon
    from benchlib.profile_daemon import _threads
    from benchlib.profile_import import enyal_import
    from benchlib.s_import import _scifact, _write

    home = Path(tempfile.mkdtemp(prefix="enyal-trace-"))
    trace = home / "trace.json"
    os.environ["ENYAL_BENCH_DAEMON"] = f"{sys.executable} {__file__} --daemon {trace}"
    path = home / "in.jsonl"
    _write(path, [{"content": t} for t in _scifact(args.lines)])
    if args.store:
        shutil.copyfile(args.store, home / "enyal.db")
    daemon = Daemon.start(home)
    try:
        before, cpu0 = _threads(daemon.pid), daemon.cpu()
        stored, t0, t1 = enyal_import(path, home)
        cpu, after = daemon.cpu() - cpu0, _threads(daemon.pid)
        rss, hwm = daemon.rss()
    finally:
        daemon.stop()
    data = json.loads(trace.read_text())
    if args.dump:
        shutil.copyfile(trace, args.dump)
    shutil.rmtree(home, ignore_errors=True)
    print(
        f"{stored} stored in {t1 - t0:.2f} s: {stored / (t1 - t0):.1f}/s; daemon CPU "
        f"{cpu / stored * 1e3:.1f} ms an abstract; RSS {rss:.0f} MB, peak {hwm:.0f}"
    )
    print("  daemon threads (schedstat), ms an abstract: running / runnable-waiting")
    for name, (run, wait, _) in sorted(after.items(), key=lambda kv: -kv[1][0]):
        r0, w0, _ = before.get(name, [0, 0, 0])
        running, waiting = (run - r0) / 1e6 / stored, (wait - w0) / 1e6 / stored
        if running >= 0.05:
            print(f"    {name:<20} {running:6.2f} / {waiting:6.2f}")
    _report(data, t0, t1, stored)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--daemon":
        out = sys.argv.pop(2)
        sys.argv.pop(1)
        sys.exit(_traced_daemon(out))
    main()

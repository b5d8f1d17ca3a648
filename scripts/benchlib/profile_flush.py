"""What one bookkeeping flush writes after a run of recalls, in process (issue 30).

    cd scripts && ../.venv/bin/python -m benchlib.profile_flush [--recalls 150] [--scifact]
        [--store PATH]   # another tree's cached store (main's, to compare two trees)

Opens an Engine on a copy of the bench's cached store (10k; --scifact: the SciFact
store, asked its claims without a cwd, as s_scifact.py asks them), sends 20 warm-up
recalls and flushes, then `recalls` recalls through the server's own Dispatcher (as
profile_recall.py), empties the WAL (a TRUNCATE checkpoint from another connection),
and flushes once: the WAL frames that flush's commits appended (the writer's WAL hook,
summed over its commits), the commits, and the process's CPU and wall around it
(nothing else runs meanwhile). A store built by another tree (`--store`, at an older
schema) is migrated on the copy when the Engine opens it; the open's seconds are shown.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import apsw
import msgspec

WARMUP = 20


def _questions(
    args: argparse.Namespace, cache: Path
) -> tuple[Path | None, list[str], dict[str, str]]:
    """The store (None: build or reuse the bench's), the warm-up then measured questions,
    and the cwd they are asked from."""
    from benchlib import corpus
    from benchlib.vocab import PROJECTS

    if args.scifact:
        from benchlib.s_scifact import SCIFACT, scifact, store_and_claims

        _, queries = scifact(SCIFACT.parent)
        claims = [text for text, _, _ in queries][: args.recalls]
        store = args.store or store_and_claims(cache, args.recalls)[0]
        return store, corpus.questions(WARMUP, seed=5_183) + claims, {}
    return args.store, corpus.questions(WARMUP + args.recalls, seed=10_007), {"cwd": PROJECTS[0]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--recalls", type=int, default=150)
    ap.add_argument("--scifact", action="store_true")
    ap.add_argument("--store", type=Path, default=None, help="a cached store to copy")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib.store import Engine as BenchEngine
    from benchlib.store import cached_store, install, make_corpus

    bench = BenchEngine.load()
    store, queries, cwd = _questions(args, args.cache)
    if store is None:
        c = make_corpus(bench, 10_000, args.cache, print)
        store, _ = cached_store(bench, c, 10_000, args.cache, print)

    from benchlib import in_process
    from enyal_daemon.server.dispatch import Dispatcher
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.store import writer

    sizes: list[int] = []  # the WAL's frames after each commit
    after_commit = writer.Writer._after_commit

    def hooked(self: Any, conn: apsw.Connection, name: str, pages: int) -> int:
        sizes.append(pages)
        return after_commit(self, conn, name, pages)

    writer.Writer._after_commit = hooked  # type: ignore[method-assign]
    home = Path(tempfile.mkdtemp(prefix="enyal-flush-"))
    install(store, home)
    t0 = time.perf_counter()
    engine = Engine(home / "enyal.db", bench.embedder)
    opened = time.perf_counter() - t0
    handlers = in_process.handlers(engine)
    frames = in_process.recall_frames(queries, cwd)

    shown: set[str] = set()  # the hits of the measured recalls: the entries counted

    async def serve(batch: list[bytes]) -> None:
        for frame in batch:
            out = await dispatcher.handle(frame)
            assert out is not None and b'"error"' not in out[:40], out[:200]
            shown.update(h["id"] for h in msgspec.json.decode(out)["result"]["results"])

    with ThreadPoolExecutor((os.cpu_count() or 2) + 2, thread_name_prefix="enyal-req") as pool:
        dispatcher = Dispatcher(handlers, pool, engine.db_path)
        asyncio.run(serve(frames[:WARMUP]))
        engine.flush_bookkeeping()
        shown.clear()
        cpu0 = time.process_time()
        asyncio.run(serve(frames[WARMUP:]))
        per_recall = (time.process_time() - cpu0) / (len(frames) - WARMUP)
        counted = len(shown)
        side = apsw.Connection(str(home / "enyal.db"))
        busy = side.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        side.close()
        sizes.clear()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        engine.flush_bookkeeping()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    engine.close()
    shutil.rmtree(home, ignore_errors=True)
    written, last = 0, 0
    for size in sizes:  # a WAL restarted after a checkpoint counts from 0 again
        written += size - last if size >= last else size
        last = size
    where = "SciFact" if args.scifact else "10k"
    print(
        f"{where}: one flush after {len(frames) - WARMUP} recalls: {counted} entries counted, "
        f"{len(sizes)} commits, {written} WAL pages (per commit {sizes}), "
        f"{cpu * 1e3:.1f} ms CPU, {wall * 1e3:.1f} ms wall; the WAL emptied first: {busy}; "
        f"{per_recall * 1e3:.2f} ms CPU a recall (process_time); the open {opened:.2f} s"
    )


if __name__ == "__main__":
    main()

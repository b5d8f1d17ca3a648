"""A set imported through a real daemon, its database cached: what scripts/eval_recall scores
and the bench's recall on the SciFact store reads (one import serves both).

The cache key is the lines, the model and the sources of what decides the rows stored
(STORED_BY), so a ranking change reruns on the same import in seconds and a change to
what is stored re-imports."""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import enyal_daemon
from benchlib.procs import Daemon

STORED_BY = ("store", "embedder", "service/upkeep/transfer.py")  # what decides the imported rows
# ...but for which thread runs a write and when: the writer's discipline, not the rows it
# writes (a change to it would re-import SciFact, ~4 min, for the same database)
NOT_STORED_BY = ("store/writer.py",)
BATCH = 200


def cache_key(lines: list[str]) -> str:
    from enyal_daemon.embedder.model_files import locate

    h = hashlib.sha256("\n".join(lines).encode())
    h.update(locate(Path("/nonexistent")).model_sha256.encode())
    root = Path(enyal_daemon.__file__).parent
    for part in STORED_BY:
        path = root / part
        for src in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            if src.relative_to(root).as_posix() not in NOT_STORED_BY:
                h.update(src.read_bytes())
    return h.hexdigest()[:16]


def import_all(daemon: Daemon, name: str, lines: list[str]) -> int:
    batches = [(i + 1, lines[i : i + BATCH]) for i in range(0, len(lines), BATCH)]

    def send(batch: tuple[int, list[str]]) -> int:
        conn = daemon.connect()
        try:
            r = conn.call("import", {"lines": batch[1], "first_line": batch[0]})
        finally:
            conn.close()
        if r["failed"]:
            bad = [x for x in r["lines"] if x["status"] == "failed"][:3]
            raise RuntimeError(f"{name}: {r['failed']} lines failed to import: {bad}")
        return int(r["stored"])

    with ThreadPoolExecutor(2) as pool:  # two imports at once: the daemon embeds on both cores
        return sum(pool.map(send, batches))


def _merged(db_path: Path) -> None:
    """The keyword indexes merged, as the daemon leaves a store in its first quiet spell
    (service/upkeep/text_merge.py), which the import's daemon, stopped right after, never
    had: a daemon started on the copy would otherwise merge it while it is measured."""
    from enyal_daemon.store import db, text_segments

    conn = db.connect(db_path, writer=True)
    try:
        with conn:
            text_segments.merge_whole(conn)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def imported(name: str, lines: list[str], fresh: bool, cache: Path) -> tuple[Path, float | None]:
    """A database holding the set, imported through a daemon; cached. (path, import s)."""
    cached = cache / f"eval-{name}-{cache_key(lines)}.db"
    if cached.exists() and not fresh:
        print(f"{name}: reusing the import cached in {cached}", file=sys.stderr)
        return cached, None
    home = Path(tempfile.mkdtemp(prefix=f"enyal-eval-{name}-"))
    try:
        daemon = Daemon.start(home)
        try:
            t0 = time.perf_counter()
            stored = import_all(daemon, name, lines)
            seconds = time.perf_counter() - t0
        finally:
            daemon.stop()  # checkpoints the WAL: enyal.db alone is the whole store
        _merged(home / "enyal.db")
        print(f"{name}: imported {stored} memories in {seconds:.0f} s", file=sys.stderr)
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        shutil.copyfile(home / "enyal.db", tmp)
        tmp.replace(cached)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return cached, seconds

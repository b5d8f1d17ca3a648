"""11. A project's shared memory (issue 27): a pull of 1,000 changed memory files, to
searchable; the same files again with only their front matter changed (nothing to
embed); and what sharing adds to a `remember`.

The pull is 1,000 `.enyal/<id>.md` files appearing in a repository the daemon reads
(as `git pull` writes them), timed two ways: `share_sync` (the read itself, from the
request to its reply, after which recall finds them) and the watcher (the last file
written to the daemon having stored it: its poll and settle interval included).

Runs alone, without the rest of the bench, on a fresh daemon:

    PYTHONPATH=daemon:client .venv/bin/python scripts/benchlib/s_share.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

if __package__ in (None, ""):  # run as a script: benchlib is its folder's package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.procs import Daemon
from benchlib.report import Report, Row, size
from benchlib.stats import Runs
from enyal_protocol import memory_file as mf

PULL = 1_000
REMEMBERS = 40


def _repo(work: Path, name: str) -> Path:
    root = work / name
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / mf.FOLDER).mkdir()
    return root


def _files(root: Path, texts: list[tuple[str, str]], tag: str) -> list[str]:
    ids = []
    for kind, text in texts:
        entry_id = str(uuid.uuid4())
        m = mf.MemoryFile(
            id=entry_id,
            content=text,
            content_type=kind,  # type: ignore[arg-type]
            tags=[tag],
            created="2026-11-26T00:00:00Z",
            updated="2026-11-26T00:00:00Z",
        )
        (root / mf.FOLDER / mf.file_name(entry_id)).write_text(mf.render(m))
        ids.append(entry_id)
    return ids


def _retag(root: Path, ids: list[str], tag: str) -> None:
    for entry_id in ids:
        path = root / mf.FOLDER / mf.file_name(entry_id)
        m = mf.parse(path.read_text(), path.name)
        m.tags = [tag]
        m.updated = "2026-11-26T01:00:00Z"
        path.write_text(mf.render(m))


def run(ctx: Ctx | None, daemon: Daemon, n: int, report: Report | None = None) -> None:
    rep = report or (ctx.report if ctx is not None else None)
    assert rep is not None
    work = ctx.work if ctx is not None else daemon.home
    s = size(n)
    conn = daemon.connect()
    try:
        # 1. share_sync of a pull of PULL new files.
        root = _repo(work, "share-sync")
        texts = [(k, f"{t} (shared {i})") for i, (k, t) in enumerate(corpus.base_texts(PULL, 77))]
        ids = _files(root, texts, "pulled")
        t0 = time.perf_counter()
        r = conn.call("share_sync", {"path": str(root)})
        sync_s = time.perf_counter() - t0
        found = conn.call("get", {"id": ids[-1]})["id"] == ids[-1]
        rep.add(
            Row(
                "11",
                f"pull of {PULL:,} new memory files: share_sync to searchable",
                s,
                Runs([sync_s]),
                "s",
                note=f"{r['added']:,} added, {r['embedded']:,} texts embedded; "
                f"{PULL / sync_s:.0f} files/s; found after: {found}",
            )
        )
        # 2. the same files, front matter only changed: read, nothing embedded.
        _retag(root, ids, "retagged")
        t0 = time.perf_counter()
        r = conn.call("share_sync", {"path": str(root)})
        retag_s = time.perf_counter() - t0
        rep.add(
            Row(
                "11",
                f"pull of {PULL:,} files with only tags changed",
                s,
                Runs([retag_s]),
                "s",
                note=f"{r['updated']:,} updated (a version each), {r['embedded']} texts embedded",
            )
        )
        t0 = time.perf_counter()
        r = conn.call("share_sync", {"path": str(root)})
        rep.add(
            Row(
                "11",
                f"read of {PULL:,} unchanged files",
                s,
                Runs([time.perf_counter() - t0]),
                "s",
                note=f"{r['unchanged']:,} unchanged: hashed, not parsed",
            )
        )
        # 3. the watcher: a repository it reads, then a pull's files appear.
        root = _repo(work, "share-watch")
        conn.call("share_sync", {"path": str(root)})
        texts = [(k, f"{t} (watched {i})") for i, (k, t) in enumerate(corpus.base_texts(PULL, 78))]
        ids = _files(root, texts, "pulled")
        t0 = time.perf_counter()
        while True:
            try:
                conn.call("get", {"id": ids[-1]})
                break
            except Exception:
                if time.perf_counter() - t0 > 600:
                    raise
                time.sleep(0.05)
        rep.add(
            Row(
                "11",
                f"pull of {PULL:,} new memory files: watcher to searchable",
                s,
                Runs([time.perf_counter() - t0]),
                "s",
                note="from the last file written; includes the 1 s poll and 1 s settle",
            )
        )
        # 4. remember, shared and not.
        project = _repo(work, "share-remember")
        plain, shared = [], []
        for i, (kind, text) in enumerate(corpus.base_texts(2 * REMEMBERS, 79)):
            params = {
                "content": f"{text} (remembered {i})",
                "content_type": kind,
                "cwd": str(project),
                "shared": i % 2 == 1,
            }
            t0 = time.perf_counter()
            conn.call("remember", params)
            (shared if i % 2 else plain).append((time.perf_counter() - t0) * 1000)
        overhead = statistics.median(shared) - statistics.median(plain)
        rep.add(
            Row(
                "11",
                "share overhead on remember (median shared - median not)",
                s,
                Runs([overhead]),
                "ms",
                note=f"{REMEMBERS} each, alternating; not shared "
                f"{statistics.median(plain):.1f} ms, shared {statistics.median(shared):.1f} ms",
            )
        )
    finally:
        conn.close()


def main() -> None:
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="enyal-bench-share-"))
    cache = Path(os.environ.get("ENYAL_BENCH_CACHE", "~/.cache/enyal-bench")).expanduser()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(cache / "enyal-cache"))  # the 8-bit build
    daemon = Daemon.start(home)
    report = Report({"cores": os.cpu_count()}, {})
    try:
        run(None, daemon, 0, report)
    finally:
        daemon.stop()
    print(report.markdown())


if __name__ == "__main__":
    main()

"""The watcher: what `index` was given, indexed again when its files change.

Stdlib polling on one background thread (no dependency, the same on Linux and macOS):
every poll lists each indexed root's matching files with their mtime and size — a walk
and a stat per file, no reads. A root whose listing moved is pending; once no root has
moved for `debounce` seconds (an editor's save, a `git checkout` of many files), the
pending ones are indexed again through `index`'s own code, which reads only the files
that changed and writes each in one short writer job. On start every root is pending:
files may have changed while no daemon ran. `stop` ends the loop and waits for a run in
progress, file by file short, so a shutdown never leaves one half written.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from ...errors import EnyalError
from ..core.engine import Engine
from . import indexing

log = logging.getLogger(__name__)

Listing = dict[str, tuple[int, int]]  # path -> (mtime_ns, size)


class Watcher:
    def __init__(self, engine: Engine, debounce: float) -> None:
        self.engine = engine
        self.debounce = debounce
        self.interval = min(1.0, max(0.05, debounce / 2))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="enyal-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _listing(self) -> dict[str, Listing]:
        out: dict[str, Listing] = {}
        for root in indexing.roots(self.engine):
            files: Listing = {}
            # walk lists only what index would read (no link out, no FIFO): a stat of
            # each is safe, and what it skips is never read when the root is indexed.
            for path in indexing.walk(root.path, root.globs).files[: indexing.MAX_FILES]:
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                files[path] = (st.st_mtime_ns, st.st_size)
            out[root.path] = files
        return out

    def _run(self) -> None:
        try:
            seen = self._listing()
        except EnyalError as exc:
            log.warning("the index watcher cannot list its folders: %s", exc.message)
            seen = {}
        pending = set(seen)
        moved_at = time.monotonic()
        while not self._stop.wait(self.interval):
            try:
                now = self._listing()
            except EnyalError as exc:
                log.warning("the index watcher cannot list its folders: %s", exc.message)
                continue
            moved = {root for root in now.keys() | seen.keys() if now.get(root) != seen.get(root)}
            seen = now
            if moved:
                pending |= moved
                moved_at = time.monotonic()
                continue
            if not pending or time.monotonic() - moved_at < self.debounce:
                continue
            roots, pending = sorted(pending), set()
            try:
                r = indexing.reindex_roots(self.engine, only=roots)
            except EnyalError as exc:
                log.warning("indexing %s again failed: %s", ", ".join(roots), exc.message)
                continue
            if r.chunks_added or r.chunks_updated or r.chunks_forgotten or r.errors:
                log.info(
                    "re-indexed %s: %d chunks added, %d updated, %d forgotten, %d files failed, "
                    "%d skipped (not read: links out of the path, special files)",
                    ", ".join(roots),
                    r.chunks_added,
                    r.chunks_updated,
                    r.chunks_forgotten,
                    len(r.errors),
                    len(r.skipped),
                )

"""The keyword indexes merged into one segment each by the daemon, a step at a time, in
quiet spells (store/text_segments.py says why and when).

Looked at when the daemon starts and again after the store was written, once
acknowledged writes have been quiet for QUIET_SECONDS; then merged STEP_PAUSE apart, each
step a transaction of its own on the writer (not durable: a step lost in a crash leaves
the index as it was before it) that waits for an acknowledged write coming and steps aside
for the requests being served (traffic.py), so a remember or a recall meets at most one
step under way. A merge changes no search's result (every word's entries and their
sizes are the same, only how they lie), so remembered keyword results still hold.
"""

from __future__ import annotations

import functools
import time

from ...store import text_segments
from ...store.writer import Tx
from ..core import traffic
from ..core.engine import Engine

QUIET_SECONDS = 1.0  # without an acknowledged write before a step
STEP_PAUSE = 0.02  # between two steps of a merge


class TextMerge:
    """The daemon's merging job: `step` is run by its periodic loop (server/periodic.py)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._looked_at: int | None = None  # the store's version when last looked at
        self._merging: list[str] = []  # the indexes still to merge, in turn

    def step(self) -> float | None:
        """Look, or merge a step; the seconds until the next call (None: the loop's own
        period)."""
        engine = self._engine
        if engine.read_only:
            return None
        quiet_for = time.monotonic() - engine.writer.last_write
        if quiet_for < QUIET_SECONDS:
            return QUIET_SECONDS - quiet_for
        if not self._merging:
            version = engine.store_version.value
            if version == self._looked_at:
                return None
            self._looked_at = version
            conn = engine.reader()
            self._merging = [t for t in text_segments.TEXT_INDEXES if text_segments.split(conn, t)]
            if not self._merging:
                return None
        traffic.wait_for_writes(traffic.MOST)
        traffic.step_aside(traffic.MOST)
        if engine.write(functools.partial(_merge_step, self._merging[0]), durable=False):
            self._merging.pop(0)
            if not self._merging:
                # The pages the merge rewrote stay in the writer's cache (up to 16 MB at
                # 100k and more), heap the daemon would keep until its next burst of writes.
                engine.release_write_cache()
        return STEP_PAUSE if self._merging else None


def _merge_step(table: str, tx: Tx) -> bool:
    """A merge moves nothing a search or a brief reads (Version)."""
    tx.counted = False
    tx.used = False
    return text_segments.merge_step(tx.conn, table)

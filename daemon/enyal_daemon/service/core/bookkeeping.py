"""Access counts and usage events, buffered off the request path and written in batches.

Neither is an acknowledged write: a crash may lose a few seconds of counts, never a
memory. So they are kept in memory, written by the daemon every couple of seconds in
transactions that need not wait for the disk (Writer.run(durable=False)), and the
event log is bounded: events older than RETENTION_DAYS, and all but the newest
MAX_EVENTS, are pruned now and then.

They share the one writer with acknowledged writes, so they are written in small
chunks, one transaction each (Batch.chunks; pruning deletes PRUNE_CHUNK rows at a
time): a remember arriving meanwhile waits for one chunk, a few milliseconds, not
for two seconds of a busy daemon's counts (30-140 ms at 100k under steady recall,
scripts/bench). And no chunk starts while an acknowledged write is coming, from its
embedding to its commit (Engine.flush_bookkeeping, traffic.wait_for_writes).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from ...store import access, analytics
from ...store.analytics import EventRow, Logged, RecallRow
from ...store.writer import Tx
from ..rules.clock import Clock, to_iso

RETENTION_DAYS = 90
MAX_EVENTS = 200_000
PRUNE_EVERY_SECONDS = 600.0
# Entries whose counts one transaction adds: at 256 ~1.2 ms of the writer's CPU (a remember
# waits for one), where 64 beside the text took ~0.85 (10k: store/access.py, m024). Each
# commit rewrites the access pages it touched, so fewer commits write fewer pages (a flush
# after 150 recalls at 10k: 215 -> 57).
TOUCH_CHUNK = 256
EVENT_CHUNK = 256  # rows one transaction inserts: an event, or a recall's (its hits)
PRUNE_CHUNK = 2000  # events one transaction deletes


@dataclass(frozen=True, slots=True)
class Asked:
    """A recall's events before its query is redacted: the hits shown, in order."""

    ids: list[str]
    when: str
    query: str


@dataclass
class Batch:
    accessed: dict[str, tuple[int, str]] = field(default_factory=dict)  # id -> (times, last)
    events: list[Logged] = field(default_factory=list)
    prune_before: str | None = None  # events older than this go

    @property
    def empty(self) -> bool:
        return not self.accessed and not self.events and self.prune_before is None

    def chunks(self) -> Iterator[Callable[[Tx], bool]]:
        """The writes, in order, as writer jobs of bounded size. A job returns whether it
        left some of its work undone (pruning does, PRUNE_CHUNK rows at a time): then it
        is run again."""
        touched = [(i, n, when) for i, (n, when) in self.accessed.items()]
        for start in range(0, len(touched), TOUCH_CHUNK):
            yield functools.partial(_touch, touched[start : start + TOUCH_CHUNK])
        for start in range(0, len(self.events), EVENT_CHUNK):
            yield functools.partial(_insert, self.events[start : start + EVENT_CHUNK])
        if self.prune_before is not None:
            yield functools.partial(_prune, self.prune_before)


def _touch(accessed: list[tuple[str, int, str]], tx: Tx) -> bool:
    access.touch(tx.conn, accessed)
    return False


def _insert(events: list[Logged], tx: Tx) -> bool:
    analytics.insert(tx.conn, events)
    return False


def _prune(cutoff: str, tx: Tx) -> bool:
    return analytics.prune(tx.conn, cutoff, MAX_EVENTS, PRUNE_CHUNK) == PRUNE_CHUNK


class Bookkeeping:
    def __init__(self, clock: Clock, redact: Callable[[str], str]) -> None:
        """`redact`: how a recall's query is kept in the log (applied when it is written)."""
        self.clock = clock
        self._redact = redact
        self._lock = threading.Lock()
        self._pending = Batch()
        self._asked: list[tuple[int, Asked]] = []  # (where in the events, what was asked)
        self._pruned_at = 0.0

    def touch(self, ids: Iterable[str]) -> None:
        """Keyed by entry id, not rid: a rid freed by a hard delete can be handed to the
        next insert."""
        now = self.clock.now_iso()
        with self._lock:
            accessed = self._pending.accessed
            for entry_id in ids:
                count, _ = accessed.get(entry_id, (0, now))
                accessed[entry_id] = (count + 1, now)

    def event(
        self, entry_id: str, event_type: str, query: str | None = None, rank: int | None = None
    ) -> None:
        with self._lock:
            self._pending.events.append((entry_id, event_type, self.clock.now_iso(), query, rank))

    def events(self, rows: Iterable[EventRow]) -> None:
        with self._lock:
            self._pending.events.extend(rows)

    def recalled(self, ids: list[str], query: str) -> None:
        """A recall's hits, shown for `query`: an event each, ranked 1.., written as one
        row (store/analytics.py), the query redacted when they are written (drain), not
        on the request's thread: a hook's prompt can run to thousands of characters,
        which the secret rules scan (issue 30)."""
        asked = Asked(ids, self.clock.now_iso(), query)
        with self._lock:
            self._asked.append((len(self._pending.events), asked))

    def drain(self) -> Batch:
        """What is pending, handed over once; pruning rides along every so often."""
        with self._lock:
            batch, self._pending = self._pending, Batch()
            asked, self._asked = self._asked, []
        if asked:
            batch.events = self._with_recalls(batch.events, asked)
        now = time.monotonic()
        if now - self._pruned_at >= PRUNE_EVERY_SECONDS:
            self._pruned_at = now
            batch.prune_before = to_iso(self.clock.now() - timedelta(days=RETENTION_DAYS))
        return batch

    def _with_recalls(self, events: list[Logged], asked: list[tuple[int, Asked]]) -> list[Logged]:
        """The events with each recall's in the place it was recorded."""
        out: list[Logged] = []
        done = 0
        for at, a in asked:
            out.extend(events[done:at])
            done = at
            logged = self._redact(a.query)
            out.append(RecallRow(a.when, logged, a.ids))
            # The secret rules' scan holds the interpreter's lock throughout (~0.24 us a
            # character: 2 s of SciFact's claims is ~3 ms, a hook's prompts more), and a
            # request thread back from C waited for all of it, up to a switch interval:
            # given up between queries, a request waits for one query's scan at most.
            time.sleep(0)
        out.extend(events[done:])
        return out

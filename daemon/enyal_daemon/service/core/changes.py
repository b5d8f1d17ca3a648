"""Live changes: who subscribed to what, and the changes each write publishes.

A write verb notes what it changed on its transaction (`Publisher.note`); the note
becomes an after-commit hook, so a change is published only once it is durable,
and a rolled-back job (or a dry run) publishes nothing. Publishing runs on the
writer's turn (its thread, or a write's caller's: store/writer.py) and must never
wait: each subscription has a bounded queue, and a subscription whose queue is full
drops what it holds and everything after it until its connection has told the client
to read the state again (`resync`). The server
(server/session.py) drains the queues onto its connections; nothing here knows
about sockets.
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from enyal_protocol import wire as p

from ...store import deleted, entries
from ...store import graph as edge_rows
from ...store.writer import Tx
from ..rules import scopes
from ..rules.clock import Clock

QUEUE = 256  # changes held for one subscription that lags
BATCH = 64  # changes handed to a connection at a time


class Subject(Protocol):
    """What a change names: an entry row or a wire entry."""

    @property
    def id(self) -> str: ...
    @property
    def scope_level(self) -> p.ScopeLevel: ...
    @property
    def scope_path(self) -> str | None: ...
    @property
    def content_type(self) -> p.ContentType: ...


@dataclass(frozen=True)
class Filter:
    level: p.ScopeLevel | None
    path: str | None
    match_path: bool  # whether `path` must equal the entry's scope_path
    under: str | None
    types: frozenset[p.ContentType]

    @classmethod
    def from_params(cls, params: p.SubscribeParams) -> Filter:
        """Resolved as `list` resolves scope and scope_path (project from cwd, and so on),
        but `file` alone is every file's memories (an editor shows those of whatever file
        it opens); InvalidValue for a scope without the path it needs or a relative path
        without cwd."""
        if params.scope == "file" and params.scope_path is None:
            path, match_path = None, False
        else:
            path, match_path = scopes.filter_path(params.scope, params.scope_path, params.cwd)
        under = scopes.placed(params.under, params.cwd) if params.under is not None else None
        return cls(params.scope, path, match_path, under, frozenset(params.content_types))

    def admits(self, change: p.Change) -> bool:
        if self.level is not None and change.scope_level != self.level:
            return False
        if self.match_path and change.scope_path != self.path:
            return False
        if self.types and not ({change.content_type, change.previous_type} & self.types):
            return False
        return self.under is None or _inside(change.scope_path, self.under)

    def wire(self) -> p.SubscribeFilter:
        return p.SubscribeFilter(
            scope=self.level,
            scope_path=self.path,
            under=self.under,
            content_types=sorted(self.types),
        )


def _inside(path: str | None, folder: str) -> bool:
    if path is None:
        return False
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class Subscription:
    """One subscriber's bounded queue. `offer` runs on the writer's turn, `take` on the
    server's loop; `wake` is called (from the writer's turn) when there is something to
    take, and must not block."""

    def __init__(self, sub_id: str, f: Filter, wake: Callable[[], None], size: int) -> None:
        self.id = sub_id
        self.filter = f
        self.size = size
        self._wake = wake
        self._queue: deque[p.Change] = deque()
        self._dropped = 0  # > 0: overflowed; everything is dropped until the resync is taken
        self._lock = threading.Lock()

    def offer(self, change: p.Change) -> None:
        if not self.filter.admits(change):
            return
        with self._lock:
            if self._dropped:
                self._dropped += 1
                return
            if len(self._queue) >= self.size:
                # What is queued is stale once one change is missing: the client re-reads
                # anyway, so holding it would only cost memory.
                self._dropped = len(self._queue) + 1
                self._queue.clear()
            else:
                self._queue.append(change)
                if len(self._queue) > 1:
                    return  # already woken for the first one
        self._wake()

    def take(self) -> tuple[list[p.Change], int, bool]:
        """(up to BATCH changes, how many were dropped before them, whether more wait)."""
        with self._lock:
            dropped, self._dropped = self._dropped, 0
            n = min(BATCH, len(self._queue))
            batch = [self._queue.popleft() for _ in range(n)]
            return batch, dropped, bool(self._queue)


class Capture(Protocol):
    """What else hears of every change on its transaction: the hub's outbox
    (service/hub/capture.py), which records a shared memory's change in the same
    transaction. Every write verb passes through note/note_edge: the one place."""

    def memory(self, tx: Tx, memory_id: str) -> None: ...
    def edge(self, tx: Tx, source: str, target: str, edge_type: str, present: bool) -> None: ...


class Publisher:
    def __init__(self, clock: Clock, queue: int = QUEUE) -> None:
        self.clock = clock  # a change's `at`
        self.queue = queue
        self.capture: Capture | None = None  # set when the daemon replicates to a hub
        self._subs: dict[str, Subscription] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def subscribe(self, f: Filter, wake: Callable[[], None]) -> Subscription:
        with self._lock:
            sub = Subscription(f"s{next(self._ids)}", f, wake, self.queue)
            self._subs[sub.id] = sub
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.pop(sub.id, None)

    def publish(self, change: p.Change) -> None:
        with self._lock:
            subs = list(self._subs.values())
        for sub in subs:
            sub.offer(change)

    # --- what write verbs call -----------------------------------------------------------

    def note(
        self,
        tx: Tx,
        kind: p.ChangeKind,
        subject: Subject,
        edge_type: p.EdgeType | None = None,
        previous_type: p.ContentType | None = None,
    ) -> None:
        """Publish this change once `tx` has committed (never if it rolls back). An update
        that changed the type passes the old one (`previous_type`)."""
        change = p.Change(
            subscription="",
            kind=kind,
            id=subject.id,
            scope_level=subject.scope_level,
            scope_path=subject.scope_path,
            content_type=subject.content_type,
            at=self.clock.now_iso(),
            edge_type=edge_type,
            previous_type=previous_type if previous_type != subject.content_type else None,
        )
        tx.after_commit.append(functools.partial(self.publish, change))
        if self.capture is not None:
            self.capture.memory(tx, subject.id)

    def note_deleted(self, tx: Tx, row: Subject) -> None:
        """An entry about to be deleted for good on `tx`: its edges go with it (ON DELETE
        CASCADE), so the entry at each edge's other end is `unlinked`, then it is `deleted`.
        Called before the delete, while its edges can still be read."""
        for edge in edge_rows.touching(tx.conn, [row.id], "both"):
            other = edge.target_id if edge.source_id == row.id else edge.source_id
            end = entries.get(tx.conn, other)
            if end is not None and end.id != row.id:
                self.note(tx, "unlinked", end, edge.edge_type)
        deleted.record(tx.conn, row.id, self.clock.now_iso())
        self.note(tx, "deleted", row)

    def note_edge(
        self,
        tx: Tx,
        kind: p.ChangeKind,
        source: Subject,
        target: Subject,
        edge_type: p.EdgeType,
    ) -> None:
        """An edge made or removed: a change for each end (each end's own scope decides who
        hears of it). The target of a new `supersedes` edge is `superseded`."""
        if self.capture is not None:
            self.capture.edge(tx, source.id, target.id, edge_type, kind == "linked")
        self.note(tx, kind, source, edge_type)
        superseded = kind == "linked" and edge_type == "supersedes"
        self.note(tx, "superseded" if superseded else kind, target, edge_type)

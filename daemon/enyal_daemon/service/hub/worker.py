"""The replica's worker: one thread that pushes the outbox and pulls the hub's log
(docs/ARCHITECTURE.md, "The replica").

Push: the outbox's oldest changes, in order; a batch leaves the outbox only after
`push` returned (committed on the hub), so a crash in between pushes it again and the
hub skips it by change id. Pull: after the cursor, applied with the cursor's advance
in one transaction (converge.py). Between rounds it waits on the hub's announcement
(LISTEN/NOTIFY through `HubLink.wait`) in short slices, between which it looks for a
local write to push; with nothing announced it pulls every POLL seconds anyway. The
hub unreachable: the error is kept for `hub status`, and the worker backs off, doubling
to BACKOFF_MAX; nothing else waits for it. It never raises out of its loop: a daemon
must not die of its hub.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import EnyalError, HubUnavailable
from ...hub.change import Change, HubLink
from ...store import hub as rows
from ...store.writer import Tx
from ..core.engine import Engine
from . import converge
from .capture import Capture

log = logging.getLogger(__name__)

BATCH = 256  # changes per push or pull round
WAIT = 0.05  # seconds on the hub's announcement at a time: how soon a local write is seen
POLL = 5.0  # seconds between pulls when nothing is announced (LISTEN lost: a pooler)
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0


@dataclass
class Progress:
    """What `hub status` shows of the worker (in memory: it changes every round, and is
    not worth a write each time; the last error is also kept in hub_state)."""

    connected: bool = False
    head: int | None = None
    last_push: str | None = None
    last_pull: str | None = None
    last_error: str | None = None
    last_error_at: str | None = None
    pushed: int = 0
    applied: int = 0
    refused: int = 0


class Worker:
    def __init__(
        self,
        engine: Engine,
        capture: Capture,
        connect: Callable[[], HubLink],
        progress: Progress,
    ) -> None:
        self.engine = engine
        self.capture = capture
        self.connect = connect
        self.progress = progress
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._link: HubLink | None = None
        self._thread = threading.Thread(target=self._run, name="enyal-hub", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self._stop.is_set():
            try:
                busy = self._round()
                backoff = BACKOFF_FIRST
                if not busy:
                    self._idle()
            except Exception as exc:  # never the daemon's end: kept for status, retried
                if isinstance(exc, HubUnavailable):
                    self._failed(exc.message)
                else:  # a bug, not the hub: its traceback is for the log
                    log.exception("hub worker")
                    self._failed(f"{type(exc).__name__}: {exc}")
                self._stop.wait(backoff)
                backoff = min(BACKOFF_MAX, backoff * 2)
        self._close()

    def _idle(self) -> None:
        """Until a local write wakes it, the hub announces a change, POLL passes, or stop."""
        assert self._link is not None
        since = time.monotonic()
        while not self._stop.is_set():
            if self._wake.is_set():
                self._wake.clear()
                return
            if self._link.wait(WAIT) or time.monotonic() - since >= POLL:
                return

    def _round(self) -> bool:
        """One push and one pull; whether there is more to do at once."""
        if self._link is None:
            self._link = self.connect()
        more = self._push(self._link)
        more = self._pull(self._link) or more
        self.progress.connected = True
        return more

    def _push(self, link: HubLink) -> bool:
        n = push(self.engine, link)
        if n:
            self.progress.pushed += n
            self.progress.last_push = self.engine.clock.now_iso()
        return n == BATCH

    def _pull(self, link: HubLink) -> bool:
        n, problems = pull(self.engine, self.capture, link)
        for space in rows.catching_up(self.engine.reader()):
            caught, refused = catch_up(self.engine, self.capture, link, space)
            n, problems = max(n, caught), problems + refused
        self.progress.head = link.head()
        self.progress.last_pull = self.engine.clock.now_iso()
        self.progress.applied += n - len(problems)
        if problems:
            self.progress.refused += len(problems)
            for why in problems:
                log.warning("hub: %s", why)
            self._failed(problems[-1])
        return n == BATCH

    def _failed(self, why: str) -> None:
        link_broke = not why.startswith("hub row")  # not a row: the link; connect anew
        if link_broke:
            self.progress.connected = False  # before the error shows: status reads both
            self._close()
        self.progress.last_error_at = self.engine.clock.now_iso()
        self.progress.last_error = why
        with contextlib.suppress(EnyalError):  # a full disk: the status in memory says it
            self.engine.write(lambda tx: rows.put(tx.conn, "last_error", why))

    def _close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            try:
                link.close()
            except Exception:  # closing a broken connection: nothing more to lose
                log.debug("hub link close", exc_info=True)


def push(engine: Engine, link: HubLink) -> int:
    """Push the outbox's oldest batch; how many changes it held."""
    batch = rows.pending(engine.reader(), BATCH)
    if not batch:
        return 0
    link.push([Change(*change) for _, change in batch])
    upto = batch[-1][0]
    now = engine.clock.now_iso()

    def job(tx: Tx) -> None:
        rows.pushed(tx.conn, upto)  # only now: the hub has them
        rows.put(tx.conn, "last_push", now)  # kept for status across restarts

    engine.write(job)
    return len(batch)


def pull(engine: Engine, capture: Capture, link: HubLink) -> tuple[int, list[str]]:
    """Pull and apply one batch after the cursor: (rows pulled, what was refused)."""
    cursor = int(rows.get(engine.reader(), "cursor") or 0)
    pulled = link.pull(cursor, BATCH)
    if not pulled:
        return 0, []
    return len(pulled), converge.apply_pulled(engine, capture, pulled)


def catch_up(engine: Engine, capture: Capture, link: HubLink, space: str) -> tuple[int, list[str]]:
    """One batch of a space just joined, from its catch-up position up to the cursor:
    (rows pulled, what was refused). Its position goes once it reaches the cursor (what
    lies beyond, the ordinary pull brings)."""
    conn = engine.reader()
    key = rows.CATCHUP + space
    after = int(rows.get(conn, key) or 0)
    cursor = int(rows.get(conn, "cursor") or 0)
    pulled = (
        [r for r in link.pull(after, BATCH, space) if r.seq <= cursor] if after < cursor else []
    )
    if not pulled:
        engine.write(lambda tx: rows.drop(tx.conn, key))
        return 0, []
    return len(pulled), converge.apply_pulled(engine, capture, pulled, key)

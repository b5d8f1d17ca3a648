"""The replica's worker: one thread that pushes the outbox and pulls the hub's log
(docs/ARCHITECTURE.md, "The replica").

Push: the outbox's oldest changes, in order; a batch leaves the outbox only after
`push` returned (committed on the hub), so a crash in between pushes it again and the
hub skips it by change id. Pull: after the cursor, applied with the cursor's advance
in one transaction (converge.py). Between rounds it waits on the hub's announcement
(LISTEN/NOTIFY through `HubLink.wait`), which a local write interrupts (the capture
sets the worker's Wake as the write commits); with nothing announced it pulls every
POLL seconds anyway. Idle, the thread sleeps: it wakes for one of those three only. The
hub unreachable: the error is kept for `hub status`, and the worker backs off, doubling
to BACKOFF_MAX (2 s); nothing else waits for it. It never raises out of its loop: a daemon
must not die of its hub. What is behind (a backlog, a space's catch-up) is pulled and
checked on a thread of low CPU priority (../../niced.py), this one waiting for it.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import apsw

from ...errors import EnyalError, HubUnavailable
from ...hub.change import Change, HubLink, Pulled, Rejected
from ...hub.wake import Wake
from ...niced import Niced
from ...store import hub as rows
from ...store.writer import Tx
from ..core import traffic
from ..core.engine import Engine
from . import converge
from .capture import Capture

log = logging.getLogger(__name__)

BATCH = 256  # changes per push or pull round
POLL = 5.0  # seconds between pulls when nothing is announced (LISTEN lost: a pooler)
PRUNE_EVERY = 60.0  # seconds at least between two prunings (when idle, and pulled since)
BACKOFF_FIRST = 0.5
# The longest a daemon waits before trying a hub that was unreachable again, and so the
# most it lags behind a hub that is back (a retry against a hub still down costs a refused
# connection: nothing to save by waiting longer; it was 30 s, and a 32 s outage then
# left the outboxes full for 30 s more).
BACKOFF_MAX = 2.0


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
    wakeups: int = 0  # the thread's returns from a wait: what an idle replica costs


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
        self._wake = Wake()  # set by a local write's commit (Capture), and by stop
        self._link: HubLink | None = None
        self._pruned: tuple[float, int] = (time.monotonic(), 0)  # when, and rows pulled then
        self._thread = threading.Thread(target=self._run, name="enyal-hub", daemon=True)
        self._low = Niced("enyal-hub-low")  # a catch-up's pulls and checks

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()
        self._low.close()
        self._wake.close()  # a write's wake after this is a no-op

    def _run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self._stop.is_set():
            try:
                self._wake.clear()  # before the round: a write during it wakes the next wait
                busy = self._round()
                backoff = BACKOFF_FIRST
                if not busy:
                    self._prune_when_due()
                    self._idle()
            except Exception as exc:  # never the daemon's end: kept for status, retried
                if isinstance(exc, HubUnavailable):
                    self._failed(exc.message)
                else:  # a bug, not the hub: its traceback is for the log
                    log.exception("hub worker")
                    self._failed(f"{type(exc).__name__}: {exc}")
                self._stop.wait(backoff)
                self.progress.wakeups += 1
                backoff = min(BACKOFF_MAX, backoff * 2)
        self._close()

    def _idle(self) -> None:
        """Until a local write wakes it, the hub announces a change, POLL passes, or stop."""
        assert self._link is not None
        deadline = time.monotonic() + POLL
        while not self._stop.is_set() and not self._wake.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            announced = self._link.wait(left, self._wake)
            self.progress.wakeups += 1
            if announced:
                return

    def _prune_when_due(self) -> None:
        when, pulled = self._pruned
        if self.progress.applied != pulled and time.monotonic() - when >= PRUNE_EVERY:
            prune(self.engine)
            self._pruned = (time.monotonic(), self.progress.applied)

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
        fix_catch_ups(self.engine)  # before this round's pulls: see there
        if self.progress.head is not None:  # the last round's: no query for it here
            defer(self.engine, self.progress.head)
        counts, problems = [], []
        # What is new first, at the daemon's priority; then a batch of what is behind, and
        # of each space catching up, on the niced thread (its pulls' pages and its checks:
        # ../../niced.py), this one waiting for it; not handed over when nothing is behind
        # (a hop to a thread of low priority waits for a core on a busy machine).
        done = [pull(self.engine, self.capture, link)]
        conn = self.engine.reader()
        behind = [
            functools.partial(catch_up, self.engine, self.capture, link, space)
            for space in rows.catching_up(conn)
        ]
        if rows.backlog(conn) is not None:
            behind.insert(0, functools.partial(backlog, self.engine, self.capture, link))
        done += [self._low.run(step) for step in behind]
        for n, refused in done:
            counts.append(n)
            problems += refused
        self.progress.head = link.head()
        self.progress.last_pull = self.engine.clock.now_iso()
        self.progress.applied += sum(counts) - len(problems)
        if problems:
            self.progress.refused += len(problems)
            for why in problems:
                log.warning("hub: %s", why)
            self._failed(problems[-1])
        # More after a full batch of what is new; and while a backlog or a catch-up
        # brought anything (its batches are cut at its end, and it goes only once a
        # pull of it comes back empty: not after an idle wait).
        return counts[0] == BATCH or any(counts[1:])

    def _failed(self, why: str) -> None:
        link_broke = not why.startswith("hub row")  # not a row: the link; connect anew
        if link_broke:
            self.progress.connected = False  # before the error shows: status reads both
            self._close()
        self.progress.last_error_at = self.engine.clock.now_iso()
        self.progress.last_error = why
        if rows.get(self.engine.reader(), "last_error") == why:
            return  # retried every BACKOFF_MAX while offline: not a write each time
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


def prune(engine: Engine) -> int:
    """Forget the applied change ids no pull can bring again, and the versions kept of
    settled conflicts; how many rows went. A pull brings rows after the cursor, the
    backlog rows after its position, a space's catch-up that space's rows up to the
    cursor; so the ids of a space joined and caught up, applied from positions at or
    below both the cursor and the backlog's, can never come again by those. (A space not
    joined here has its rows pulled, the role reads it, and passed over: converge.prepare;
    ids of one applied before m027 are kept.) The position pruned to is kept per space,
    and a row at or below it is skipped as applied (converge.py), whatever brings it (a
    cursor put back by hand, a bug): pruning never applies a change twice."""

    def job(tx: Tx) -> int:
        conn = tx.conn
        horizon = int(rows.get(conn, "cursor") or 0)
        pending = rows.backlog(conn)
        if pending is not None:
            horizon = min(horizon, pending[0])
        catching = rows.catching_up(conn)
        gone = sum(
            rows.prune_applied(conn, space, horizon)
            for space in rows.spaces(conn)
            if space not in catching
        )
        return gone + rows.prune_conflicts(conn)

    return engine.write(job)


def defer(engine: Engine, head: int) -> None:
    """More than a batch behind the hub's `head` (the last round's): all but the last
    batch up to it becomes the backlog (joined to one already there), and the cursor
    moves past it. So the ordinary pull brings the newest batch and anything made since
    first, and a new change waits behind one batch of the backlog at most, not behind
    all of it (the convergence rule does not depend on the order of arrival:
    converge.py). A backlog joined to an earlier one re-reads what was applied after
    that one's end: skipped by change id."""
    if head - int(rows.get(engine.reader(), "cursor") or 0) <= BATCH:
        return

    def job(tx: Tx) -> None:
        cursor = int(rows.get(tx.conn, "cursor") or 0)
        if head - cursor <= BATCH:
            return
        pending = rows.backlog(tx.conn)
        rows.put(tx.conn, rows.BACKLOG, str(pending[0] if pending else cursor))
        rows.put(tx.conn, rows.BACKLOG_END, str(head - BATCH))
        rows.put(tx.conn, "cursor", str(head - BATCH))

    engine.write(job)


def backlog(engine: Engine, capture: Capture, link: HubLink) -> tuple[int, list[str]]:
    """One batch of the backlog, oldest first: (rows pulled, what was refused). It goes
    once read to its end."""
    pending = rows.backlog(engine.reader())
    if pending is None:
        return 0, []
    after, end = pending
    return _behind(engine, capture, link, rows.BACKLOG, after, end, None, rows.drop_backlog)


def fix_catch_ups(engine: Engine) -> None:
    """The parts of the log each space just joined must catch up, fixed before a round
    pulls anything: the rows the cursor and the backlog passed so far (while the space
    was not ours to see), that is up to the cursor less what the backlog has still to
    read, which it reads with the space in view. The join recorded the space after the
    hub showed it to this role, so every pull from here on sees its rows: a row is
    pulled once, by the catch-up or by the pull and the backlog. (The catch-up read
    up to the cursor as it moved, and so the whole backlog over again: every row of a
    first sync was pulled and checked twice.)"""
    conn = engine.reader()
    if all(rows.catch_up_spans(conn, s) is not None for s in rows.catching_up(conn)):
        return

    def job(tx: Tx) -> None:
        cursor = int(rows.get(tx.conn, "cursor") or 0)
        pending = rows.backlog(tx.conn)
        passed = [(0, pending[0]), (pending[1], cursor)] if pending else [(0, cursor)]
        for space in rows.catching_up(tx.conn):
            if rows.catch_up_spans(tx.conn, space) is None:
                spans = [(a, b) for a, b in passed if a < b]
                if spans:
                    rows.set_catch_up_spans(tx.conn, space, spans)
                else:  # nothing passed yet: the pulls to come bring it all
                    rows.drop_catch_up(tx.conn, space)

    engine.write(job)


def catch_up(engine: Engine, capture: Capture, link: HubLink, space: str) -> tuple[int, list[str]]:
    """One batch of a space just joined, from its catch-up position on through its
    spans (`fix_catch_ups`): (rows pulled, what was refused). It goes once past the
    last span; a space joined during this round waits for the next one's spans."""
    conn = engine.reader()
    key = rows.CATCHUP + space
    after = int(rows.get(conn, key) or 0)
    spans = rows.catch_up_spans(conn, space)
    if spans is None:
        return 0, []
    for lo, hi in spans:
        if hi > after:
            last = (lo, hi) == spans[-1]

            def done(c: apsw.Connection, hi: int = hi, last: bool = last) -> None:
                if last:
                    rows.drop_catch_up(c, space)
                else:
                    rows.put(c, key, str(hi))  # on to the next span

            return _behind(engine, capture, link, key, max(after, lo), hi, space, done)
    engine.write(lambda tx: rows.drop_catch_up(tx.conn, space))
    return 0, []


def _behind(
    engine: Engine,
    capture: Capture,
    link: HubLink,
    key: str,
    after: int,
    upto: int,
    space: str | None,
    done: Callable[[apsw.Connection], None],
) -> tuple[int, list[str]]:
    """One batch of the rows in (after, upto], of `space` or all, applied with `key`
    moved past them; `done` once none is left."""
    pulled: list[Pulled | Rejected] = []
    # In pages of a slice, each after stepping aside for a request being served (MOST
    # seconds at most for the batch: a client polling recall must not hold back what
    # is new behind it): what is behind can wait, and reading a whole batch at once held
    # the interpreter ~20 ms (psycopg's rows, each checked into a Change) while a recall
    # waited for it. No page asks more than (after, upto] can hold: near its end it would
    # bring rows past it, pulled for nothing.
    pause = traffic.budget(BATCH)
    with traffic.quick_switches():  # psycopg's reading of a page is Python too
        while (limit := min(converge.SLICE, BATCH - len(pulled), upto - after)) > 0:
            pause()
            page = link.pull(after, limit, space)
            pulled += [r for r in page if r.seq <= upto]
            if len(page) < limit or page[-1].seq >= upto:
                break  # the end of what there is, or of (after, upto]
            after = page[-1].seq
    if not pulled:
        engine.write(lambda tx: done(tx.conn))
        return 0, []
    return len(pulled), converge.apply_pulled(engine, capture, pulled, key)

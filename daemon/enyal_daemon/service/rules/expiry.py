"""Memories with a time to live (`ttl` on remember and update, `expires_at` on entries).

An expired entry is gone at once for every reader: before a verb runs, the daemon
compares the earliest expiry it knows with the clock (one string comparison) and,
when one is due, deletes what expired in one write, as `forget --hard` would
(entry, vector, text index, links, history). So no query needs an "and not
expired" clause, and nothing expired is ever returned, counted or exported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from enyal_protocol.wire import MAX_TTL_DAYS

from ...errors import InvalidValue
from ...store import entries
from ...store.rows import EntryRow
from ...store.writer import Tx
from .clock import to_iso

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def expires_at(ttl: str, now: datetime) -> str | None:
    """The instant a TTL ("30m", "7d", "never") ends; None for never. The wire type has
    already checked the shape."""
    if ttl == "never":
        return None
    seconds = int(ttl[:-1]) * UNIT_SECONDS[ttl[-1]]
    if seconds == 0:  # gone before anyone could read it: a typo, never what was meant
        raise InvalidValue(f"ttl {ttl} is no time at all: give at least 1s (or never)")
    if seconds > MAX_TTL_DAYS * 86400:
        raise InvalidValue(f"ttl {ttl} is longer than {MAX_TTL_DAYS} days; use never")
    return to_iso(now + timedelta(seconds=seconds))


class Expiry:
    """The earliest expiry in the store, kept in memory so checking it costs nothing."""

    def __init__(self, earliest: str | None) -> None:
        self._lock = threading.Lock()
        self._earliest = earliest

    def note(self, when: str | None) -> None:
        """A write set an expiry (call after it committed)."""
        if when is None:
            return
        with self._lock:
            if self._earliest is None or when < self._earliest:
                self._earliest = when

    def due(self, now: str) -> bool:
        earliest = self._earliest
        return earliest is not None and earliest <= now

    def reset(self, earliest: str | None) -> None:
        with self._lock:
            self._earliest = earliest


def sweep(tx: Tx, now: str, before_delete: Callable[[EntryRow], None]) -> list[EntryRow]:
    """Delete every expired entry on this transaction, calling `before_delete` with each
    first (while its edges can still be read); returns them as they were."""
    gone = entries.expired(tx.conn, now)
    for row in gone:
        before_delete(row)
        entries.delete(tx.conn, row.rid)
    return gone

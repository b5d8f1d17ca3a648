"""What a resent request is answered: the first run's result, not a second run.

A client resends a request when the connection drops before the reply arrives
(client/enyal_client/transport.py), and cannot tell whether the request ran. Reads may
simply run again (wire.Method.idempotent); every other request carries a key of the
client's (`enyal_key`), and the daemon keeps, for a while, what it answered under each
key. A resend that arrives while the first run is still going waits for that run.

Kept in memory: a daemon that dies between committing a write and answering it forgets
the key, and a resend to its successor runs again. A daemon stopping cleanly finishes
and answers what it accepted, so this is a crash, not an idle exit or a restart.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

MAX_KEYS = 1024  # answers kept; write results are small (ids, counts)
KEEP_SECONDS = 600.0  # a client resends within seconds; ten minutes is ample


class Replies:
    """Results by (method, key), the oldest dropped first; runs on the event loop only."""

    def __init__(self, max_keys: int = MAX_KEYS, keep_seconds: float = KEEP_SECONDS) -> None:
        self._max = max_keys
        self._keep = keep_seconds
        self._runs: OrderedDict[tuple[str, str], tuple[float, asyncio.Future[Any]]] = OrderedDict()

    async def once(self, method: str, key: str, run: Callable[[], Awaitable[Any]]) -> Any:
        """`run()`'s result, or the result the first request under this key got. A run that
        failed is not kept: its request changed nothing, so a resend runs afresh."""
        now = time.monotonic()
        self._expire(now)
        slot = (method, key)
        kept = self._runs.get(slot)
        if kept is None:
            # A task of its own: the run finishes (and is kept) even if the connection that
            # asked for it goes away, which is when the resend comes.
            fut: asyncio.Future[Any] = asyncio.ensure_future(run())
            self._runs[slot] = (now, fut)
            fut.add_done_callback(lambda f: self._forget_failed(slot, f))
        else:
            fut = kept[1]
        return await asyncio.shield(fut)

    def _forget_failed(self, slot: tuple[str, str], fut: asyncio.Future[Any]) -> None:
        if fut.cancelled() or fut.exception() is not None:
            kept = self._runs.get(slot)
            if kept is not None and kept[1] is fut:
                del self._runs[slot]

    def _expire(self, now: float) -> None:
        """Drop answers past their time, and the oldest beyond MAX_KEYS; a run still going
        is kept until it answers (at most one per request in flight)."""
        for slot, (since, fut) in list(self._runs.items()):
            if len(self._runs) < self._max and now - since < self._keep:
                return
            if fut.done():
                del self._runs[slot]

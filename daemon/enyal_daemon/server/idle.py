"""Exiting when nobody needs us: a daemon started on demand (by a client, or by a
service manager's socket) stops after `timeout` seconds without an open connection.

Idle means no connection at all, not merely no request: an MCP session keeps its
connection open between tool calls and must not find the daemon gone mid-session.
A connection that never sent a request (refused, or silent until the daemon closed it)
is no activity: it delays the exit while open, and does not restart the countdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger("enyal.daemon")

GRACE_SECONDS = 0.2


class IdleWatch:
    def __init__(self, timeout: float, before_exit: Callable[[], None] | None = None) -> None:
        self.timeout = timeout
        self.open = 0
        self.last_active = time.monotonic()
        self._before_exit = before_exit

    async def track(self, served: Awaitable[bool]) -> None:
        """Wrap one connection's handler: counted open until it returns, and active if it
        returns True (the connection sent a request) or fails."""
        self.open += 1
        used = True
        try:
            used = await served
        finally:
            self.open -= 1
            if used:
                self.last_active = time.monotonic()

    def _idle_for(self) -> float:
        return 0.0 if self.open else time.monotonic() - self.last_active

    async def run(self, stop: asyncio.Event) -> None:
        """Set `stop` once idle for `timeout` seconds; return when `stop` is set either way."""
        if self.timeout <= 0:
            return
        while not stop.is_set():
            left = self.timeout - self._idle_for()
            if left <= 0:
                log.info(
                    "idle: no connection for %gs; exiting (the next client, or the service "
                    "manager's socket, starts a daemon again)",
                    self.timeout,
                )
                if self._before_exit is not None:
                    # e.g. unlink the socket: new clients then start a successor instead
                    # of connecting to a daemon that is about to close.
                    self._before_exit()
                    # A client that connected just before is still accepted and gets its
                    # request in; run() then answers what is in flight before closing.
                    await asyncio.sleep(GRACE_SECONDS)
                stop.set()
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(left, 0.05))

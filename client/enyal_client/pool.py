"""Connections to the daemon for a client with several calls in flight (the MCP shim,
the web view): a Connection carries one call at a time, so each call borrows one, and
gives it back when it is still sound. At most KEEP wait idle; more are closed.

When a borrowed connection turns out dead (the daemon restarted, or is stopping and
said so) the call reconnects, starting a daemon if none answers, and is sent once more
under the key it was first sent with (transport.request_key): a daemon that already ran
it answers with that run's result instead of running it again. A daemon that cannot be
reached at all is reported at once, not tried twice.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import Any

import msgspec

from enyal_protocol import wire as p

from .transport import Connection, DaemonUnavailable, RpcError, connect, request_key

log = logging.getLogger(__name__)

KEEP = 4

# What a connection to a daemon that went away raises: EOF, a reset or broken pipe,
# or a response cut off mid-line.
_DEAD = (DaemonUnavailable, OSError, msgspec.DecodeError)


class _Retry(Exception):
    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class Pool:
    """`connector`: a new Connection (by default transport.connect without its own
    retry: this pool retries, on a fresh connection)."""

    def __init__(self, connector: Callable[[], Connection] | None = None) -> None:
        self._connect = connector or functools.partial(connect, retry=False)
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    def call_raw(self, method: str, params: Any) -> bytes:
        """The raw JSON result. Raises RpcError for the daemon's own errors, and
        ClientError or OSError when no daemon can be reached."""
        key = request_key(method)
        try:
            return self._call_on(self._borrow(), method, params, key)
        except _Retry as exc:
            log.info("reconnecting to the daemon for %s: %s", method, exc)
        try:
            return self._call_on(self._open(), method, params, key)
        except _Retry as exc:
            if isinstance(exc.cause, msgspec.DecodeError):
                raise DaemonUnavailable(f"garbled response from the daemon: {exc.cause}") from None
            raise exc.cause from None

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _call_on(self, conn: Connection, method: str, params: Any, key: str | None) -> bytes:
        """One attempt; the connection goes back to the pool only if it is still sound."""
        try:
            result = conn.call_raw(method, params, key)
        except RpcError as exc:
            if exc.code == p.SHUTTING_DOWN:  # the daemon asks to be retried on its successor
                conn.close()
                raise _Retry(exc) from exc
            self._give_back(conn)
            raise
        except _DEAD as exc:
            conn.close()
            raise _Retry(exc) from exc
        except BaseException:
            conn.close()  # its state is unknown: never lend it again
            raise
        self._give_back(conn)
        return result

    def _borrow(self) -> Connection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return self._open()

    def _open(self) -> Connection:
        """Reached now, so that no daemon to reach is an error of its own, not a retry."""
        conn = self._connect()
        conn.open()
        log.info("connected to the daemon")
        return conn

    def _give_back(self, conn: Connection) -> None:
        with self._lock:
            if len(self._idle) < KEEP:
                self._idle.append(conn)
                return
        conn.close()

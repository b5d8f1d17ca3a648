"""The shim's ear on the daemon: one connection of its own, subscribed, read on a thread.

Two subscriptions on it: the project's memories (whose creations and forgets change
the resource list, and which update the fixed resources) and every memory (a client
may subscribe to any memory's URI; the server picks the ones it asked for). When the
daemon goes away (a restart), the thread connects again, subscribes again and
reports a resync: changes made meanwhile were not heard.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Literal

import msgspec

from enyal_protocol import wire as p

from ..transport import ClientError, Connection, connect

log = logging.getLogger(__name__)

# (change, whether it came on the project's subscription or on the one for every memory)
OnChange = Callable[[p.Change, bool], None]
RECONNECT_MAX_SECONDS = 5.0

_decode_change = msgspec.json.Decoder(p.Change).decode


class DaemonWatch:
    def __init__(
        self,
        on_change: OnChange,
        on_resync: Callable[[], None],
        cwd: str,
        opener: Callable[[], Connection] | None = None,
    ) -> None:
        self._on_change = on_change
        self._on_resync = on_resync
        self._cwd = cwd
        # Its own connection, not the pool's: it stays subscribed; the thread reconnects.
        self._open = opener or functools.partial(connect, retry=False)
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._project = ""  # the project subscription's id on the current connection
        self._thread: threading.Thread | None = None
        self._closed = False

    def start(self) -> None:
        """Subscribed once this returns (a change committed after it is heard); raises
        ClientError or OSError when no daemon can be reached."""
        with self._lock:
            if self._thread is not None:
                return
            conn = self._subscribe()
            self._thread = threading.Thread(
                target=self._run, args=(conn,), name="enyal-mcp-watch", daemon=True
            )
            self._thread.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conn = self._conn
        if conn is not None:
            conn.close()  # wakes the thread blocked reading it

    # --- the connection ------------------------------------------------------------------

    def _subscribe(self) -> Connection:
        conn = self._open()
        # A change between the two subscriptions is heard while waiting for the second.
        conn.on_notification = self._dispatch
        try:
            first = p.SubscribeParams(scope="project", cwd=self._cwd)
            self._project = conn.call("subscribe", first, p.SubscribeResult).subscription
            conn.call("subscribe", p.SubscribeParams(), p.SubscribeResult)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _dispatch(self, method: str, params: bytes) -> None:
        if method == p.CHANGED:
            change = _decode_change(params)
            self._on_change(change, change.subscription == self._project)
        elif method == p.RESYNC:
            self._on_resync()

    def _again(self) -> Connection | Literal[False] | None:
        """Subscribed anew; False once closed; None when no daemon answers yet."""
        with self._lock:
            if self._closed:
                return False
            try:
                return self._subscribe()
            except (ClientError, OSError) as exc:
                log.info("no daemon to hear changes from (%s); retrying", exc)
                return None

    def _listen(self, conn: Connection) -> None:
        """Until the daemon hangs up (or close() ends the connection)."""
        for method, params in conn.notifications(garbled=_ignore):
            try:
                self._dispatch(method, params)
            except msgspec.DecodeError:
                _ignore(params)

    def _run(self, conn: Connection) -> None:
        wait = 0.2
        while True:
            # ValueError: read after close() from another thread closed the file.
            with contextlib.suppress(OSError, ValueError):
                self._listen(conn)
            conn.close()
            while (again := self._again()) is None:
                time.sleep(wait)
                wait = min(wait * 2, RECONNECT_MAX_SECONDS)
            if again is False:
                return
            conn = again
            wait = 0.2
            log.info("listening to the daemon again; changes meanwhile were missed")
            self._on_resync()


def _ignore(line: bytes) -> None:
    log.warning("ignoring a garbled line from the daemon")

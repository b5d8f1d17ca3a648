"""The shim's ear on the daemon: one connection of its own, subscribed, read on a thread.

Two subscriptions on it: the project's memories (whose creations and forgets change
the resource list, and which update the fixed resources) and every memory (a client
may subscribe to any memory's URI; the server picks the ones it asked for). When the
daemon goes away (a restart), the thread connects again, subscribes again and
reports a resync: changes made meanwhile were not heard.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import IO, Literal

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.paths import resolve

from ..transport import ClientError, DaemonUnavailable, RpcError, open_socket

log = logging.getLogger(__name__)

# (change, whether it came on the project's subscription or on the one for every memory)
OnChange = Callable[[p.Change, bool], None]
RECONNECT_MAX_SECONDS = 5.0


class _Envelope(msgspec.Struct):
    """A line from the daemon: a response (id) or a notification (method)."""

    id: p.RequestId | msgspec.UnsetType = msgspec.UNSET
    method: str | msgspec.UnsetType = msgspec.UNSET
    params: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: p.ErrorObject | msgspec.UnsetType = msgspec.UNSET


_decode_line = msgspec.json.Decoder(_Envelope).decode
_decode_change = msgspec.json.Decoder(p.Change).decode
_decode_subscribed = msgspec.json.Decoder(p.SubscribeResult).decode
_encoder = msgspec.json.Encoder()


class DaemonWatch:
    def __init__(
        self,
        on_change: OnChange,
        on_resync: Callable[[], None],
        cwd: str,
        opener: Callable[[], socket.socket] | None = None,
    ) -> None:
        self._on_change = on_change
        self._on_resync = on_resync
        self._cwd = cwd
        self._open = opener or (lambda: open_socket(resolve(), autostart=True))
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._project = ""  # the project subscription's id on the current connection
        self._thread: threading.Thread | None = None
        self._closed = False

    def start(self) -> None:
        """Subscribed once this returns (a change committed after it is heard); raises
        ClientError or OSError when no daemon can be reached."""
        with self._lock:
            if self._thread is not None:
                return
            sock, lines = self._subscribe()
            self._thread = threading.Thread(
                target=self._run, args=(sock, lines), name="enyal-mcp-watch", daemon=True
            )
            self._thread.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):  # wakes the thread blocked reading it
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    # --- the connection ------------------------------------------------------------------

    def _subscribe(self) -> tuple[socket.socket, IO[bytes]]:
        sock = self._open()
        lines = sock.makefile("rb")
        try:
            first = p.SubscribeParams(scope="project", cwd=self._cwd)
            self._project = self._request(sock, lines, 1, first).subscription
            self._request(sock, lines, 2, p.SubscribeParams())
        except BaseException:
            lines.close()
            sock.close()
            raise
        self._sock = sock
        return sock, lines

    def _request(
        self, sock: socket.socket, lines: IO[bytes], req_id: int, params: p.SubscribeParams
    ) -> p.SubscribeResult:
        body = msgspec.Raw(_encoder.encode(params))
        req = p.Request(jsonrpc="2.0", method="subscribe", params=body, id=req_id)
        if req_id == 1:  # a daemon of another release refuses it instead of running it
            req.enyal_expect = p.Expect(version=__version__, protocol=p.PROTOCOL_VERSION)
        sock.sendall(_encoder.encode(req) + b"\n")
        while True:
            line = lines.readline(p.MAX_FRAME_BYTES + 1)
            if not line:
                raise DaemonUnavailable("the daemon closed the connection")
            msg = _decode_line(line)
            if msg.id == req_id:
                if not isinstance(msg.error, msgspec.UnsetType):
                    raise RpcError(msg.error.code, msg.error.message, msg.error.data)
                assert not isinstance(msg.result, msgspec.UnsetType)
                return _decode_subscribed(msg.result)
            self._dispatch(msg)

    def _dispatch(self, msg: _Envelope) -> None:
        if isinstance(msg.params, msgspec.UnsetType):
            return
        if msg.method == p.CHANGED:
            change = _decode_change(msg.params)
            self._on_change(change, change.subscription == self._project)
        elif msg.method == p.RESYNC:
            self._on_resync()

    def _again(self) -> tuple[socket.socket, IO[bytes]] | Literal[False] | None:
        """Subscribed anew; False once closed; None when no daemon answers yet."""
        with self._lock:
            if self._closed:
                return False
            try:
                return self._subscribe()
            except (ClientError, OSError) as exc:
                log.info("no daemon to hear changes from (%s); retrying", exc)
                return None

    def _listen(self, lines: IO[bytes]) -> None:
        """Until the daemon hangs up (or close() shuts the socket)."""
        while line := lines.readline(p.MAX_FRAME_BYTES + 1):
            try:
                self._dispatch(_decode_line(line))
            except msgspec.DecodeError:
                log.warning("ignoring a garbled line from the daemon")

    def _run(self, sock: socket.socket, lines: IO[bytes]) -> None:
        wait = 0.2
        while True:
            with contextlib.suppress(OSError):
                self._listen(lines)
            lines.close()
            sock.close()
            while (again := self._again()) is None:
                time.sleep(wait)
                wait = min(wait * 2, RECONNECT_MAX_SECONDS)
            if again is False:
                return
            sock, lines = again
            wait = 0.2
            log.info("listening to the daemon again; changes meanwhile were missed")
            self._on_resync()

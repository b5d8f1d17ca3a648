"""A reply lost after the write committed (issue 25.9): the client sends the request once
more, and the daemon must not run it twice. Between the client and the real daemon sits
a real Unix-socket proxy that forwards every byte but drops the connection instead of
passing on the first reply to a chosen method."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

from conftest import DaemonProc
from enyal_client import transport
from enyal_client.mcp.daemon_link import DaemonLink
from enyal_protocol import wire as p


class DroppingProxy:
    """Listens on `path`, forwards each connection to the daemon's socket; the first reply
    to a request for `method` is swallowed and both ends are closed, as a crash of the
    path between them would."""

    def __init__(self, path: Path, upstream: Path, method: str) -> None:
        self.path, self.upstream, self.method = path, upstream, method
        self.dropped = 0
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        daemon = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        daemon.connect(str(self.upstream))
        requests, replies = client.makefile("rb"), daemon.makefile("rb")
        with contextlib.ExitStack() as stack:
            for closable in (client, daemon, requests, replies):
                stack.callback(closable.close)
            while line := requests.readline():
                daemon.sendall(line)
                reply = replies.readline()
                if self.dropped == 0 and f'"method":"{self.method}"'.encode() in line:
                    self.dropped += 1
                    client.shutdown(socket.SHUT_RDWR)  # the write committed; its answer is lost
                    return
                client.sendall(reply)

    def connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(self.path))
        return sock

    def close(self) -> None:
        self._server.close()


@contextlib.contextmanager
def proxy(daemon: DaemonProc, tmp_path: Path, method: str) -> Iterator[DroppingProxy]:
    px = DroppingProxy(tmp_path / "proxy.sock", daemon.paths.socket, method)
    try:
        yield px
    finally:
        px.close()


def logged_lines(daemon: DaemonProc, project: Path) -> list[str]:
    return [line[8:] for line in daemon.call("log_show", {"cwd": str(project)})["lines"]]


def test_a_resent_log_append_lands_once(daemon: DaemonProc, project: Path, tmp_path: Path) -> None:
    with proxy(daemon, tmp_path, "log_append") as px:
        conn = transport.Connection(px.connect(), reopen=px.connect)
        try:
            res = conn.call("log_append", {"text": "Shipped the parser", "cwd": str(project)})
        finally:
            conn.close()
    assert px.dropped == 1, "the proxy lost the first reply"
    assert res["line"].endswith(" Shipped the parser")
    assert logged_lines(daemon, project) == ["Shipped the parser"]


def test_the_mcp_shims_resend_lands_once(daemon: DaemonProc, project: Path, tmp_path: Path) -> None:
    with proxy(daemon, tmp_path, "log_append") as px:
        link = DaemonLink(lambda: transport.Connection(px.connect()))
        try:
            link.call("log_append", p.LogAppendParams(text="Merged the fix", cwd=str(project)))
        finally:
            link.close()
    assert px.dropped == 1
    assert logged_lines(daemon, project) == ["Merged the fix"]


def test_a_read_is_resent_without_a_key_and_a_write_with_one() -> None:
    """Reads may simply run again; everything else carries the key that makes a resend
    answer the first run's result (the method table says which is which)."""
    assert p.METHODS["recall"].idempotent and p.METHODS["log_show"].idempotent
    assert not p.METHODS["log_append"].idempotent and not p.METHODS["brief"].idempotent

"""Talking to the daemon: one Unix socket, newline-delimited JSON-RPC 2.0.

If nobody answers, the client starts the daemon itself: under an exclusive lock
on spawn.lock it tries once more (another client may have just started one),
and only then spawns `python -m enyal_daemon` in a new session, logging to the
log dir, and waits for the socket. Many clients starting at once make one daemon.
A daemon started this way exits after daemon.idle_timeout without a connection.

Every new connection checks the daemon's version against the client's (one `status`
call): after an upgrade the old daemon keeps running until restarted, and a client
talking to it is told so (VersionMismatch) rather than failing in odd ways.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.exits import EXIT_ALREADY_RUNNING
from enyal_protocol.paths import Paths, ensure_private_dir, resolve

if TYPE_CHECKING:
    import subprocess

SPAWN_WAIT_SECONDS = 60.0


class ClientError(Exception):
    """Base of what a client can raise."""


class DaemonUnavailable(ClientError):
    """No daemon answers and none could be started."""


class VersionMismatch(ClientError):
    """The daemon answering is another version of Enyal than this client."""


class RpcError(ClientError):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return self.message


_encoder = msgspec.json.Encoder()
_response_decoder = msgspec.json.Decoder(p.Response)


class Connection:
    """One socket to the daemon; calls are sequential on it."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._file = sock.makefile("rb")
        self._ids = itertools.count(1)

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def call_raw(self, method: str, params: Any) -> bytes:
        """Send one request, return the result's raw JSON; raise RpcError on an error object."""
        req_id = next(self._ids)
        body = params if isinstance(params, msgspec.Raw) else msgspec.Raw(_encoder.encode(params))
        frame = _encoder.encode(p.Request(jsonrpc="2.0", method=method, params=body, id=req_id))
        self._sock.sendall(frame + b"\n")
        line = self._file.readline(p.MAX_FRAME_BYTES * 64)
        if not line:
            raise DaemonUnavailable("the daemon closed the connection")
        resp = _response_decoder.decode(line)
        if not isinstance(resp.error, msgspec.UnsetType):
            raise RpcError(resp.error.code, resp.error.message, resp.error.data)
        if isinstance(resp.result, msgspec.UnsetType):
            raise ClientError("the daemon sent a response with neither result nor error")
        return bytes(resp.result)

    def call(self, method: str, params: Any, result_type: Any = Any) -> Any:
        return msgspec.json.decode(self.call_raw(method, params), type=result_type)


def try_connect(path: os.PathLike[str] | str, timeout: float | None = None) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError:
        sock.close()
        raise
    return sock


def spawn_daemon(paths: Paths) -> subprocess.Popen[bytes]:
    import subprocess  # only here: most client runs find the daemon up

    from enyal_protocol.config import ConfigError, load

    try:
        idle = load(paths).idle_timeout
    except ConfigError as exc:
        raise DaemonUnavailable(f"cannot start the daemon: {exc}") from None
    paths.log_dir.mkdir(parents=True, exist_ok=True)
    log = (paths.log_dir / "spawn.log").open("ab")
    with log:
        return subprocess.Popen(
            [sys.executable, "-m", "enyal_daemon", "--log-file", "--idle-timeout", str(idle)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )


@contextlib.contextmanager
def _spawn_lock(paths: Paths) -> Iterator[None]:
    ensure_private_dir(paths.runtime_dir)
    with paths.spawn_lock.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def check_version(conn: Connection) -> None:
    """Raise VersionMismatch unless the daemon is this client's version."""
    status = conn.call("status", {})
    version, protocol = status.get("version"), status.get("protocol")
    if version != __version__ or protocol != p.PROTOCOL_VERSION:
        raise VersionMismatch(
            f"this client is enyal {__version__} (protocol {p.PROTOCOL_VERSION}) but the daemon "
            f"(pid {status.get('pid')}) runs enyal {version} (protocol {protocol}); "
            "run `enyal daemon restart` to start the installed version"
        )


def connect(
    paths: Paths | None = None, *, autostart: bool = True, check: bool = True
) -> Connection:
    paths = paths or resolve()
    sock = try_connect(paths.socket)
    if sock is None:
        if not autostart:
            raise DaemonUnavailable(f"no daemon answers on {paths.socket}")
        with _spawn_lock(paths):
            sock = try_connect(paths.socket)
            if sock is None:
                spawn_log = paths.log_dir / "spawn.log"
                offset = spawn_log.stat().st_size if spawn_log.exists() else 0
                proc = spawn_daemon(paths)
                sock = _wait_for_socket(paths, proc, offset)
                # Reap the daemon when it exits (idle timeout, restart) so that a long-lived
                # client such as the MCP shim does not keep a zombie.
                threading.Thread(target=proc.wait, name="enyal-reaper", daemon=True).start()
    conn = Connection(sock)
    if check:
        try:
            check_version(conn)
        except BaseException:
            conn.close()
            raise
    return conn


def _why_it_exited(paths: Paths, offset: int) -> str:
    """The last line the spawned daemon wrote to spawn.log (its stderr): with --log-file
    it prints there the one-line reason it could not start."""
    try:
        with (paths.log_dir / "spawn.log").open("rb") as f:
            f.seek(offset)
            lines = [x.strip() for x in f.read().decode(errors="replace").splitlines()]
    except OSError:
        return ""
    lines = [x for x in lines if x]
    return f": {lines[-1]}" if lines else ""


def _wait_for_socket(
    paths: Paths, proc: subprocess.Popen[bytes], log_offset: int = 0
) -> socket.socket:
    deadline = time.monotonic() + SPAWN_WAIT_SECONDS
    delay = 0.01
    while time.monotonic() < deadline:
        sock = try_connect(paths.socket)
        if sock is not None:
            return sock
        code = proc.poll()
        if code is not None and code != EXIT_ALREADY_RUNNING:
            raise DaemonUnavailable(
                f"the daemon exited with status {code} while starting"
                f"{_why_it_exited(paths, log_offset)} (logs: {paths.log_file},"
                f" {paths.log_dir / 'spawn.log'})"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    raise DaemonUnavailable(
        f"the daemon did not open {paths.socket} within {SPAWN_WAIT_SECONDS:.0f}s"
    )

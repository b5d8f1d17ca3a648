"""Talking to the daemon: one Unix socket, newline-delimited JSON-RPC 2.0.

If nobody answers, the client starts the daemon itself: under an exclusive lock
on spawn.lock it tries once more (another client may have just started one),
and only then spawns `python -m enyal_daemon` in a new session, logging to the
log dir, and waits for the socket. Many clients starting at once make one daemon.
A daemon started this way exits after daemon.idle_timeout without a connection.

Every new connection checks the daemon's version against the client's: its first
request carries the release it expects (`enyal_expect`), and a daemon of another one
refuses it without running it. After an upgrade the old daemon keeps running until
restarted, and a client talking to it is told so (VersionMismatch) rather than failing
in odd ways; the check costs no round trip of its own.

A daemon that closes the connection before answering (it stops taking requests in the
moment it exits after idling, or it was restarted, or the reply was lost) is reached
again, or started, and the request is sent once more. A request that is not safe to run
twice carries a key, the same on both tries: a daemon that ran it answers the resend
with the first result instead of running it again (server/replies.py). A daemon serving
this database from another runtime folder (another XDG_RUNTIME_DIR) is found through the
database's lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.exits import EXIT_ALREADY_RUNNING
from enyal_protocol.paths import WHAT_TO_DO, Paths, check_socket, ensure_private_dir, resolve
from enyal_protocol.peercred import peer_uid
from enyal_protocol.private import make_private_dirs

if TYPE_CHECKING:
    import subprocess

SPAWN_WAIT_SECONDS = 60.0


class ClientError(Exception):
    """Base of what a client can raise."""


class DaemonUnavailable(ClientError):
    """No daemon answers and none could be started."""


class VersionMismatch(ClientError):
    """The daemon answering is another version of Enyal than this client."""


class UntrustedSocket(ClientError):
    """The socket, its folder or the process listening on it is another user's: nothing
    is sent there (it would read every memory and query, and answer with its own)."""


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
_notification_decoder = msgspec.json.Decoder(p.Request)  # a notification: a request, no id


_EXPECT = p.Expect(version=__version__, protocol=p.PROTOCOL_VERSION)


def _mismatch(data: Any, expect: p.Expect) -> VersionMismatch:
    info = data if isinstance(data, dict) else {}
    theirs = info.get("db")
    if isinstance(theirs, str) and not isinstance(expect.db, msgspec.UnsetType):
        return VersionMismatch(
            f"the daemon answering (pid {info.get('pid')}) serves the database {theirs}, "
            f"not this client's {expect.db}: two data dirs share one socket. Give each its "
            "own ENYAL_SOCKET (or unset it), or stop that daemon (`enyal daemon stop` in its "
            "environment)"
        )
    return VersionMismatch(
        f"this client is enyal {__version__} (protocol {p.PROTOCOL_VERSION}) but the daemon "
        f"(pid {info.get('pid')}) runs enyal {info.get('version')} (protocol "
        f"{info.get('protocol')}); run `enyal daemon restart` to start the installed version"
    )


def request_key(method: str) -> str | None:
    """A fresh key for a request that is not safe to run twice (wire.Method.idempotent),
    sent with each try of it; None for one that is. Unknown methods get one: harmless."""
    known = p.METHODS.get(method)
    return None if known is not None and known.idempotent else os.urandom(16).hex()


class Connection:
    """One socket to the daemon; calls are sequential on it.

    `check`: the first request carries this client's release, for the daemon to refuse
    if it runs another. `reopen`: how to reach a daemon again when this one closes the
    connection without answering (the request is then sent once more)."""

    def __init__(
        self,
        sock: socket.socket,
        *,
        check: bool = False,
        reopen: Callable[[], socket.socket] | None = None,
        db: str | None = None,
    ) -> None:
        """`db`: the database this client resolved; with `check`, a daemon serving
        another one refuses the first request (VersionMismatch)."""
        self._sock = sock
        self._file = sock.makefile("rb")
        self._ids = itertools.count(1)
        self._expect = check
        self._expectation = _EXPECT if db is None else msgspec.structs.replace(_EXPECT, db=db)
        self._reopen = reopen

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def _send(self, method: str, body: msgspec.Raw, key: str | None) -> bytes:
        req = p.Request(jsonrpc="2.0", method=method, params=body, id=next(self._ids))
        if self._expect:
            req.enyal_expect = self._expectation
        if key is not None:
            req.enyal_key = key
        self._sock.sendall(_encoder.encode(req) + b"\n")
        return self._file.readline(p.MAX_FRAME_BYTES * 64)

    def call_raw(self, method: str, params: Any, key: str | None = None) -> bytes:
        """Send one request, return the result's raw JSON; raise RpcError on an error object.
        `key`: the request's name for the daemon to know a resend by (request_key()); made
        here when not given, so the resend below is answered, not run a second time."""
        body = params if isinstance(params, msgspec.Raw) else msgspec.Raw(_encoder.encode(params))
        key = key or request_key(method)
        try:
            line = self._send(method, body, key)
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        if not line and self._reopen is not None:
            self.close()
            self._sock = self._reopen()
            self._file = self._sock.makefile("rb")
            self._reopen = None  # once: a daemon that keeps hanging up is a real failure
            line = self._send(method, body, key)
        if not line:
            raise DaemonUnavailable("the daemon closed the connection")
        resp = _response_decoder.decode(line)
        if not isinstance(resp.error, msgspec.UnsetType):
            if resp.error.code == p.VERSION_MISMATCH and self._expect:
                raise _mismatch(resp.error.data, self._expectation)
            raise RpcError(resp.error.code, resp.error.message, resp.error.data)
        self._expect = False  # one answered request proves the release
        if isinstance(resp.result, msgspec.UnsetType):
            raise ClientError("the daemon sent a response with neither result nor error")
        return bytes(resp.result)

    def call(self, method: str, params: Any, result_type: Any = Any) -> Any:
        return msgspec.json.decode(self.call_raw(method, params), type=result_type)

    def notifications(self) -> Iterator[tuple[str, bytes]]:
        """After a `subscribe` on this connection: each notification the daemon sends, as
        (method, raw params), until it hangs up."""
        while line := self._file.readline(p.MAX_FRAME_BYTES + 1):
            note = _notification_decoder.decode(line)
            if not isinstance(note.params, msgspec.UnsetType):
                yield note.method, bytes(note.params)


def try_connect(path: os.PathLike[str] | str, timeout: float | None = None) -> socket.socket | None:
    """A connection to the daemon at `path`, or None if nothing listens there. Raises
    UntrustedSocket when the socket, its folder or the listening process belongs to
    another user (enyal_protocol/paths.py check_socket, then the peer's credentials)."""
    try:
        if not check_socket(Path(path)):
            return None
    except PermissionError as exc:
        raise UntrustedSocket(str(exc)) from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.fspath(path))
        uid = peer_uid(sock)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError:
        sock.close()
        raise
    if uid is not None and uid != os.getuid():
        sock.close()
        raise UntrustedSocket(
            f"the process listening on {path} runs as uid {uid}, not as this user "
            f"(uid {os.getuid()}); nothing was sent to it. {WHAT_TO_DO[0].upper()}{WHAT_TO_DO[1:]}"
        )
    return sock


def spawn_daemon(paths: Paths) -> subprocess.Popen[bytes]:
    import subprocess  # only here: most client runs find the daemon up

    from enyal_protocol.config import ConfigError, load

    try:
        idle = load(paths).idle_timeout
    except ConfigError as exc:
        raise DaemonUnavailable(f"cannot start the daemon: {exc}") from None
    make_private_dirs(paths.log_dir)  # ENYAL_HOME with it: both hold memories
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


def _owner_socket(paths: Paths) -> socket.socket | None:
    """A connection to the daemon that holds this database's lock, if it serves a socket
    other than ours (it was started from another runtime folder)."""
    from enyal_protocol import ownership

    owner = ownership.current_owner(paths)
    if owner is None or owner.socket == str(paths.socket):
        return None
    sock = try_connect(owner.socket)
    if sock is None:
        raise DaemonUnavailable(
            f"the database {paths.db} is served by enyal daemon pid {owner.pid} on "
            f"{owner.socket}, which does not answer"
        )
    return sock


def open_socket(paths: Paths, autostart: bool) -> socket.socket:
    """A socket to the daemon serving `paths`: ours, the database owner's, or a new one."""
    sock = try_connect(paths.socket) or _owner_socket(paths)
    if sock is not None:
        return sock
    if not autostart:
        raise DaemonUnavailable(f"no daemon answers on {paths.socket}")
    with _spawn_lock(paths):
        sock = try_connect(paths.socket) or _owner_socket(paths)
        if sock is None:
            spawn_log = paths.log_dir / "spawn.log"
            offset = spawn_log.stat().st_size if spawn_log.exists() else 0
            proc = spawn_daemon(paths)
            sock = _wait_for_socket(paths, proc, offset)
            # Reap the daemon when it exits (idle timeout, restart) so that a long-lived
            # client such as the MCP shim does not keep a zombie.
            threading.Thread(target=proc.wait, name="enyal-reaper", daemon=True).start()
    return sock


def connect(
    paths: Paths | None = None,
    *,
    autostart: bool = True,
    check: bool = True,
    retry: bool = True,
) -> Connection:
    """`check`: the first request on the connection checks the daemon's release. `retry`:
    a request the daemon hung up on is sent once more to a daemon reached again (the MCP
    shim turns this off: it pools connections and retries itself)."""
    paths = paths or resolve()
    sock = open_socket(paths, autostart)
    reopen = functools.partial(open_socket, paths, autostart) if retry else None
    return Connection(sock, check=check, reopen=reopen, db=str(paths.db))


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
        if code == EXIT_ALREADY_RUNNING:  # another daemon holds the database: use it
            sock = _owner_socket(paths)
            if sock is not None:
                return sock
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

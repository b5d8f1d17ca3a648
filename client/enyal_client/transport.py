"""Talking to the daemon: one Unix socket, newline-delimited JSON-RPC 2.0. Every client
(the CLI, the MCP shim and its enyal_hook tool, the web view) goes through Connection; the
command hook alone (`enyal hook EVENT`, before every prompt) has hook_rpc.py, which frames
alike (enyal_protocol/framing.py) and opens the socket with the same checks (reach.py)
without importing msgspec. Connection holds the framing,
each response matched to its request, the notifications a subscription brings in between,
the reconnect, and the one mapping from a daemon's error object to what a client raises
(error_of). Calls that check their params first go through params.call; clients with
several calls in flight borrow connections from pool.Pool.

A connection opens at its first request, not when it is made: params refused before
that request (params.py) never reach, or start, a daemon. If nobody answers, the client
starts the daemon itself: under an exclusive lock on spawn.lock it tries once more
(another client may have just started one), and only then spawns `python -m enyal_daemon`
in a new session, logging to the log dir, and waits for the socket. Many clients starting
at once make one daemon. A daemon started this way exits after daemon.idle_timeout without
a connection.

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
import io
import itertools
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.exits import EXIT_ALREADY_RUNNING
from enyal_protocol.framing import DELIMITER, JSONRPC, MAX_LINE
from enyal_protocol.paths import Paths, ensure_private_dir, resolve
from enyal_protocol.private import make_private_dirs

from . import interrupts

# Re-exported: every client imports them from here.
from .reach import ClientError as ClientError
from .reach import DaemonUnavailable as DaemonUnavailable
from .reach import UntrustedSocket as UntrustedSocket
from .reach import try_connect as try_connect

if TYPE_CHECKING:
    import subprocess

    from _typeshed import WriteableBuffer

SPAWN_WAIT_SECONDS = 60.0


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

    @property
    def usage(self) -> bool:
        """Whether the caller asked for something that cannot be (bad params, a value or a
        path the daemon refuses): the CLI's exit 2, not an error of Enyal's."""
        if self.code == p.TOO_LARGE:
            # Content, metadata or a frame over its limit is the caller's input; a
            # connection refused for the daemon's count of them is not.
            return not (isinstance(self.data, dict) and self.data.get("reason") == "connections")
        return self.code in USAGE_CODES


# Daemon errors that mean "you asked for something that cannot be" (RpcError.usage).
USAGE_CODES = frozenset({p.INVALID_PARAMS, p.INVALID_VALUE, p.BAD_PATH})


class _Envelope(msgspec.Struct):
    """A line from the daemon: a response (id, result or error) or a notification (method,
    params, no id)."""

    id: p.RequestId | msgspec.UnsetType = msgspec.UNSET
    method: str | msgspec.UnsetType = msgspec.UNSET
    params: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: p.ErrorObject | msgspec.UnsetType = msgspec.UNSET


_encoder = msgspec.json.Encoder()
_decode_line = msgspec.json.Decoder(_Envelope).decode

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


def error_of(error: p.ErrorObject, expect: p.Expect | None) -> ClientError:
    """The one mapping from a daemon's error object to what a client raises. `expect`:
    what this request asked the daemon to be (its first request), for a refusal of it to
    say which release or database differs."""
    if error.code == p.VERSION_MISMATCH and expect is not None:
        return _mismatch(error.data, expect)
    return RpcError(error.code, error.message, error.data)


Opener = Callable[[], socket.socket]


class _SocketReader(io.RawIOBase):
    """The socket under a connection's buffered reader (socket.makefile's SocketIO, less
    what a connection never does): a read that would block waits for Ctrl-C as well as
    for the daemon (interrupts.wait_readable)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        interrupts.wait_readable(self._sock)
        return self._sock.recv_into(buffer)


def _reader(sock: socket.socket) -> io.BufferedReader:
    return io.BufferedReader(_SocketReader(sock))


class Connection:
    """One connection to the daemon: requests one at a time, answered in order, and the
    notifications its subscriptions bring in between.

    The socket opens at the first request (or `open()`), so params a client refuses cost
    no daemon. `check`: the first request carries this client's release (and `db`, the
    database it resolved) for a daemon of another one to refuse it (VersionMismatch).
    `reopen`: how to reach the daemon; with `retry`, a request the daemon hung up on
    before answering is sent once more on a connection it opens again."""

    def __init__(
        self,
        sock: socket.socket | None = None,
        *,
        check: bool = False,
        reopen: Opener | None = None,
        db: str | None = None,
        retry: bool = True,
    ) -> None:
        if sock is None and reopen is None:
            raise ValueError("a Connection needs a socket or a way to open one")
        self._sock = sock
        self._file = _reader(sock) if sock is not None else None
        self._ids = itertools.count(1)
        self._expect = check
        self._expectation = _EXPECT if db is None else msgspec.structs.replace(_EXPECT, db=db)
        self._reopen = reopen
        self._retry = retry and reopen is not None
        # Notifications read while waiting for a response: handed to this callback if set,
        # else kept for notifications() to yield first.
        self.on_notification: Callable[[str, bytes], None] | None = None
        self._early: list[tuple[str, bytes]] = []

    def open(self) -> None:
        """Reach the daemon now (starting it if the opener does) rather than at the first
        request. Raises DaemonUnavailable, UntrustedSocket or OSError."""
        if self._sock is None:
            assert self._reopen is not None
            self._sock = self._reopen()
            self._file = _reader(self._sock)

    def close(self) -> None:
        """Also from another thread: a reader blocked on this connection sees it end."""
        sock, file = self._sock, self._file
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if file is not None:
            file.close()
        if sock is not None:
            sock.close()

    def _line(self) -> bytes:
        assert self._file is not None
        return self._file.readline(MAX_LINE)

    def _send(self, method: str, body: msgspec.Raw, key: str | None) -> bytes:
        self.open()
        assert self._sock is not None
        req_id = next(self._ids)
        req = p.Request(jsonrpc=JSONRPC, method=method, params=body, id=req_id)
        if self._expect:
            req.enyal_expect = self._expectation
        if key is not None:
            req.enyal_key = key
        self._sock.sendall(_encoder.encode(req) + DELIMITER)
        while line := self._line():
            msg = _decode_line(line)
            if isinstance(msg.id, msgspec.UnsetType) and isinstance(msg.method, str):
                self._heard(msg)
                continue
            return line
        return b""

    def _heard(self, msg: _Envelope) -> None:
        if isinstance(msg.params, msgspec.UnsetType) or not isinstance(msg.method, str):
            return
        note = (msg.method, bytes(msg.params))
        if self.on_notification is not None:
            self.on_notification(*note)
        else:
            self._early.append(note)

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
        if not line and self._retry:
            self.close()
            self._sock = self._file = None
            self._retry = False  # once: a daemon that keeps hanging up is a real failure
            line = self._send(method, body, key)
        if not line:
            raise DaemonUnavailable("the daemon closed the connection")
        resp = _decode_line(line)
        if not isinstance(resp.error, msgspec.UnsetType):
            raise error_of(resp.error, self._expectation if self._expect else None)
        self._expect = False  # one answered request proves the release
        if isinstance(resp.result, msgspec.UnsetType):
            raise ClientError("the daemon sent a response with neither result nor error")
        return bytes(resp.result)

    def call(self, method: str, params: Any, result_type: Any = Any) -> Any:
        return msgspec.json.decode(self.call_raw(method, params), type=result_type)

    def notifications(
        self, garbled: Callable[[bytes], None] | None = None
    ) -> Iterator[tuple[str, bytes]]:
        """After a `subscribe` on this connection: each notification the daemon sends, as
        (method, raw params), until it hangs up (or close() is called). A line that is not
        JSON goes to `garbled` if given (and is skipped), else raises DecodeError."""
        while self._early:
            yield self._early.pop(0)
        while line := self._line():
            try:
                msg = _decode_line(line)
            except msgspec.DecodeError:
                if garbled is None:
                    raise
                garbled(line)
                continue
            if isinstance(msg.method, str) and not isinstance(msg.params, msgspec.UnsetType):
                yield msg.method, bytes(msg.params)


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
    """A connection to the daemon serving `paths`, opened (and the daemon started, with
    `autostart`) at its first request. `check`: that request checks the daemon's release.
    `retry`: a request the daemon hung up on is sent once more to a daemon reached again
    (the pool turns this off: it retries itself, on another connection)."""
    paths = paths or resolve()
    opener = functools.partial(open_socket, paths, autostart)
    return Connection(None, check=check, reopen=opener, db=str(paths.db), retry=retry)


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

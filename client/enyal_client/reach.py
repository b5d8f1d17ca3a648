"""Reaching the daemon's socket, and the errors of a client that cannot: apart from
transport.py so that `enyal hook EVENT` (hook_rpc.py) opens the socket with the same
checks without importing msgspec. transport.py re-exports all of it.

The connection is made with `_socket`, the C module under socket.py: importing
socket.py turns hundreds of constants into enums and loads selectors, 13.6 M
instructions, a tenth of a command hook's start (docs/ARCHITECTURE.md, "Client
start-up"); hook_rpc.py needs none of what it adds. try_connect hands the other
clients socket.py's socket, which transport.py reads through a buffered reader."""

from __future__ import annotations

import _socket
import os

from enyal_protocol.paths import WHAT_TO_DO, check_socket
from enyal_protocol.peercred import peer_uid

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    import socket


class ClientError(Exception):
    """Base of what a client can raise."""


class DaemonUnavailable(ClientError):
    """No daemon answers and none could be started."""


class UntrustedSocket(ClientError):
    """The socket, its folder or the process listening on it is another user's: nothing
    is sent there (it would read every memory and query, and answer with its own)."""


def try_connect(path: os.PathLike[str] | str, timeout: float | None = None) -> socket.socket | None:
    """connect_unix's connection as socket.py's socket."""
    raw = connect_unix(path, timeout)
    if raw is None:
        return None
    import socket

    sock = socket.socket(fileno=raw.detach())
    sock.settimeout(timeout)  # the object's own, and the descriptor's blocking mode with it
    return sock


def connect_unix(
    path: os.PathLike[str] | str, timeout: float | None = None
) -> _socket.socket | None:
    """A connection to the daemon at `path`, or None if nothing listens there. Raises
    UntrustedSocket when the socket, its folder or the listening process belongs to
    another user (enyal_protocol/paths.py check_socket, then the peer's credentials)."""
    try:
        if not check_socket(os.fspath(path)):
            return None
    except PermissionError as exc:
        raise UntrustedSocket(str(exc)) from None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
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

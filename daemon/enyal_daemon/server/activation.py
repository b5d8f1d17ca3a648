"""Talking to a service manager without its libraries: the inherited listening socket,
and the readiness notifications.

systemd (sd_listen_fds(3), sd_notify(3)) hands a socket-activated service its
listening sockets as fds 3.. with LISTEN_FDS=<n> and LISTEN_PID=<our pid>, and
takes notifications as datagrams on the AF_UNIX socket named by NOTIFY_SOCKET.
Both protocols are a few lines of plain Python, so libsystemd is not needed.

launchd hands them out through launch_activate_socket(3), reached here with ctypes.
That path runs only on macOS and is not exercised by the test suite (which runs on
Linux); it is isolated in `launchd_socket` so nothing else depends on it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import stat
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ActivationError

log = logging.getLogger(__name__)

SD_LISTEN_FDS_START = 3
LAUNCHD_SOCKET_NAME = "enyal"  # the key under Sockets in the launchd plist


@dataclass(frozen=True)
class Inherited:
    sock: socket.socket
    manager: str  # "systemd" or "launchd"
    path: Path | None  # the socket's filesystem path, when it has one


def _path_of(sock: socket.socket) -> Path | None:
    name = sock.getsockname()
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    # An abstract socket's name starts with NUL; it has no path a client could open.
    return Path(name) if isinstance(name, str) and name and not name.startswith("\0") else None


def _check_listening_unix_stream(sock: socket.socket, origin: str) -> None:
    if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
        raise ActivationError(f"{origin} passed a socket that is not AF_UNIX/SOCK_STREAM")
    if not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
        raise ActivationError(f"{origin} passed a socket that is not listening")


def systemd_socket(environ: MutableMapping[str, str] | None = None) -> socket.socket | None:
    """The first listening socket systemd passed us, or None when we were not activated.

    The variables are removed once read (as sd_listen_fds(unset_environment=1) does),
    so nothing we spawn later mistakes our sockets for its own."""
    env = os.environ if environ is None else environ
    pid, fds = env.get("LISTEN_PID"), env.get("LISTEN_FDS")
    if pid is None or fds is None:
        return None
    for key in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        env.pop(key, None)
    if not (pid.isdigit() and int(pid) == os.getpid()):
        return None  # meant for another process (a parent that exec'd us without clearing it)
    if not fds.isdigit() or int(fds) < 1:
        return None
    count = int(fds)
    first = SD_LISTEN_FDS_START
    try:
        is_socket = stat.S_ISSOCK(os.fstat(first).st_mode)
    except OSError:
        raise ActivationError(f"LISTEN_FDS={count}, but fd {first} is not open") from None
    if not is_socket:
        raise ActivationError(f"the service manager passed fd {first}, but it is not a socket")
    os.set_inheritable(first, False)
    if count > 1:
        # enyal.socket declares one ListenStream; more means a hand-edited unit.
        log.warning("systemd passed %d sockets; using the first (fd 3) only", count)
        for fd in range(first + 1, first + count):
            with contextlib.suppress(OSError):
                os.close(fd)
    sock = socket.socket(fileno=SD_LISTEN_FDS_START)
    _check_listening_unix_stream(sock, "systemd")
    return sock


def launchd_socket(name: str = LAUNCHD_SOCKET_NAME) -> socket.socket | None:
    """macOS only, and untested by this suite: the socket launchd holds for us under `name`.

    launch_activate_socket() returns an errno: ESRCH when launchd did not start this
    process, ENOENT when the plist declares no socket of that name. Either means
    "not activated". The fd array is malloc'd by libSystem and ours to free."""
    import ctypes
    import ctypes.util

    libsystem = ctypes.CDLL(ctypes.util.find_library("System") or "/usr/lib/libSystem.B.dylib")
    fn = libsystem.launch_activate_socket
    fn.argtypes = [
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_int)),
        ctypes.POINTER(ctypes.c_size_t),
    ]
    fn.restype = ctypes.c_int
    fds = ctypes.POINTER(ctypes.c_int)()
    count = ctypes.c_size_t(0)
    err = fn(name.encode(), ctypes.byref(fds), ctypes.byref(count))
    if err != 0:
        if err not in (3, 2):  # ESRCH, ENOENT
            log.warning("launch_activate_socket(%r): %s", name, os.strerror(err))
        return None
    try:
        numbers = [fds[i] for i in range(count.value)]
    finally:
        libsystem.free.argtypes = [ctypes.c_void_p]
        libsystem.free(fds)
    if not numbers:
        return None
    for extra in numbers[1:]:
        with contextlib.suppress(OSError):
            os.close(extra)
    sock = socket.socket(fileno=numbers[0])
    _check_listening_unix_stream(sock, "launchd")
    return sock


def inherited_socket() -> Inherited | None:
    """The listening socket a service manager passed us, if one did."""
    sock = systemd_socket()
    if sock is not None:
        return Inherited(sock, "systemd", _path_of(sock))
    if sys.platform == "darwin":
        sock = launchd_socket()
        if sock is not None:
            return Inherited(sock, "launchd", _path_of(sock))
    return None


def notify(state: str, environ: MutableMapping[str, str] | None = None) -> bool:
    """Send a sd_notify state ("READY=1", "STOPPING=1", "STATUS=…") if systemd asked for
    them; True when sent. A failure is logged, never raised: readiness is advisory."""
    env = os.environ if environ is None else environ
    target = env.get("NOTIFY_SOCKET")
    if not target:
        return False
    # "@name" is Linux's abstract namespace, spelled with a leading NUL on the wire.
    address = "\0" + target[1:] if target.startswith("@") else target
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.connect(address)
            s.sendall(state.encode())
    except OSError as exc:
        log.warning("could not notify the service manager (%s): %s", target, exc)
        return False
    return True

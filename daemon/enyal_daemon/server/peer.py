"""Who is on the other end of a Unix socket: only the daemon's own user is served.

Linux answers through SO_PEERCRED, macOS and the BSDs through getpeereid(3).
The socket's folder is 0700 and the socket 0600 already; this check is the
second lock on the same door, for sockets placed somewhere shared.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
import struct
import sys


def peer_uid(sock: socket.socket) -> int | None:
    """The connecting process's uid, or None where the platform cannot say."""
    if sys.platform.startswith("linux"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    return _getpeereid(sock.fileno())


def _getpeereid(fd: int) -> int | None:  # macOS / BSD; untested here (Linux CI)
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return None
    libc = ctypes.CDLL(libc_name, use_errno=True)
    uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
    if libc.getpeereid(fd, ctypes.byref(uid), ctypes.byref(gid)) != 0:
        return None
    return int(uid.value)


def same_user(sock: socket.socket) -> bool:
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()

"""Who is on the other end of a Unix socket: its process's uid.

Linux answers through SO_PEERCRED, macOS and the BSDs through getpeereid(3). Both ends
use it: the daemon serves only its own user (server/peer.py), and a client talks only
to a daemon of its own user (client/enyal_client/transport.py).
"""

from __future__ import annotations

import _socket  # socket.py's C core: a client's connection may be one (enyal_client/reach.py)
import struct
import sys


def peer_uid(sock: _socket.socket) -> int | None:
    """The connected process's uid, or None where the platform cannot say."""
    if sys.platform.startswith("linux"):
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    return _getpeereid(sock.fileno())


def _getpeereid(fd: int) -> int | None:  # macOS / BSD; untested here (Linux CI)
    import ctypes  # only here: Linux never needs it, and clients start often
    import ctypes.util

    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return None
    try:  # a platform without getpeereid(3) cannot say: unknown, not a failure
        libc = ctypes.CDLL(libc_name, use_errno=True)
        uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
        if libc.getpeereid(fd, ctypes.byref(uid), ctypes.byref(gid)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return int(uid.value)

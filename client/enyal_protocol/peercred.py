"""Who is on the other end of a Unix socket: its process's uid.

Linux answers through SO_PEERCRED, macOS and the BSDs through getpeereid(3). Both ends
use it: the daemon serves only its own user (server/peer.py), and a client talks only
to a daemon of its own user (client/enyal_client/transport.py).
"""

from __future__ import annotations

import _socket  # socket.py's C core: a client's connection may be one (enyal_client/reach.py)
import sys

# struct ucred: pid, uid, gid, three C ints. Read with int.from_bytes, not struct, whose
# import is a command hook's (docs/ARCHITECTURE.md, "Client start-up").
INT = 4


def peer_uid(sock: _socket.socket) -> int | None:
    """The connected process's uid, or None where the platform cannot say."""
    if sys.platform.startswith("linux"):
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 3 * INT)
        return int.from_bytes(creds[INT : 2 * INT], sys.byteorder, signed=True)
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

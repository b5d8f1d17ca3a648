"""Who is on the other end of a Unix socket: only the daemon's own user is served.

The uid comes from enyal_protocol/peercred.py (SO_PEERCRED, getpeereid). The socket's
folder is 0700 and the socket 0600 already; this check is the second lock on the same
door, for sockets placed somewhere shared.
"""

from __future__ import annotations

import os
import socket

from enyal_protocol.peercred import peer_uid


def same_user(sock: socket.socket) -> bool:
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()

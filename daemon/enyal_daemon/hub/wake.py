"""Wake: an event that one thread sets and another can wait for together with a socket.

The replica's worker sleeps on the hub's LISTEN connection; a local write must wake it
too, at once. A threading.Event cannot be waited on with a socket, so the event is a
pipe: `set` writes a byte, `fileno` is the read end a poll watches beside the socket,
`clear` drains it. The worker clears it before each round, so a write committed during a
round leaves it set and the next wait returns at once (no write is missed, and none
wakes the worker twice).
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import threading
from collections.abc import Sequence
from typing import Protocol


class Wake:
    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        # set() comes from writers' threads: never after close, when the descriptor's
        # number may already be another file's.
        self._lock = threading.Lock()
        self._closed = False

    def fileno(self) -> int:
        return self._read

    def set(self) -> None:
        with self._lock:
            if not self._closed:
                # Full pipe: it is set already, which is all a byte says.
                with contextlib.suppress(BlockingIOError):
                    os.write(self._write, b"\0")

    def clear(self) -> None:
        with self._lock:
            if self._closed:
                return
            with contextlib.suppress(BlockingIOError):
                while os.read(self._read, 4096):
                    pass

    def is_set(self) -> bool:
        return self.wait(0)

    def wait(self, timeout: float) -> bool:
        return bool(readable([self], timeout))

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                os.close(self._read)
                os.close(self._write)


class Pollable(Protocol):
    """What `readable` watches: a socket, a psycopg connection, a Wake."""

    def fileno(self) -> int: ...


def readable(objs: Sequence[Pollable], timeout: float) -> set[int]:
    """The descriptors of `objs` readable within `timeout` seconds (poll, not select: a
    daemon with many clients has descriptors above select's 1024)."""
    poller = select.poll()
    for obj in objs:
        poller.register(obj.fileno(), select.POLLIN)
    return {fd for fd, _ in poller.poll(max(0, math.ceil(timeout * 1000)))}

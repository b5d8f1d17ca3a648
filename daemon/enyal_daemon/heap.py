"""Giving the heap back to the OS (glibc only; elsewhere these do nothing).

glibc gives each thread that allocates its own malloc arena (up to 8 per core) and
rarely returns freed memory to the OS: an import of long texts leaves the daemon
hundreds of MB larger than it needs. Two arenas cost no measurable speed, and a
trim after a large batch returns what it freed (scripts/bench: the RSS rows). The
daemon also trims once the index is loaded (~50 MB of freed heap at 100k) and after
each bookkeeping flush of a daemon that served requests (what they freed: ~25 MB
after 1,500 recalls at 100k); a trim costs 0.1-4 ms.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

M_ARENA_MAX = -8


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def limit_arenas(n: int = 2) -> None:
    """Before any thread starts."""
    libc = _libc()
    with contextlib.suppress(AttributeError):  # not glibc (musl): nothing to tune
        if libc is not None:
            libc.mallopt(M_ARENA_MAX, n)


def trim() -> None:
    libc = _libc()
    with contextlib.suppress(AttributeError):
        if libc is not None:
            libc.malloc_trim(0)

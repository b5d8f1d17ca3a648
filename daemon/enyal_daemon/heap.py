"""Giving the heap back to the OS (glibc only; elsewhere these do nothing).

glibc gives each thread that allocates its own malloc arena (up to 8 per core) and
rarely returns freed memory to the OS: an import of long texts leaves the daemon
hundreds of MB larger than it needs. Two arenas cost no measurable speed, and a
trim after a large batch returns what it freed (scripts/bench: the RSS rows). The
daemon also trims once the index is loaded (~50 MB of freed heap at 100k) and after
each bookkeeping flush of a daemon that served requests (what they freed: ~25 MB
after 1,500 recalls at 100k); a trim costs 0.1-4 ms. And once start-up is done, what
it built is frozen out of the cyclic GC's walks (`freeze`).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
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


def freeze() -> None:
    """Once start-up has built what lives as long as the process (modules, the model,
    the index, the store's caches): out of the cyclic GC's sight from then on. A full
    collection walked all of it (~35,000 objects at 10k: 20 ms of CPU at load 15, on
    whichever request thread's allocation set it off, so once every few hundred recalls
    one recall paid a whole recall's worth more, scripts/benchlib/profile_tail.py); after
    the freeze it walks what requests have kept since (~1,600 objects after 300 recalls:
    0.2-1 ms). Collected first, so no garbage is frozen with it. Costs no memory: frozen
    objects are freed by their reference counts as before; only a cycle among them
    would never be (start-up's own structures, which the daemon keeps anyway)."""
    gc.collect()
    gc.freeze()

"""Giving the heap back to the OS (glibc only; elsewhere these do nothing).

glibc gives each thread that allocates its own malloc arena (up to 8 per core) and
rarely returns freed memory to the OS: an import of long texts leaves the daemon
hundreds of MB larger than it needs. So every thread shares the main arena
(`limit_arenas`), and a trim after a large batch returns what it freed (scripts/bench:
the RSS rows). malloc_trim returns the free top of the main arena's heap, but not of
another arena's, whose top glibc keeps on free up to twice its dynamic mmap threshold
(raised by each large buffer freed, up to 32 MB): with two arenas the embedding threads'
held 34 MB resident, 11 of it in use, after importing SciFact abstracts at 100k
(docs/ARCHITECTURE.md, "Where the daemon's memory goes"). One arena costs no measurable
speed (the threads seldom wait for its lock: onnxruntime allocates a run's tensors,
then computes). The daemon also trims once the index is loaded (~50 MB of freed heap
at 100k) and after each bookkeeping flush of a daemon that served requests (what they
freed: ~25 MB after 1,500 recalls at 100k); a trim costs 0.1-4 ms. And once start-up
is done, what it built is frozen out of the cyclic GC's walks (`freeze`).

A trim also drops from the process the pages of the read-only file maps handed to
`drop_pages_on_trim` (the model's token-embedding table, embedder/shared_weights.py):
clean pages of the page cache that the next read maps again by a minor fault, but that
count in the RSS while mapped, and the kernel maps them 16 at a time around each row a
run reads (fault-around), so a few hundred recalls map most of the 47 MB table.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import mmap
import sys
import weakref

M_ARENA_MAX = -8

_clean_maps: weakref.WeakSet[mmap.mmap] = weakref.WeakSet()


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def limit_arenas(n: int = 1) -> None:
    """Before any thread starts: at most `n` malloc arenas (the main one alone by default,
    so that a trim reaches every thread's freed heap)."""
    libc = _libc()
    with contextlib.suppress(AttributeError):  # not glibc (musl): nothing to tune
        if libc is not None:
            libc.mallopt(M_ARENA_MAX, n)


def drop_pages_on_trim(m: mmap.mmap) -> None:
    """`m`, a read-only map of a file, is dropped from the RSS by every trim (for as long
    as it lives): only for maps nothing writes, whose pages the file holds."""
    _clean_maps.add(m)


def trim() -> None:
    libc = _libc()
    with contextlib.suppress(AttributeError):
        if libc is not None:
            libc.malloc_trim(0)
    for m in list(_clean_maps):
        # A closed map raises ValueError; madvise is missing off Linux/BSD (AttributeError).
        with contextlib.suppress(ValueError, OSError, AttributeError):
            m.madvise(mmap.MADV_DONTNEED)


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

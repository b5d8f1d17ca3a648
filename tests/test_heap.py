"""heap.py: what the daemon does with glibc's heap (issue 30, the daemon's RSS)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# In a fresh process (the arenas are set before any thread starts): a large buffer
# freed raises glibc's dynamic thresholds, as onnxruntime's buffers do in the daemon
# (chunks of a few MB then come from the heap, and a heap's free top is kept on free up
# to twice that); a worker thread, as an embedding thread does, allocates 20 MB in such
# chunks and frees them; then the daemon's trim. Prints RssAnon in MB before the
# worker, after it, after the trim.
_WORKER_THEN_TRIM = """
import ctypes, threading
from enyal_daemon import heap
heap.limit_arenas()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon"):
            return int(line.split()[1]) // 1024
big = libc.malloc(16 << 20)
ctypes.memset(big, 1, 16 << 20)
libc.free(big)
def work():
    chunks = [libc.malloc(2 << 20) for _ in range(10)]
    for c in chunks:
        ctypes.memset(c, 1, 2 << 20)
    for c in chunks:
        libc.free(c)
before = anon()
worker = threading.Thread(target=work)
worker.start()
worker.join()
ran = anon()
heap.trim()
print(before, ran, anon())
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's arenas, read in /proc/self/status"
)
def test_a_trim_gives_back_what_a_worker_thread_freed() -> None:
    # A thread of its own arena kept the free top of its heap whatever the daemon
    # trimmed (malloc_trim returns a heap's top for the main arena only): 34 MB of a
    # 64 MB heap resident with 11 in use after importing SciFact abstracts at 100k. With
    # every thread on the main arena, the trim returns it.
    done = subprocess.run([sys.executable, "-c", _WORKER_THEN_TRIM], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    before, ran, trimmed = (int(x) for x in done.stdout.split())
    assert ran - before >= 15  # the worker's chunks were resident once
    assert trimmed - before <= 5

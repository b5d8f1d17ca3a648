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


# In a fresh process, as the daemon starts: a 3 MB buffer freed (glibc's dynamic
# thresholds rise to it, as a run's largest tensor raises them), then five "runs", each
# allocating 20 MB in 2 MB buffers, writing them and freeing them. Prints each run's
# minor faults, then RssAnon in MB after the runs and after the daemon's trim.
_RUNS = """
import ctypes, resource, sys
from enyal_daemon import heap
heap.limit_arenas()
if sys.argv[1] == "kept":
    heap.keep_freed_top()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon"):
            return int(line.split()[1]) // 1024
big = libc.malloc(3 << 20)
ctypes.memset(big, 1, 3 << 20)
libc.free(big)
runs = []
for _ in range(5):
    at = faults()
    bufs = [libc.malloc(2 << 20) for _ in range(10)]
    for b in bufs:
        ctypes.memset(b, 1, 2 << 20)
    for b in reversed(bufs):
        libc.free(b)
    runs.append(faults() - at)
ran = anon()
heap.trim()
print(*runs, ran, anon())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc thresholds")
def test_a_run_s_freed_heap_is_kept_for_the_next_until_the_trim() -> None:
    # glibc's own thresholds gave back the top of the heap a run's tensors had freed, and
    # the next run faulted it in again (every model run of an import: ~2% of its CPU);
    # kept, the next runs fault nothing, and the daemon's trim still gives it back.
    out = {}
    for how in ("glibc's", "kept"):
        done = subprocess.run(
            [sys.executable, "-c", _RUNS, how], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-2000:]
        *runs, ran, trimmed = (int(x) for x in done.stdout.split())
        out[how] = (runs, ran, trimmed)
    pages = (20 << 20) // 4096
    assert min(out["glibc's"][0][1:]) >= pages // 2  # each run faulted its 20 MB again
    runs, ran, trimmed = out["kept"]
    assert max(runs[1:]) <= pages // 20, runs
    assert ran - trimmed >= 15  # the kept top was resident, and the trim gave it back

"""KNN served from memory; sqlite-vec's table stays the durable source of truth.

sqlite-vec's vec0 scans brute force inside SQLite (28-69 ms at 100k x 384 here);
the same scan over a contiguous matrix in memory takes a few ms. The matrix is
rebuilt from vec0 when the daemon opens and is changed by the writer only after
its transaction commits, so it never shows a write the database does not hold.

The matrix is int8, not float32: each row is its unit vector scaled so that its
largest component is 127 and rounded, with that scale kept beside it (float32).
384 bytes a memory instead of 1,536: 38 MB at 100k instead of 153 MB, which is
what keeps the daemon (the ONNX model alone is ~200 MB) under 300 MB. Rounding
moves a cosine by ~3e-4 on average and ~1.5e-3 at most; recall@10 against exact
float32 search is 0.99+ (tests/test_vector_index.py, scripts/bench). An exact
float32 rerank from vec0 was measured and rejected: a vec0 lookup by rowid costs
~140 us, 7 ms for 50 candidates, more than the whole scan.

A scan converts 4,096 rows at a time into a float32 scratch buffer (one per
concurrent scan, at most SCANNERS) and takes their dot products with the query
with numpy's einsum, not matmul: OpenBLAS splits a 4096-row gemv over both
cores, and when the other core is busy (another request, the embedder, a test
suite) the split waits to be scheduled: a 10k scan went from 0.5 to 9.7 ms p50
on this 2-core machine under load. einsum's SIMD loop stays on the calling
thread: 7.1 ms at 100k, against 5.7 ms for one-thread BLAS over the same int8
rows and 4.6 ms for a float32 scan on an idle machine.

Layout: rows sorted by rid (the database hands out rising rids, so an insert is
an append), looked up by binary search: no per-entry Python objects. A removed
row becomes a tombstone until a quarter of the rows are dead, then the arrays
are compacted. Searches share a readers-writer lock, so two run in parallel on
two cores while a write waits for them (and new searches wait for the write).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]

CHUNK = 4096  # rows converted to float32 per BLAS call: a 6 MB buffer per scanner
SCANNERS = min(4, os.cpu_count() or 1)  # scans at once; more would only share the cores
LOAD_BATCH = 4096

DEAD, INACTIVE, ACTIVE = 0, 1, 2


class _RWLock:
    """Many readers or one writer; a waiting writer holds back new readers."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if self._readers == 0:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


def quantize(vecs: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """(n, dim) float vectors -> int8 codes and per-row scales, vec ~= codes * scale."""
    v = np.asarray(vecs, dtype=np.float32)
    peak = np.abs(v).max(axis=1)
    scale = (np.maximum(peak, 1e-30) / 127.0).astype(np.float32)
    codes = np.rint(v / scale[:, None]).clip(-127, 127).astype(np.int8)
    return codes, scale


class VectorIndex:
    def __init__(self, dim: int, capacity: int = 1024) -> None:
        self.dim = dim
        self._lock = _RWLock()
        self._buffers: list[Vector] = []
        self._buffers_lock = threading.Lock()
        self._scanners = threading.BoundedSemaphore(SCANNERS)
        cap = max(1, capacity)
        self._codes = np.zeros((cap, dim), dtype=np.int8)
        self._scale = np.zeros(cap, dtype=np.float32)
        self._rids = np.zeros(cap, dtype=np.int64)  # sorted over [:_n], tombstones included
        self._state = np.zeros(cap, dtype=np.int8)
        self._n = 0  # rows in use, tombstones included
        self._dead = 0

    def __len__(self) -> int:
        return self._n - self._dead

    @property
    def nbytes(self) -> int:
        """Bytes of the rows in use (codes, scale, rid, state), tombstones included. Spare
        capacity is zero pages the OS has not backed yet, so it is left out."""
        return self._n * (self.dim + 4 + 8 + 1)

    # --- writes ---------------------------------------------------------------------

    def load(self, rows: Iterable[tuple[int, bytes, bool]]) -> None:
        """Add (rid, float32 vector bytes, is_deprecated) rows in bulk; a rid given twice
        (or already present) keeps its last vector."""
        with self._lock.write():
            batch: list[tuple[int, bytes, bool]] = []
            for row in rows:
                batch.append(row)
                if len(batch) == LOAD_BATCH:
                    self._append_batch(batch)
                    batch = []
            if batch:
                self._append_batch(batch)
            self._normalize()

    def add(self, rid: int, vec: Vector, active: bool = True) -> None:
        codes, scale = quantize(np.asarray(vec, dtype=np.float32).reshape(1, self.dim))
        state = ACTIVE if active else INACTIVE
        with self._lock.write():
            pos = self._find_one(rid)
            if pos < 0:
                pos = self._insertion_point(rid)  # a tombstone until filled below
            if self._state[pos] == DEAD:
                self._dead -= 1
            self._codes[pos] = codes[0]
            self._scale[pos] = scale[0]
            self._state[pos] = state

    def set_active(self, rid: int, active: bool) -> None:
        with self._lock.write():
            pos = self._find_one(rid)
            if pos >= 0 and self._state[pos] != DEAD:
                self._state[pos] = ACTIVE if active else INACTIVE

    def remove(self, rid: int) -> None:
        with self._lock.write():
            pos = self._find_one(rid)
            if pos < 0 or self._state[pos] == DEAD:
                return
            self._state[pos] = DEAD
            self._dead += 1
            if self._dead > max(256, self._n // 4):
                self._compact()

    # --- reads ----------------------------------------------------------------------

    def search(
        self, query: Vector, k: int, *, only: Iterable[int] | None = None, active_only: bool = True
    ) -> list[tuple[int, float]]:
        """The k nearest (rid, cosine similarity), best first. `only` restricts to those rids."""
        if k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(self.dim)
        floor = ACTIVE if active_only else INACTIVE
        with self._lock.read():
            n = self._n
            if only is None:
                sims = self._scan(q, n)
                sims[self._state[:n] < floor] = -np.inf
                rids = self._rids[:n]
            else:
                positions = self._find(only)
                positions = positions[positions >= 0]
                positions = np.unique(positions)
                positions = positions[self._state[positions] >= floor]
                sims = self._gather(q, positions)
                rids = self._rids[positions]
            if len(sims) == 0:
                return []
            k = min(k, len(sims))
            top = np.argpartition(-sims, k - 1)[:k]
            top = top[np.argsort(-sims[top], kind="stable")]
            return [(int(rids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def similarity(self, query: Vector, rids: Iterable[int]) -> dict[int, float]:
        """Cosine similarity of the query with each of these rids the index holds."""
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(self.dim)
        with self._lock.read():
            wanted = np.fromiter(rids, dtype=np.int64)
            positions = self._find(wanted)
            keep = positions >= 0
            keep[keep] = self._state[positions[keep]] != DEAD
            positions = positions[keep]
            sims = self._gather(q, positions)
            found = self._rids[positions]
        return {int(r): float(s) for r, s in zip(found, sims, strict=True)}

    # --- internals: lookups (callers hold a lock) ---------------------------------------

    def _find(self, rids: Iterable[int] | Int64s) -> Int64s:
        """Positions of these rids (tombstones included), -1 where absent."""
        wanted = np.asarray(
            rids if isinstance(rids, np.ndarray) else np.fromiter(rids, dtype=np.int64),
            dtype=np.int64,
        )
        keys = self._rids[: self._n]
        pos = np.searchsorted(keys, wanted)
        inside = pos < len(keys)
        hit = np.zeros(len(wanted), dtype=bool)
        hit[inside] = keys[pos[inside]] == wanted[inside]
        return np.where(hit, pos, -1).astype(np.int64)

    def _find_one(self, rid: int) -> int:
        n = self._n
        pos = int(np.searchsorted(self._rids[:n], rid))
        return pos if pos < n and int(self._rids[pos]) == rid else -1

    @contextmanager
    def _buffer(self) -> Iterator[Vector]:
        """A float32 scratch matrix of CHUNK rows; at most SCANNERS exist."""
        with self._scanners:
            with self._buffers_lock:
                buf = self._buffers.pop() if self._buffers else None
            if buf is None:
                buf = np.empty((CHUNK, self.dim), dtype=np.float32)
            try:
                yield buf
            finally:
                with self._buffers_lock:
                    self._buffers.append(buf)

    def _scan(self, q: Vector, n: int) -> Vector:
        """Approximate cosine of q with rows [0, n)."""
        out = np.empty(n, dtype=np.float32)
        with self._buffer() as buf:
            for start in range(0, n, CHUNK):
                end = min(n, start + CHUNK)
                b = buf[: end - start]
                np.copyto(b, self._codes[start:end], casting="unsafe")
                np.einsum("ij,j->i", b, q, out=out[start:end])
        out *= self._scale[:n]
        return out

    def _gather(self, q: Vector, positions: Int64s) -> Vector:
        out = np.empty(len(positions), dtype=np.float32)
        with self._buffer() as buf:
            for start in range(0, len(positions), CHUNK):
                chunk = positions[start : start + CHUNK]
                b = buf[: len(chunk)]
                np.copyto(b, self._codes[chunk], casting="unsafe")
                np.einsum("ij,j->i", b, q, out=out[start : start + len(chunk)])
        out *= self._scale[positions]
        return out

    # --- internals: layout (callers hold the write lock) --------------------------------

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        cap = len(self._rids)
        if need <= cap:
            return
        new_cap = max(need, cap * 2, 1024)
        self._codes = _resized(self._codes, new_cap, self._n)
        self._scale = _resized(self._scale, new_cap, self._n)
        self._rids = _resized(self._rids, new_cap, self._n)
        self._state = _resized(self._state, new_cap, self._n)

    def _insertion_point(self, rid: int) -> int:
        """Make room for a new rid in sorted position; returns that position."""
        self._reserve(1)
        n = self._n
        pos = n
        if n and rid < int(self._rids[n - 1]):
            # a rid below the largest: shift the tail (rare; O(n))
            pos = int(np.searchsorted(self._rids[:n], rid))
            for arr in (self._codes, self._scale, self._rids, self._state):
                arr[pos + 1 : n + 1] = arr[pos:n]
        self._rids[pos] = rid
        self._state[pos] = DEAD
        self._n = n + 1
        self._dead += 1
        return pos

    def _append_batch(self, batch: list[tuple[int, bytes, bool]]) -> None:
        m = len(batch)
        vecs = np.frombuffer(b"".join(blob for _, blob, _ in batch), dtype=np.float32)
        codes, scale = quantize(vecs.reshape(m, self.dim))
        self._reserve(m)
        n = self._n
        self._codes[n : n + m] = codes
        self._scale[n : n + m] = scale
        self._rids[n : n + m] = [rid for rid, _, _ in batch]
        self._state[n : n + m] = [INACTIVE if deprecated else ACTIVE for _, _, deprecated in batch]
        self._n = n + m

    def _normalize(self) -> None:
        """Sort rows by rid, keep the last of duplicate rids, drop tombstones."""
        n = self._n
        rids = self._rids[:n]
        if n > 1 and not bool(np.all(rids[1:] > rids[:-1])):
            order = np.argsort(rids, kind="stable")
            sorted_rids = rids[order]
            last = np.ones(n, dtype=bool)
            last[:-1] = sorted_rids[1:] != sorted_rids[:-1]
            keep = order[last]
            self._take(keep)
        self._compact()

    def _compact(self) -> None:
        n = self._n
        live = np.flatnonzero(self._state[:n] != DEAD)
        if len(live) != n:
            self._take(live)
        self._dead = 0

    def _take(self, rows: Int64s) -> None:
        """Keep only these rows (in this order) in fresh arrays sized to fit."""
        m = len(rows)
        cap = max(1024, m + m // 8)
        for name in ("_codes", "_scale", "_rids", "_state"):
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]), dtype=old.dtype)
            np.take(old, rows, axis=0, out=new[:m])
            setattr(self, name, new)
        self._n = m


def _resized(arr: npt.NDArray[Any], cap: int, n: int) -> npt.NDArray[Any]:
    new = np.zeros((cap, *arr.shape[1:]), dtype=arr.dtype)
    new[:n] = arr[:n]
    return new

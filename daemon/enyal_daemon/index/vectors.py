"""KNN served from memory; sqlite-vec's table stays the durable source of truth.

sqlite-vec's vec0 scans brute force inside SQLite (28-69 ms at 100k x 384 here);
the same scan as one BLAS matrix-vector product over a contiguous float32 matrix
takes a few ms. The matrix is rebuilt from vec0 when the daemon opens and is
changed by the writer only after its transaction commits, so it never shows a
write the database does not hold.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


class VectorIndex:
    def __init__(self, dim: int, capacity: int = 1024) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._mat = np.zeros((capacity, dim), dtype=np.float32)
        self._rids = np.zeros(capacity, dtype=np.int64)
        self._active = np.zeros(capacity, dtype=bool)
        self._pos: dict[int, int] = {}
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def load(self, rows: Iterable[tuple[int, bytes, bool]]) -> None:
        with self._lock:
            for rid, blob, deprecated in rows:
                self._put(rid, np.frombuffer(blob, dtype=np.float32), not deprecated)

    def add(self, rid: int, vec: Vector, active: bool = True) -> None:
        with self._lock:
            self._put(rid, vec, active)

    def set_active(self, rid: int, active: bool) -> None:
        with self._lock:
            pos = self._pos.get(rid)
            if pos is not None:
                self._active[pos] = active

    def remove(self, rid: int) -> None:
        with self._lock:
            pos = self._pos.pop(rid, None)
            if pos is None:
                return
            last = self._n - 1
            if pos != last:  # move the last row into the hole
                moved = int(self._rids[last])
                self._mat[pos] = self._mat[last]
                self._rids[pos] = moved
                self._active[pos] = self._active[last]
                self._pos[moved] = pos
            self._n = last

    def search(
        self, query: Vector, k: int, *, only: Iterable[int] | None = None, active_only: bool = True
    ) -> list[tuple[int, float]]:
        """The k nearest (rid, cosine similarity), best first. `only` restricts to those rids."""
        with self._lock:
            n = self._n
            if only is None:
                sims = self._mat[:n] @ query
                rids = self._rids[:n]
                if active_only:
                    sims = np.where(self._active[:n], sims, -np.inf)
            else:
                positions = np.fromiter(
                    (p for r in only if (p := self._pos.get(r)) is not None), dtype=np.int64
                )
                if active_only and len(positions):
                    positions = positions[self._active[positions]]
                sims = self._mat[positions] @ query
                rids = self._rids[positions]
        if len(sims) == 0:
            return []
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(rids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def similarity(self, query: Vector, rids: Iterable[int]) -> dict[int, float]:
        with self._lock:
            pairs = [(r, p) for r in rids if (p := self._pos.get(r)) is not None]
            if not pairs:
                return {}
            sims = self._mat[[p for _, p in pairs]] @ query
        return {r: float(s) for (r, _), s in zip(pairs, sims, strict=True)}

    def _put(self, rid: int, vec: Vector, active: bool) -> None:
        pos = self._pos.get(rid)
        if pos is None:
            if self._n == len(self._rids):
                self._grow()
            pos = self._n
            self._n += 1
            self._pos[rid] = pos
            self._rids[pos] = rid
        self._mat[pos] = vec
        self._active[pos] = active

    def _grow(self) -> None:
        cap = max(1024, len(self._rids) * 2)
        mat = np.zeros((cap, self.dim), dtype=np.float32)
        mat[: self._n] = self._mat[: self._n]
        rids = np.zeros(cap, dtype=np.int64)
        rids[: self._n] = self._rids[: self._n]
        active = np.zeros(cap, dtype=bool)
        active[: self._n] = self._active[: self._n]
        self._mat, self._rids, self._active = mat, rids, active

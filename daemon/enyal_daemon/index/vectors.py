"""KNN served from memory; sqlite-vec's table stays the durable source of truth.

sqlite-vec's vec0 scans brute force inside SQLite (28-69 ms at 100k x 384 here,
270-440 ms at 1M). This index answers from memory instead. It is rebuilt from
vec0 when the daemon opens and is changed by the writer only after its
transaction commits, so it never shows a write the database does not hold.

Two derived copies of each vector, 433 bytes a memory (a float32 copy would be
1,536: 153 MB at 100k, which the daemon's 300 MB budget cannot hold next to the
~200 MB ONNX model):

- int8 codes: the unit vector scaled so its largest component is 127 and
  rounded, with that scale kept (float32). Rounding moves a cosine by ~3e-4 on
  average and ~1.5e-3 at most. Every score returned comes from these.
- sign bits: one bit a dimension (48 bytes). Above PREFILTER_MIN rows (above
  RESTRICTED_PREFILTER_MIN for a search restricted to some rows), a search
  first ranks every row by Hamming distance to the query's signs (SIMD popcount,
  1.4 ms at 100k, 10 ms at 1M), keeps the closest RERANK_SHARE-th of the rows
  (at least RERANK_FLOOR), and scores only those from the int8 codes. Below it,
  every row is scored from the codes (under 3 ms).

recall@10 against exact float32 search: 0.987 for real query embeddings over the
benchmark's 100k store (scripts/bench), all of it lost to int8 rounding among
near-ties: the prefilter alone keeps every true top-50 neighbour at 4% of the
rows (RERANK_FLOOR is 4.1% there). tests/test_vector_index.py holds both stages to >= 0.97 on
harder, clustered data. An exact float32 rerank from vec0 was measured and
rejected: a vec0 lookup by rowid costs ~140 us, 7 ms for 50 candidates, more
than the whole search.

Codes are scored 2,048 rows at a time: converted into a float32 scratch buffer
(one per concurrent search, at most SCANNERS) and multiplied with numpy's einsum,
not matmul: OpenBLAS splits a gemv of that size over both cores, and when the
other core is busy (another request, the embedder, a test suite) the split waits
to be scheduled: a 10k scan went from 0.5 to 9.7 ms p50 on this 2-core machine
under load. einsum's SIMD loop stays on the calling thread.

Layout: rows sorted by rid (the database hands out rising rids, so an insert is
an append), looked up by binary search: no per-entry Python objects. A removed
row becomes a tombstone until a quarter of the rows are dead, then the arrays
are compacted. Searches share a readers-writer lock, so two run in parallel on
two cores while a write waits for them (and new searches wait for the write). A new
row whose rid is above every other, with room for it (a memory just written: rids rise),
is appended past the rows searches read and then counted in, without waiting for them:
a remember at 100k waited up to a whole search (3-16 ms) for the recalls beside it
(docs/ARCHITECTURE.md, "Round sixteen"); so is a bulk load of such rows (a replica's
slice), and arrays that must grow for them are copied before they are swapped in, not
under the write lock. Writers exclude one another with a lock of their own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Distances = npt.NDArray[np.uint16]
Row = tuple[int, bytes, bool, int, int]  # rid, float32 vector bytes, is_deprecated, group, kind

CHUNK = 2048  # rows of int8 codes converted to float32 at once (3 MB of scratch)
BITS_CHUNK = 16384  # rows of sign bits XOR-ed and counted at once
SCANNERS = min(4, os.cpu_count() or 1)  # searches at once; more would only share the cores
LOAD_BATCH = 4096
PREFILTER_MIN = 32_768
# A search restricted to some rows (a filter's rids, a scope's groups) prefilters from
# fewer of them: it scores a filter's rows it could not skip, and those rows are not
# contiguous (gathered, not scanned). For the benchmark's type filter (17,500 of 100k
# rows) the prefilter keeps every top-10 and 99.97% of the top-50 of an int8 scan of
# them, and takes 3.7 ms instead of 5.8 (scripts/bench's store).
RESTRICTED_PREFILTER_MIN = 8192
RERANK_FLOOR = 4096
# The rows a prefilter keeps grow slower than the store: the Hamming ranking's true
# neighbours sit in a smaller share of a larger store. On the bench's 1M store (100k
# real vectors and 900k calibrated perturbations) 1/64 of it kept recall@10 at 0.982 as
# 1/16 and 1/8 did (1/128: 0.9817) and took 14.4 ms p50 in process against 28.7 (load
# ~10); up to 262k rows RERANK_FLOOR decides (100k: 4,096 rows, recall@10 0.994 either
# way, 2.2 -> 1.7 ms p50).
RERANK_SHARE = 64
# A restricted prefilter counts every row's bits in place (then picks its rows' distances)
# once its rows are at least 1/GATHER_SHARE of them: gathering a row's bits costs about
# as much as counting them (~14 ns a row each, at 100k).
GATHER_SHARE = 2

DEAD, INACTIVE, ACTIVE = 0, 1, 2
ARRAYS = ("_codes", "_scale", "_bits", "_rids", "_state", "_group", "_kind")


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


def signs(vecs: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    """(n, dim) vectors -> (n, ceil(dim / 64)) uint64 words, one bit a positive component."""
    v = np.asarray(vecs, dtype=np.float32)
    packed = np.packbits(v > 0, axis=1)
    words = (v.shape[1] + 63) // 64
    out = np.zeros((len(v), words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view(np.uint64)


def _among(values: npt.NDArray[Any], wanted: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """values[i] in wanted, for ids >= 0 (groups, kinds): a look-up in a table of the
    wanted ids, where np.isin sorts (0.75 -> 0.3 ms for 100k rows)."""
    if len(wanted) == 0 or int(wanted.min()) < 0:
        return np.isin(values, wanted)
    table = np.zeros(int(wanted.max()) + 2, dtype=bool)  # the last slot: every larger id
    table[wanted] = True
    found: npt.NDArray[np.bool_] = np.take(table, values, mode="clip")
    return found


@dataclass
class _Scratch:
    floats: Vector
    xor: npt.NDArray[np.uint64]
    counts: npt.NDArray[np.uint8]


class VectorIndex:
    def __init__(
        self,
        dim: int,
        capacity: int = 1024,
        *,
        prefilter_min: int = PREFILTER_MIN,
        rerank_floor: int = RERANK_FLOOR,
    ) -> None:
        self.dim = dim
        self.words = (dim + 63) // 64
        self.prefilter_min = prefilter_min
        self.restricted_min = min(prefilter_min, RESTRICTED_PREFILTER_MIN)
        self.rerank_floor = rerank_floor
        self._lock = _RWLock()
        self._writers = threading.Lock()  # every write holds it; searches never do
        self._scratch: list[_Scratch] = []
        self._scratch_lock = threading.Lock()
        self._scanners = threading.BoundedSemaphore(SCANNERS)
        cap = max(1, capacity)
        self._codes = np.zeros((cap, dim), dtype=np.int8)
        self._scale = np.zeros(cap, dtype=np.float32)
        self._bits = np.zeros((cap, self.words), dtype=np.uint64)
        self._rids = np.zeros(cap, dtype=np.int64)  # sorted over [:_n], tombstones included
        self._state = np.zeros(cap, dtype=np.int8)
        # A small integer per row naming its scope (index/groups.py), so that a search
        # within a scope masks rows in numpy instead of listing its rids from SQLite.
        self._group = np.zeros(cap, dtype=np.int32)
        # And one naming its type, for the same reason: a type filter lets a seventh of a
        # store through, 17k rids at 100k, which took longer to list than to search.
        self._kind = np.zeros(cap, dtype=np.int8)
        self._n = 0  # rows in use, tombstones included
        self._dead = 0

    def __len__(self) -> int:
        return self._n - self._dead

    @property
    def nbytes(self) -> int:
        """Bytes of the rows in use, tombstones included. Spare capacity is zero pages the
        OS has not backed yet, so it is left out."""
        return self._n * (self.dim + 4 + 8 * self.words + 8 + 1 + 4 + 1)

    # --- writes ---------------------------------------------------------------------

    def load(self, rows: Iterable[Row]) -> None:
        """Add (rid, float32 vector bytes, is_deprecated, group, kind) rows in bulk; a rid given
        twice (or already present) keeps its last vector. A list of rows each above every
        rid before it (a replica's slice of new memories) is appended as `add` appends one,
        the arrays grown first if need be: without waiting for a search under way, nor
        making one wait (a sync loads a slice ~19 times a second while recalls read)."""
        with self._writers:
            if isinstance(rows, list) and self._rising(rows):
                self._reserve(len(rows))
                for at in range(0, len(rows), LOAD_BATCH):
                    self._append_batch(rows[at : at + LOAD_BATCH])
                return
        with self._writing():
            batch: list[Row] = []
            for row in rows:
                batch.append(row)
                if len(batch) == LOAD_BATCH:
                    self._append_batch(batch)
                    batch = []
            if batch:
                self._append_batch(batch)
            self._normalize()

    def add(
        self, rid: int, vec: Vector, active: bool = True, group: int = 0, kind: int = 0
    ) -> None:
        v = np.asarray(vec, dtype=np.float32).reshape(1, self.dim)
        codes, scale = quantize(v)
        bits = signs(v)
        with self._writers:
            self._reserve(1)
            if self._append(rid, codes[0], scale[0], bits[0], active, group, kind):
                return
            with self._lock.write():
                pos = self._find_one(rid)
                if pos < 0:
                    pos = self._insertion_point(rid)  # a tombstone until filled below
                if self._state[pos] == DEAD:
                    self._dead -= 1
                self._codes[pos] = codes[0]
                self._scale[pos] = scale[0]
                self._bits[pos] = bits[0]
                self._state[pos] = ACTIVE if active else INACTIVE
                self._group[pos] = group
                self._kind[pos] = kind

    def _append(
        self,
        rid: int,
        codes: npt.NDArray[np.int8],
        scale: np.float32,
        bits: npt.NDArray[np.uint64],
        active: bool,
        group: int,
        kind: int,
    ) -> bool:
        """`add` of a rid above every other, with room for it, without the write lock: the
        row is written past `_n`, which no search reads, and then counted in. A search
        under way reads the rows it counted, or this one too, whole (every lookup keeps
        the rids sorted: this one is the largest). False: not such a row."""
        n = self._n
        if n >= len(self._rids) or (n and rid <= int(self._rids[n - 1])):
            return False
        self._codes[n] = codes
        self._scale[n] = scale
        self._bits[n] = bits
        self._rids[n] = rid
        self._state[n] = ACTIVE if active else INACTIVE
        self._group[n] = group
        self._kind[n] = kind
        self._n = n + 1
        return True

    def _rising(self, rows: list[Row]) -> bool:
        """Whether each row's rid is above every rid before it, in the index and in `rows`:
        rows `_append_batch` can add past `_n` as they are."""
        rids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        n = self._n
        return bool(np.all(rids[1:] > rids[:-1])) and (
            not n or not len(rids) or int(rids[0]) > int(self._rids[n - 1])
        )

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write that may move or shift rows: the writers' lock, then the write lock."""
        with self._writers, self._lock.write():
            yield

    def set_kind(self, rid: int, kind: int) -> None:
        with self._writing():
            pos = self._find_one(rid)
            if pos >= 0:
                self._kind[pos] = kind

    def set_active(self, rid: int, active: bool) -> None:
        with self._writing():
            pos = self._find_one(rid)
            if pos >= 0 and self._state[pos] != DEAD:
                self._state[pos] = ACTIVE if active else INACTIVE

    def remove(self, rid: int) -> None:
        with self._writing():
            pos = self._find_one(rid)
            if pos < 0 or self._state[pos] == DEAD:
                return
            self._state[pos] = DEAD
            self._dead += 1
            if self._dead > max(256, self._n // 4):
                self._compact()

    # --- reads ----------------------------------------------------------------------

    def search(
        self,
        query: Vector,
        k: int,
        *,
        only: Iterable[int] | None = None,
        groups: Collection[int] | None = None,
        kinds: Collection[int] | None = None,
        active_only: bool = True,
    ) -> list[tuple[int, float]]:
        """The k nearest (rid, cosine similarity), best first. `only` restricts to those rids,
        `groups` and `kinds` to the rows of those groups and kinds (all three: to the rows
        passing each)."""
        if k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(self.dim)
        floor = ACTIVE if active_only else INACTIVE
        with self._lock.read(), self._borrow() as scratch:
            n = self._n
            if only is None and (groups is not None or kinds is not None):
                mask = self._of(slice(0, n), groups, kinds)
                mask &= self._state[:n] >= floor
                positions = np.flatnonzero(mask).astype(np.int64)
                if len(positions) >= self.restricted_min:
                    # Every row passing (a view that sees every group) is every row of state
                    # >= floor: read in place, not gathered (0.37 -> 0.24 ms at 10k).
                    every = len(positions) == n
                    positions = self._prefilter(q, None if every else positions, floor, k, scratch)
                sims = self._gather(q, positions, scratch)
                rids = self._rids[positions]
            elif only is None and n < self.prefilter_min:
                sims = self._scan(q, n, scratch)
                sims[self._state[:n] < floor] = -np.inf
                rids = self._rids[:n]
            else:
                if only is None:
                    positions = self._prefilter(q, None, floor, k, scratch)
                else:
                    positions = self._find(only)
                    positions = positions[positions >= 0]
                    if not bool(np.all(positions[1:] > positions[:-1])):
                        positions = np.unique(positions)  # a sort: 1 ms for 10k rids
                    positions = positions[self._state[positions] >= floor]
                    if groups is not None or kinds is not None:
                        positions = positions[self._of(positions, groups, kinds)]
                    if len(positions) >= self.restricted_min:
                        positions = self._prefilter(q, positions, floor, k, scratch)
                sims = self._gather(q, positions, scratch)
                rids = self._rids[positions]
            if len(sims) == 0:
                return []
            k = min(k, len(sims))
            top = np.argpartition(-sims, k - 1)[:k]
            top = top[np.argsort(-sims[top], kind="stable")]
            top = top[np.isfinite(sims[top])]
            # Python numbers from whole arrays at once: an element of each read and
            # converted one at a time cost ~2 us a row (150 rows a passages search).
            return list(zip(rids[top].tolist(), sims[top].tolist(), strict=True))

    def similarity(self, query: Vector, rids: Iterable[int]) -> dict[int, float]:
        """Cosine similarity of the query with each of these rids the index holds."""
        found, sims = self.similarities(query, rids)
        return dict(zip(found.tolist(), sims.tolist(), strict=True))

    def similarities(self, query: Vector, rids: Iterable[int]) -> tuple[Int64s, Vector]:
        """`similarity` as arrays: the rids the index holds, in the order asked, and each
        one's cosine."""
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(self.dim)
        with self._lock.read(), self._borrow() as scratch:
            wanted = rids if isinstance(rids, np.ndarray) else np.fromiter(rids, dtype=np.int64)
            positions = self._find(wanted)
            keep = positions >= 0
            keep[keep] = self._state[positions[keep]] != DEAD
            positions = positions[keep]
            sims = self._gather(q, positions, scratch)
            found: Int64s = self._rids[positions]
        return found, sims

    def keys_between(self, lo: Int64s, hi: Int64s) -> Int64s:
        """The keys (rids) of live rows with lo[i] <= key < hi[i] for some i, ascending
        when the ranges are; index/passages.py keys an entry's passages by such a range."""
        with self._lock.read():
            keys = self._rids[: self._n]
            start = np.searchsorted(keys, lo)
            counts = np.searchsorted(keys, hi) - start
            total = int(counts.sum())
            # Every position of every range, without a Python loop over the ranges.
            offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            pos = np.repeat(start, counts) + offsets
            pos = pos[self._state[pos] != DEAD]
            found: Int64s = keys[pos].copy()
        return found

    # --- internals: lookups and scoring (callers hold a lock) ---------------------------

    def _of(
        self,
        rows: slice | Int64s,
        groups: Collection[int] | None,
        kinds: Collection[int] | None,
    ) -> npt.NDArray[np.bool_]:
        """Which of these rows (a slice of positions, or positions) are of one of the
        groups and one of the kinds (None: any; not both)."""
        masks = []
        if groups is not None:
            wanted = np.fromiter(groups, dtype=np.int32, count=len(groups))
            masks.append(_among(self._group[rows], wanted))
        if kinds is not None:
            of_kind = np.fromiter(kinds, dtype=np.int8, count=len(kinds))
            masks.append(_among(self._kind[rows], of_kind))
        return masks[0] if len(masks) == 1 else masks[0] & masks[1]

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
    def _borrow(self) -> Iterator[_Scratch]:
        """Scratch buffers for one search; at most SCANNERS sets exist."""
        with self._scanners:
            with self._scratch_lock:
                s = self._scratch.pop() if self._scratch else None
            if s is None:
                s = _Scratch(
                    np.empty((CHUNK, self.dim), dtype=np.float32),
                    np.empty((BITS_CHUNK, self.words), dtype=np.uint64),
                    np.empty((BITS_CHUNK, self.words), dtype=np.uint8),
                )
            try:
                yield s
            finally:
                with self._scratch_lock:
                    self._scratch.append(s)

    def _scan(self, q: Vector, n: int, scratch: _Scratch) -> Vector:
        """Cosine of q with rows [0, n), from the int8 codes."""
        out = np.empty(n, dtype=np.float32)
        for start in range(0, n, CHUNK):
            end = min(n, start + CHUNK)
            b = scratch.floats[: end - start]
            np.copyto(b, self._codes[start:end], casting="unsafe")
            np.einsum("ij,j->i", b, q, out=out[start:end])
        out *= self._scale[:n]
        return out

    def _gather(self, q: Vector, positions: Int64s, scratch: _Scratch) -> Vector:
        """Cosine of q with the rows at these positions, from the int8 codes."""
        out = np.empty(len(positions), dtype=np.float32)
        for start in range(0, len(positions), CHUNK):
            chunk = positions[start : start + CHUNK]
            b = scratch.floats[: len(chunk)]
            np.copyto(b, self._codes[chunk], casting="unsafe")
            np.einsum("ij,j->i", b, q, out=out[start : start + len(chunk)])
        out *= self._scale[positions]
        return out

    def _prefilter(
        self, q: Vector, positions: Int64s | None, floor: int, k: int, scratch: _Scratch
    ) -> Int64s:
        """Of these positions (None: every row of state >= floor), those whose sign bits are
        closest to the query's: at least max(rerank_floor, count / RERANK_SHARE, 8k) of them,
        ties at the cut-off included."""
        if positions is not None and len(positions) * GATHER_SHARE >= self._n:
            # Most rows pass (a view of most scopes): gathering their bits cost more than
            # counting every row's in place, 4.1 -> ~2 ms for 98% of 100k rows.
            dist = self._distances(q, self._n, None, scratch)[positions]
        else:
            m = self._n if positions is None else len(positions)
            dist = self._distances(q, m, positions, scratch)
        m = len(dist)
        if positions is None:
            dist[self._state[:m] < floor] = self.dim + 1  # never a candidate
            eligible = m - int(np.count_nonzero(self._state[:m] < floor))
        else:
            eligible = m
        want = max(self.rerank_floor, eligible // RERANK_SHARE, 8 * k)
        # The want-th smallest distance by counting (distances are 0..dim): no sort.
        cum = np.cumsum(np.bincount(dist, minlength=self.dim + 2)[: self.dim + 1])
        cutoff = int(np.searchsorted(cum, min(want, eligible)))
        chosen = np.flatnonzero(dist <= cutoff)
        return chosen if positions is None else positions[chosen]

    def _distances(
        self, q: Vector, m: int, positions: Int64s | None, scratch: _Scratch
    ) -> Distances:
        """Hamming distance of the query's sign bits to rows [0, m), or to the rows at
        these m positions."""
        qbits = signs(q.reshape(1, self.dim))[0]
        # The query's words repeated once a row: XOR-ed flat, contiguous with the rows'
        # (broadcasting a row of `words` is a numpy inner loop of 6: ~2x slower).
        tiled = np.tile(qbits, min(m, BITS_CHUNK))
        dist = np.empty(m, dtype=np.uint16)
        for start in range(0, m, BITS_CHUNK):
            end = min(m, start + BITS_CHUNK)
            rows = self._bits[start:end] if positions is None else self._bits[positions[start:end]]
            x = scratch.xor[: end - start]
            c = scratch.counts[: end - start]
            np.bitwise_xor(rows.reshape(-1), tiled[: x.size], out=x.reshape(-1))
            np.bitwise_count(x, out=c)
            d = dist[start:end]
            np.add(c[:, 0], c[:, 1] if self.words > 1 else 0, out=d, dtype=np.uint16)
            for j in range(2, self.words):
                np.add(d, c[:, j], out=d)
        return dist

    # --- internals: layout (callers hold the write lock; or the writers' lock alone to
    # grow the arrays or append past _n, which no search reads: `_reserve`, `_append`) ---

    def _reserve(self, extra: int) -> None:
        """Room for `extra` more rows past `_n`: the arrays doubled (at least) when short,
        each made whole before it replaces the old. So the writers' lock alone suffices:
        searches go on reading the old arrays while the rows in use are copied, and rows
        [0, _n) are the same in both (every write holds the writers' lock). Under the write
        lock a copy of 100k rows (~45 MB) held every recall up for its length, each time
        the arrays doubled (issue 28)."""
        need = self._n + extra
        cap = len(self._rids)
        if need <= cap:
            return
        new_cap = max(need, cap * 2, 1024)
        grown = []
        for name in ARRAYS:
            old = getattr(self, name)
            new = np.zeros((new_cap, *old.shape[1:]), dtype=old.dtype)
            new[: self._n] = old[: self._n]
            grown.append((name, new))
        for name, new in grown:
            setattr(self, name, new)

    def _insertion_point(self, rid: int) -> int:
        """Make room for a new rid in sorted position; returns that position."""
        self._reserve(1)
        n = self._n
        pos = n
        if n and rid < int(self._rids[n - 1]):
            # a rid below the largest: shift the tail (rare; O(n))
            pos = int(np.searchsorted(self._rids[:n], rid))
            for name in ARRAYS:
                arr = getattr(self, name)
                arr[pos + 1 : n + 1] = arr[pos:n]
        self._rids[pos] = rid
        self._state[pos] = DEAD
        self._n = n + 1
        self._dead += 1
        return pos

    def _append_batch(self, batch: list[Row]) -> None:
        m = len(batch)
        vecs = np.frombuffer(b"".join(row[1] for row in batch), dtype=np.float32)
        vecs = vecs.reshape(m, self.dim)
        codes, scale = quantize(vecs)
        self._reserve(m)
        n = self._n
        self._codes[n : n + m] = codes
        self._scale[n : n + m] = scale
        self._bits[n : n + m] = signs(vecs)
        self._rids[n : n + m] = [row[0] for row in batch]
        self._state[n : n + m] = [INACTIVE if row[2] else ACTIVE for row in batch]
        self._group[n : n + m] = [row[3] for row in batch]
        self._kind[n : n + m] = [row[4] for row in batch]
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
            self._take(order[last])
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
        for name in ARRAYS:
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]), dtype=old.dtype)
            np.take(old, rows, axis=0, out=new[:m])
            setattr(self, name, new)
        self._n = m

"""Long memories' passage vectors (embedder/passages.py), searched like entries'.

A VectorIndex of its own, keyed by rid * SLOTS + ord: an entry's passages sit side by
side in key order, so one key range finds them all, and every search, mask and filter
of the entries' index works here unchanged (each passage carries its entry's scope
group, type and state). Searches answer by entry, with its best passage's similarity;
`counts` says how many passages an entry has, with which what the best of its vectors
gains by chance grows (`by_chance`). Most stores have no passage at all (memories of a
sentence or two), and then this index is empty and costs nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np
import numpy.typing as npt

from .vectors import Int64s, Row, VectorIndex

SLOTS = 64  # room for embedder/passages.py's MAX_PASSAGES under one rid
# A search asks for this many passages per entry wanted: a long memory near the query
# often has several passages near it, which count once.
ROWS_PER_ENTRY = 3
# An entry with passages was found by the best of its n + 1 vectors (its whole text's and
# its passages'; now by its n passages', its whole vector being made of them, and the
# discount kept as measured), and the best of n + 1 lies above one text's cosine by
# chance alone, the more the more vectors: a long text scored by its best as such was given a draw a
# passage, and long texts (a chat assistant's turns) crowded short exact ones out of the
# top. Its similarity is lowered by this times ln(n + 1): on LongMemEval_S's dev stores
# an unrelated long entry's best stands above its whole text's cosine by ~0.04 × ln(n + 1)
# (.045 at 2 passages, .11 at 16); 0.05 was chosen on the dev halves (docs/ARCHITECTURE.md,
# "LongMemEval_S by the standard protocol": "Long texts' best of many, discounted").
CHANCE_PER_LOG_VECTOR = 0.05

Vectors = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
# (rid, ord, float32 vector bytes, is_deprecated, group, kind)
PassageRow = tuple[int, int, bytes, bool, int, int]


class PassageIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._rows = VectorIndex(dim)
        # How many passages each rid has (0 past its end), kept as they change: a recall
        # asks for its candidates' counts three times (its KNN, its keyword hits'
        # similarity, the floors' chance), each a look-up here, where finding the
        # passages' keys and counting them took ~0.1 ms (SciFact's store, issue 30).
        self._count = np.zeros(0, dtype=np.uint8)

    def __len__(self) -> int:
        """Passages held (not entries)."""
        return len(self._rows)

    @property
    def nbytes(self) -> int:
        return self._rows.nbytes

    def load(self, rows: Iterable[PassageRow]) -> None:
        """A list (a replica's slice) is keyed as a list, which the index can append
        without its write lock (VectorIndex.load); anything else (the whole store, as the
        daemon opens) is streamed."""
        keyed: Iterable[Row] = (
            (rid * SLOTS + ord_, blob, deprecated, group, kind)
            for rid, ord_, blob, deprecated, group, kind in rows
        )
        if isinstance(rows, list):
            if not rows:
                return  # (a slice of texts without passages: nothing to count again)
            keyed = list(keyed)
        self._rows.load(keyed)
        every = self._rows.keys_between(np.zeros(1, np.int64), np.full(1, np.iinfo(np.int64).max))
        self._count = np.bincount(every // SLOTS).astype(np.uint8)

    def replace(
        self, rid: int, vecs: Vectors, active: bool = True, group: int = 0, kind: int = 0
    ) -> None:
        """The entry's passages are now these (none: it has none)."""
        self.remove(rid)
        for i, vec in enumerate(vecs[:SLOTS]):
            self._rows.add(rid * SLOTS + i, vec, active=active, group=group, kind=kind)
        self._counted(rid, min(len(vecs), SLOTS))

    def remove(self, rid: int) -> None:
        for key in self._keys([rid]).tolist():
            self._rows.remove(key)
        self._counted(rid, 0)

    def _counted(self, rid: int, n: int) -> None:
        if rid >= len(self._count):
            if n == 0:
                return
            grown = np.zeros(max(rid + 1, 2 * len(self._count)), dtype=np.uint8)
            grown[: len(self._count)] = self._count
            self._count = grown  # a search reading the old array meanwhile reads it whole
        self._count[rid] = n

    def set_active(self, rid: int, active: bool) -> None:
        for key in self._keys([rid]).tolist():
            self._rows.set_active(key, active)

    def set_kind(self, rid: int, kind: int) -> None:
        for key in self._keys([rid]).tolist():
            self._rows.set_kind(key, kind)

    def search(
        self,
        query: Vectors,
        k: int,
        *,
        only: Iterable[int] | None = None,
        groups: Collection[int] | None = None,
        kinds: Collection[int] | None = None,
        active_only: bool = True,
    ) -> list[tuple[int, float]]:
        """Up to k entries (rid, best passage's cosine), best first; the filters are
        VectorIndex.search's, `only` naming entries."""
        if k <= 0 or len(self._rows) == 0:
            return []
        keys = None
        if only is not None:
            keys = self._keys(only)
            if len(keys) == 0:
                return []
        rows = self._rows.search(
            query,
            k * ROWS_PER_ENTRY,
            only=keys,
            groups=groups,
            kinds=kinds,
            active_only=active_only,
        )
        best: dict[int, float] = {}
        for key, sim in rows:  # best first: an entry's first passage is its best
            best.setdefault(key // SLOTS, sim)
        return list(best.items())[:k]

    def counts(self, rids: Int64s) -> Int64s:
        """How many passages each of these entries has (0: a text of one passage)."""
        count = self._count
        held = (rids >= 0) & (rids < len(count))
        out = np.zeros(len(rids), dtype=np.int64)
        out[held] = count[rids[held]]
        return out

    def similarity(self, query: Vectors, rids: Iterable[int]) -> dict[int, float]:
        """Each of these entries' best passage's cosine, for those that have passages."""
        if len(self._rows) == 0:
            return {}
        keys, sims = self._rows.similarities(query, self._keys(rids))
        if len(keys) == 0:
            return {}
        # An entry's passages sit side by side (_keys): each run's best, in one pass.
        owners = keys // SLOTS
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best = np.maximum.reduceat(sims, starts)
        return dict(zip(owners[starts].tolist(), best.tolist(), strict=True))

    def _keys(self, rids: Iterable[int]) -> Int64s:
        """The keys of these entries' passages (ascending when the rids are)."""
        given = rids if isinstance(rids, np.ndarray) else np.fromiter(rids, dtype=np.int64)
        lo = given.astype(np.int64) * SLOTS
        return self._rows.keys_between(lo, lo + SLOTS)


def by_chance(counts: Int64s) -> Floats:
    """What the best of an entry's `counts` passages gains over one text's cosine by
    chance (measured as the best of them and its whole text's): 0 for a text of one
    passage."""
    return CHANCE_PER_LOG_VECTOR * np.log1p(counts.astype(np.float64))

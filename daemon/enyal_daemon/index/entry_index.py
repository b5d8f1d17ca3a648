"""Every vector of every entry, as the engine's one index: whole texts and passages.

Writes and state changes go to both (a deprecated entry's passages leave searches
with it); searches read the whole texts only, unless asked for passages too: an entry
with passages is then as near as its best passage, less what that best of several
gains by chance (passages.by_chance). Its whole vector, made of its passages'
(embedder/passages.py, whole_of), still finds it, but is not a vector of its own to
score by: counted, the average of its passages lifted long texts above their best
passage (docs/ARCHITECTURE.md, "Where an import's time goes").
Recall asks; finding near-duplicates, conflicts and links does not, because one
sentence of a long memory resembling a short one does not make them the same.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np

from .passages import Floats, PassageIndex, PassageRow, Vectors, by_chance
from .vectors import Int64s, Row, Vector, VectorIndex


class EntryIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.whole = VectorIndex(dim)
        self.passages = PassageIndex(dim)

    def __len__(self) -> int:
        """Entries held (their passages not counted)."""
        return len(self.whole)

    @property
    def nbytes(self) -> int:
        return self.whole.nbytes + self.passages.nbytes

    def load(self, rows: Iterable[Row], passages: Iterable[PassageRow] = ()) -> None:
        self.whole.load(rows)
        self.passages.load(passages)

    def add(
        self,
        rid: int,
        vec: Vector,
        passages: Vectors | None = None,
        active: bool = True,
        group: int = 0,
        kind: int = 0,
    ) -> None:
        """The entry's vectors, new or replacing its old ones (`passages` None: it has none)."""
        self.whole.add(rid, vec, active=active, group=group, kind=kind)
        empty = np.empty((0, self.dim), dtype=np.float32)
        self.passages.replace(
            rid, empty if passages is None else passages, active=active, group=group, kind=kind
        )

    def set_kind(self, rid: int, kind: int) -> None:
        self.whole.set_kind(rid, kind)
        self.passages.set_kind(rid, kind)

    def set_active(self, rid: int, active: bool) -> None:
        self.whole.set_active(rid, active)
        self.passages.set_active(rid, active)

    def remove(self, rid: int) -> None:
        self.whole.remove(rid)
        self.passages.remove(rid)

    def search(
        self,
        query: Vector,
        k: int,
        *,
        only: Iterable[int] | None = None,
        groups: Collection[int] | None = None,
        kinds: Collection[int] | None = None,
        active_only: bool = True,
        passages: bool = False,
    ) -> list[tuple[int, float]]:
        """The k nearest entries (rid, cosine), best first: VectorIndex.search's filters.
        With `passages`, an entry with passages is as near as its best passage, less what
        that best gains by chance (`_less_chance`); its whole vector only finds it."""
        if only is not None and passages and not isinstance(only, np.ndarray):
            only = np.fromiter(only, dtype=np.int64)  # read twice
        found = self.whole.search(
            query, k, only=only, groups=groups, kinds=kinds, active_only=active_only
        )
        if not passages or len(self.passages) == 0:
            return found
        near = self.passages.search(
            query, k, only=only, groups=groups, kinds=kinds, active_only=active_only
        )
        best = dict(found) | dict(near)
        best.update(self.passages.similarity(query, list(best)))
        return sorted(self._less_chance(best).items(), key=lambda item: -item[1])[:k]

    def similarity(
        self, query: Vector, rids: Iterable[int], passages: bool = False
    ) -> dict[int, float]:
        """Cosine of the query with each of these entries the index holds; with
        `passages`, an entry with passages has its best passage's, less what that best
        gains by chance (`_less_chance`)."""
        wanted = list(rids)
        sims = self.whole.similarity(query, wanted)
        if passages:
            for rid, sim in self.passages.similarity(query, wanted).items():
                if rid in sims:
                    sims[rid] = sim
            sims = self._less_chance(sims)
        return sims

    def _less_chance(self, sims: dict[int, float]) -> dict[int, float]:
        """Each entry's best similarity less what the best of its vectors gains by chance
        (passages.by_chance): a text of one passage keeps its cosine, and a store without
        passages (memories of a sentence or two) pays nothing."""
        if not sims or not len(self.passages):
            return sims
        rids = np.fromiter(sims, dtype=np.int64, count=len(sims))
        values = np.fromiter(sims.values(), dtype=np.float64, count=len(sims))
        less = self.chance(rids)
        return dict(zip(rids.tolist(), (values - less).tolist(), strict=True))

    def chance(self, rids: Int64s) -> Floats:
        """What each of these entries' similarity with passages is lowered by
        (passages.by_chance; 0 for an entry without passages)."""
        if not len(self.passages):
            return np.zeros(len(rids), dtype=np.float64)
        return by_chance(self.passages.counts(rids))

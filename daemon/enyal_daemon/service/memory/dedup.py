"""Is a new memory already stored? The nearest active entry of the same scope.

Runs on the writer, inside the remember job, so two racing writes cannot both miss
each other: the index changes only after a commit, so the rows that earlier jobs of
the same group commit wrote are compared too.
"""

from __future__ import annotations

import apsw
import numpy as np

from ...embedder.onnx import Vectors
from ...store import entries
from ...store.rows import EntryRow
from ..core.engine import Engine


def neighbours_in_scope(
    engine: Engine, vec: Vectors, level: str, path: str | None, k: int
) -> list[tuple[int, float]]:
    """(rid, similarity) of the k committed active entries of one scope nearest `vec`."""
    groups = engine.groups.known([(level, path)])
    return engine.index.search(vec, k, groups=groups) if groups else []


def nearest_in_scope(
    engine: Engine, conn: apsw.Connection, vec: Vectors, level: str, path: str | None
) -> tuple[EntryRow, float] | None:
    hits = neighbours_in_scope(engine, vec, level, path, 1)
    hits += _uncommitted(engine, conn, vec, level, path)
    hits.sort(key=lambda hit: hit[1], reverse=True)
    rows = entries.by_rids(conn, [rid for rid, _ in hits])
    for rid, sim in hits:
        row = rows.get(rid)
        if row is not None and row.scope == (level, path) and not row.is_deprecated:
            return row, sim
    return None


def _uncommitted(
    engine: Engine, conn: apsw.Connection, vec: Vectors, level: str, path: str | None
) -> list[tuple[int, float]]:
    """(rid, similarity) of this scope's rows above the last committed rid, which a
    reader connection (outside this transaction) tells."""
    committed = entries.max_rid(engine.reader())
    out: list[tuple[int, float]] = []
    for rid in entries.rids_in_scope_after(conn, level, path, committed):
        blob = entries.vector(conn, rid)
        if blob is not None:
            out.append((rid, float(np.frombuffer(blob, dtype=np.float32) @ vec)))
    return out

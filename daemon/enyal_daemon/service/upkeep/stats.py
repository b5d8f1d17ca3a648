"""What the store holds: counts by type, scope and confidence band, edges, size."""

from __future__ import annotations

from enyal_protocol import wire as p

from ...store import entries
from ...store import graph as graph_store
from ..core.engine import Engine

HIGH_CONFIDENCE, LOW_CONFIDENCE = 0.7, 0.3
_BANDS = {"high": "high (>=0.7)", "medium": "medium (0.3-0.7)", "low": "low (<0.3)"}


def stats(engine: Engine, params: p.StatsParams | None = None) -> p.Stats:
    conn = engine.reader()
    total, active, oldest, newest = entries.totals(conn)
    by_type: dict[str, int] = dict.fromkeys(p.ALL_TYPES, 0)
    by_type.update(entries.active_counts_by(conn, "content_type"))
    by_scope: dict[str, int] = dict.fromkeys(p.SCOPE_LEVELS, 0)
    by_scope.update(entries.active_counts_by(conn, "scope_level"))
    bands = entries.confidence_bands(conn, HIGH_CONFIDENCE, LOW_CONFIDENCE)
    db = engine.db_path
    size = sum(f.stat().st_size for f in (db, db.with_name(db.name + "-wal")) if f.exists())
    edges, edges_by_type, connected = graph_store.counts(conn)
    return p.Stats(
        total_edges=edges,
        edges_by_type=edges_by_type,
        connected_entries=connected,
        total=total,
        active=active,
        deprecated=total - active,
        by_type=by_type,
        by_scope=by_scope,
        confidence={label: bands.get(band, 0) for band, label in _BANDS.items()},
        db_bytes=size,
        oldest=oldest,
        newest=newest,
    )

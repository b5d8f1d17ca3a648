"""The knowledge graph: link, unlink, edges, traverse, impact (seed 004).

Edges are written on the writer like any other write; `remember` creates its
explicit edges and auto-links inside its own transaction through `link_in_tx`.
Traversal is breadth-first in Python with one SQL query per level: each node
is reported once, at its shortest depth, with the edge that first reached it,
and a visited set ends cycles.
"""

from __future__ import annotations

from typing import Any

import apsw

from enyal_protocol import wire as p

from ...embedder.onnx import Vectors
from ...errors import Conflict, InvalidValue, NotFound
from ...store import entries, graph
from ...store.writer import Tx
from ..core.engine import Engine, require_entry
from ..rules import redaction
from ..rules.limits import check_metadata

AUTO_LINK_MAX = 5


def link_in_tx(
    engine: Engine,
    tx: Tx,
    source: str,
    target: str,
    edge_type: str,
    confidence: float = 1.0,
    metadata: dict[str, Any] | None = None,
    when: str | None = None,
) -> p.Edge:
    if source == target:
        raise InvalidValue("an entry cannot be linked to itself")
    src = require_entry(tx.conn, source)
    dst = require_entry(tx.conn, target)
    source, target = src.id, dst.id
    if source == target:
        raise InvalidValue("an entry cannot be linked to itself")
    if graph.find(tx.conn, source, target, edge_type) is not None:
        raise Conflict(f"a {edge_type} edge from {source} to {target} already exists")
    if edge_type == "supersedes":
        _check_not_superseded(tx, target)
    when = when or engine.clock.now_iso()
    edge = graph.insert(tx.conn, source, target, edge_type, confidence, metadata or {}, when)
    engine.changes.note_edge(tx, "linked", src, dst, edge.edge_type)
    return edge


def _check_not_superseded(tx: Tx, target: str) -> None:
    """A chain has one head: superseding an entry that a live entry already supersedes
    would fork it. Refused, naming the head to supersede instead (docs/PROTOCOL.md)."""
    by = graph.superseded_by(tx.conn, [target]).get(target)
    if by is not None:
        head = graph.head_of(tx.conn, target)
        raise Conflict(
            f"{target} is already superseded by {by}; supersede the current head of its "
            f"chain, {head}, instead",
            {"superseded_by": by, "head": head},
        )


def remember_edges(
    engine: Engine, tx: Tx, entry_id: str, params: p.RememberParams, vec: Vectors, when: str
) -> list[p.Edge]:
    """The explicit edges and auto-links of a new entry, on its own transaction."""
    made = [
        link_in_tx(engine, tx, entry_id, target, edge_type, when=when)
        for edge_type, targets in (
            ("relates_to", params.relates_to),
            ("supersedes", params.supersedes),
            ("depends_on", params.depends_on),
        )
        for target in dict.fromkeys(targets)
    ]
    if params.auto_link:
        new = require_entry(tx.conn, entry_id)
        linked = {e.target_id for e in made if e.edge_type == "relates_to"}
        hits = engine.index.search(vec, AUTO_LINK_MAX + len(linked))
        rows = entries.by_rids(tx.conn, [rid for rid, _ in hits])
        auto = 0
        for rid, sim in hits:  # best first: stop at the threshold
            if auto == AUTO_LINK_MAX or sim < params.auto_link_threshold:
                break
            row = rows.get(rid)
            if row is None or row.id in linked:
                continue
            linked.add(row.id)
            auto += 1
            made.append(
                graph.insert(
                    tx.conn,
                    entry_id,
                    row.id,
                    "relates_to",
                    round(sim, 6),
                    {"auto_generated": True},
                    when,
                )
            )
            engine.changes.note_edge(tx, "linked", new, row, "relates_to")
    return made


def link(engine: Engine, params: p.LinkParams) -> p.Edge:
    check_metadata(params.metadata)
    metadata = redaction.scrub(engine.redactor, metadata=params.metadata).metadata

    def job(tx: Tx) -> p.Edge:
        return link_in_tx(
            engine,
            tx,
            params.source_id,
            params.target_id,
            params.edge_type,
            params.confidence,
            metadata,
        )

    edge = engine.write(job)
    engine.bookkeeping.event(edge.source_id, "link")
    return edge


def unlink(engine: Engine, params: p.UnlinkParams) -> p.Edge:
    def job(tx: Tx) -> p.Edge:
        source = require_entry(tx.conn, params.source_id)
        target = require_entry(tx.conn, params.target_id)
        edge = graph.find(tx.conn, source.id, target.id, params.edge_type)
        if edge is None:
            raise NotFound(
                f"no {params.edge_type} edge from {params.source_id} to {params.target_id}"
            )
        graph.delete(tx.conn, edge.id)
        engine.changes.note_edge(tx, "unlinked", source, target, edge.edge_type)
        return edge

    return engine.write(job)


def edges(engine: Engine, params: p.EdgesParams) -> p.EdgesResult:
    conn = engine.reader()
    entry_id = engine.require(params.id, conn).id
    types = [params.edge_type] if params.edge_type else []
    return p.EdgesResult(edges=graph.touching(conn, [entry_id], params.direction, types))


def walk(
    conn: apsw.Connection, start: str, direction: str, types: list[str], depth: int
) -> list[tuple[str, int, p.Edge]]:
    """(entry id, depth, edge that reached it) for every entry within `depth` hops."""
    seen = {start}
    frontier = [start]
    found: list[tuple[str, int, p.Edge]] = []
    for level in range(1, depth + 1):
        if not frontier:
            break
        current = set(frontier)
        nxt: list[str] = []
        for edge in graph.touching(conn, frontier, direction, types):
            steps = []
            if direction in ("outgoing", "both") and edge.source_id in current:
                steps.append(edge.target_id)
            if direction in ("incoming", "both") and edge.target_id in current:
                steps.append(edge.source_id)
            for other in steps:
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
                    found.append((other, level, edge))
        frontier = nxt
    return found


def _entries_by_id(conn: apsw.Connection, ids: list[str]) -> dict[str, p.Entry]:
    return {i: row.entry() for i, row in entries.by_ids(conn, ids).items()}


def traverse(engine: Engine, params: p.TraverseParams) -> p.TraverseResult:
    if (params.id is None) == (params.query is None):
        raise InvalidValue("traverse needs exactly one of id or query")
    conn = engine.reader()
    if params.id is not None:
        start = engine.require(params.id, conn).entry()
    else:
        assert params.query is not None
        hits = engine.index.search(engine.embed_query(params.query), 1)
        found_rows = entries.by_rids(conn, [hits[0][0]]) if hits else {}
        if not found_rows:
            raise NotFound("no entry matches the query")
        start = next(iter(found_rows.values())).entry()
    found = walk(conn, start.id, params.direction, list(params.edge_types), params.depth)
    by_id = _entries_by_id(conn, [i for i, _, _ in found])
    nodes = [
        p.TraverseNode(entry=by_id[i], depth=d, via=edge) for i, d, edge in found if i in by_id
    ]
    return p.TraverseResult(start=start, nodes=nodes)


def impact(engine: Engine, params: p.ImpactParams) -> p.ImpactResult:
    conn = engine.reader()
    target = engine.require(params.id, conn).entry()
    dependents = walk(conn, target.id, "incoming", ["depends_on"], params.depth)
    related_edges = [
        e
        for e in graph.touching(conn, [target.id], "both", ["relates_to"])
        if e.confidence >= params.related_threshold
    ]
    related_ids = {
        (e.source_id if e.target_id == target.id else e.target_id): e.confidence
        for e in related_edges
    }
    by_id = _entries_by_id(conn, [i for i, _, _ in dependents] + list(related_ids))
    engine.bookkeeping.event(target.id, "impact")
    return p.ImpactResult(
        entry=target,
        direct=[by_id[i] for i, d, _ in dependents if d == 1 and i in by_id],
        transitive=[
            p.ImpactNode(entry=by_id[i], depth=d) for i, d, _ in dependents if d > 1 and i in by_id
        ],
        related=sorted(
            (
                p.RelatedEntry(entry=by_id[i], confidence=c)
                for i, c in related_ids.items()
                if i in by_id
            ),
            key=lambda r: -r.confidence,
        ),
    )

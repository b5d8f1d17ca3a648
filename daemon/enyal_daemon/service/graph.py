"""The knowledge graph: link, unlink, edges, traverse, impact (seed 004).

Edges are written on the writer like any other write; `remember` creates its
explicit edges and auto-links inside its own transaction through `link_in_tx`.
Traversal is breadth-first in Python with one SQL query per level: each node
is reported once, at its shortest depth, with the edge that first reached it,
and a visited set ends cycles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enyal_protocol import wire as p

from ..errors import Conflict, InvalidValue, NotFound
from ..store import entries, graph
from ..store.writer import Tx
from .clock import now_iso
from .limits import check_metadata

if TYPE_CHECKING:
    import apsw

    from ..embedder.onnx import Vectors
    from .memory import Memory

AUTO_LINK_MAX = 5


def _require(conn: apsw.Connection, entry_id: str) -> tuple[Any, ...]:
    row = entries.get_row(conn, entry_id)
    if row is None:
        raise NotFound(f"no entry with id {entry_id!r}")
    return row


def link_in_tx(
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
    _require(tx.conn, source)
    _require(tx.conn, target)
    if graph.find(tx.conn, source, target, edge_type) is not None:
        raise Conflict(f"a {edge_type} edge from {source} to {target} already exists")
    return graph.insert(
        tx.conn, source, target, edge_type, confidence, metadata or {}, when or now_iso()
    )


def remember_edges(
    memory: Memory, tx: Tx, entry_id: str, params: p.RememberParams, vec: Vectors, when: str
) -> list[p.Edge]:
    """The explicit edges and auto-links of a new entry, on its own transaction."""
    made = [
        link_in_tx(tx, entry_id, target, edge_type, when=when)
        for edge_type, targets in (
            ("relates_to", params.relates_to),
            ("supersedes", params.supersedes),
            ("depends_on", params.depends_on),
        )
        for target in dict.fromkeys(targets)
    ]
    if params.auto_link:
        linked = {e.target_id for e in made if e.edge_type == "relates_to"}
        hits = memory.index.search(vec, AUTO_LINK_MAX + len(linked))
        rows = entries.rows_by_rid(tx.conn, [rid for rid, _ in hits])
        auto = 0
        for rid, sim in hits:  # best first: stop at the threshold
            if auto == AUTO_LINK_MAX or sim < params.auto_link_threshold:
                break
            row = rows.get(rid)
            if row is None or row[1] in linked:
                continue
            linked.add(row[1])
            auto += 1
            made.append(
                graph.insert(
                    tx.conn,
                    entry_id,
                    row[1],
                    "relates_to",
                    round(sim, 6),
                    {"auto_generated": True},
                    when,
                )
            )
    return made


def link(memory: Memory, params: p.LinkParams) -> p.Edge:
    check_metadata(params.metadata)

    def job(tx: Tx) -> p.Edge:
        return link_in_tx(
            tx,
            params.source_id,
            params.target_id,
            params.edge_type,
            params.confidence,
            params.metadata,
        )

    edge = memory.writer.run(job)
    memory.record_event(edge.source_id, "link")
    return edge


def unlink(memory: Memory, params: p.UnlinkParams) -> p.Edge:
    def job(tx: Tx) -> p.Edge:
        edge = graph.find(tx.conn, params.source_id, params.target_id, params.edge_type)
        if edge is None:
            raise NotFound(
                f"no {params.edge_type} edge from {params.source_id} to {params.target_id}"
            )
        graph.delete(tx.conn, edge.id)
        return edge

    return memory.writer.run(job)


def edges(memory: Memory, params: p.EdgesParams) -> p.EdgesResult:
    conn = memory.reader()
    _require(conn, params.id)
    types = [params.edge_type] if params.edge_type else []
    return p.EdgesResult(edges=graph.touching(conn, [params.id], params.direction, types))


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
    out: dict[str, p.Entry] = {}
    for start in range(0, len(ids), graph.CHUNK):
        chunk = ids[start : start + graph.CHUNK]
        cur = conn.execute(
            f"SELECT {entries.COLUMNS} FROM context_entries "
            f"WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for row in cur:
            out[row[1]] = entries.row_to_entry(row)
    return out


def traverse(memory: Memory, params: p.TraverseParams) -> p.TraverseResult:
    if (params.id is None) == (params.query is None):
        raise InvalidValue("traverse needs exactly one of id or query")
    conn = memory.reader()
    if params.id is not None:
        start = entries.row_to_entry(_require(conn, params.id))
    else:
        assert params.query is not None
        hits = memory.index.search(memory.embed(params.query), 1)
        if not hits:
            raise NotFound("no entry matches the query")
        start = entries.row_to_entry(entries.rows_by_rid(conn, [hits[0][0]])[hits[0][0]])
    found = walk(conn, start.id, params.direction, list(params.edge_types), params.depth)
    by_id = _entries_by_id(conn, [i for i, _, _ in found])
    nodes = [
        p.TraverseNode(entry=by_id[i], depth=d, via=edge) for i, d, edge in found if i in by_id
    ]
    return p.TraverseResult(start=start, nodes=nodes)


def impact(memory: Memory, params: p.ImpactParams) -> p.ImpactResult:
    conn = memory.reader()
    target = entries.row_to_entry(_require(conn, params.id))
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
    memory.record_event(target.id, "impact")
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

"""The outbox's writer: every change to a memory of a space, recorded in the same
transaction as the change (docs/ARCHITECTURE.md, "The replica").

The publisher tells the capture of every change on its transaction (service/core/
changes.py, `Capture`); the capture only collects the ids a job touched, and at the
job's end (`Tx.before_commit`, still inside its savepoint) snapshots each as it finally
is: one version per memory per job, however many notes the job made. A memory whose
state is the one last sent is not sent again; one gone from the store is a tombstone.
A job that applies what the hub sent is silenced: its changes are the hub's already.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

import apsw
import msgspec

from enyal_protocol.projects import within

from ...hub.change import Change
from ...store import entries, graph
from ...store import hub as rows
from ...store.rows import EntryRow
from ...store.writer import Tx
from . import body


class _Pending:
    """What one job touched; called once, at its end."""

    def __init__(self, capture: Capture, tx: Tx) -> None:
        self.capture = capture
        self.tx = tx
        self.ids: dict[str, None] = {}  # in order of first note
        self.edges: list[tuple[str, str, str, bool]] = []
        self.silent = False

    def __call__(self) -> None:
        if not self.silent:
            self.capture.flush(self.tx, self)


class Capture:
    def __init__(self, model_id: str, wake: Callable[[], None] | None = None) -> None:
        self.model_id = model_id  # vectors travel labelled with it
        self.wake = wake  # the worker's, once it runs: a new change to push
        self._lock = threading.Lock()

    def _pending(self, tx: Tx) -> _Pending:
        for hook in tx.before_commit:
            if isinstance(hook, _Pending):
                return hook
        pending = _Pending(self, tx)
        tx.before_commit.append(pending)
        return pending

    def silence(self, tx: Tx) -> None:
        """Nothing `tx` changes is captured: it applies changes pulled from the hub."""
        self._pending(tx).silent = True

    # --- what the publisher calls --------------------------------------------------------

    def memory(self, tx: Tx, memory_id: str) -> None:
        self._pending(tx).ids.setdefault(memory_id)

    def edge(self, tx: Tx, source: str, target: str, edge_type: str, present: bool) -> None:
        self._pending(tx).edges.append((source, target, edge_type, present))

    # --- at the job's end ----------------------------------------------------------------

    def flush(self, tx: Tx, pending: _Pending) -> None:
        conn = tx.conn
        if not rows.spaces(conn):
            return  # not a member of any space: nothing here is shared through a hub
        made = 0
        for memory_id in pending.ids:
            made += self._memory(conn, memory_id)
        for source, target, edge_type, present in pending.edges:
            made += self._edge(conn, source, target, edge_type, present)
        for memory_id in pending.ids:
            made += self._edges_of(conn, memory_id)
        if made and self.wake is not None:
            tx.after_commit.append(self.wake)

    def _memory(self, conn: apsw.Connection, memory_id: str) -> int:
        member = rows.member(conn, memory_id)
        row = entries.get(conn, memory_id)
        if member is None:
            space = by_rule(conn, row) if row is not None else None
            if space is None:
                return 0
            rows.enrol(conn, memory_id, space)
            member = rows.member(conn, memory_id)
            assert member is not None
        device = rows.device(conn)
        if row is None:  # deleted for good: a tombstone, kept
            version = (rows.tick(conn), device)
            rows.bury(conn, memory_id, member.space, version)
            rows.forget_member(conn, memory_id)
            self._append(conn, member.space, memory_id, version, body.DELETE, b"{}", None)
            return 1
        state = body.state_of(row)
        digest = body.digest(state)
        if digest == member.digest:
            return 0
        version = (rows.tick(conn), device)
        payload = body.encode(body.Put(state=state, based=member.version))
        self._append(
            conn, member.space, memory_id, version, body.PUT, payload, entries.vector(conn, row.rid)
        )
        rows.set_version(conn, memory_id, member.space, version, member.version, digest)
        if member.review is not None:  # edited here after both versions were seen: settled
            rows.set_review(conn, memory_id, None)
        return 1

    def _edges_of(self, conn: apsw.Connection, memory_id: str) -> int:
        """A touched memory's edges against those last sent or applied: not every edge
        write is noted on its own (consolidation repoints edges in one UPDATE, a delete
        cascades), so the difference is what changed."""
        if rows.member(conn, memory_id) is None:
            return 0
        now = {
            (e.source_id, e.target_id, e.edge_type)
            for e in graph.touching(conn, [memory_id], "both")
        }
        sent = set(rows.edges_present(conn, memory_id))
        made = sum(self._edge(conn, *key, True) for key in sorted(now - sent))
        return made + sum(self._edge(conn, *key, False) for key in sorted(sent - now))

    def _edge(
        self, conn: apsw.Connection, source: str, target: str, edge_type: str, present: bool
    ) -> int:
        ends = [rows.member(conn, source), rows.member(conn, target)]
        if ends[0] is None or ends[1] is None or ends[0].space != ends[1].space:
            return 0  # only an edge between two memories of one space: the others have both
        known = rows.edge(conn, source, target, edge_type)
        if known is not None and known[1] == present:
            return 0
        version = (rows.tick(conn), rows.device(conn))
        rows.set_edge(conn, source, target, edge_type, version, present)
        payload = body.encode(
            body.Edge(source=source, target=target, edge_type=edge_type, present=present)  # type: ignore[arg-type]
        )
        self._append(conn, ends[0].space, source, version, body.EDGE, payload, None)
        return 1

    def _append(
        self,
        conn: apsw.Connection,
        space: str,
        memory_id: str,
        version: rows.Version,
        kind: str,
        payload: bytes,
        vector: bytes | None,
    ) -> None:
        change = Change(
            change_id=uuid.uuid4().hex,
            space=space,
            memory_id=memory_id,
            clock=version[0],
            device=version[1],
            kind=kind,
            body=payload,
            vector=vector,
            model_id=self.model_id,
        )
        rows.append(conn, msgspec.structs.astuple(change))


def by_rule(conn: apsw.Connection, row: EntryRow) -> str | None:
    """The space a project's rule puts this memory in, if any (a project's or a file's
    memory of that project)."""
    if row.scope_level not in ("project", "file"):
        return None
    for project, space in rows.rules(conn).items():
        if within(row.scope_path, project):
            return space
    return None

"""Applying what the hub sent: the convergence rule (docs/ARCHITECTURE.md, "The replica").

`prepare` runs outside the writer: it decodes each change, refuses a malformed one,
puts the text through what any input goes through (the secret rules, the injection
check) and finds its vectors (carried, when made by our model; else embedded here).
`apply` is one writer job for a pulled batch: each change once (by change id), in a
savepoint of its own so one that fails is reported and the rest apply, and the cursor
moved past the batch in the same transaction, so a crash can neither skip nor repeat.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import apsw
import msgspec
import numpy as np

from enyal_protocol import wire as p

from ...embedder import passages
from ...embedder.passages import Embedding
from ...errors import EnyalError
from ...hub.change import Change, Pulled, Rejected
from ...hygiene.injection import judge
from ...store import entries, graph, versions
from ...store import hub as rows
from ...store.writer import Tx
from ..core.engine import Engine
from ..files.shared_reading import CONCURRENT
from ..rules import redaction
from ..rules.clock import normalize_iso
from ..rules.limits import check_content
from . import body
from .capture import Capture

MAX_ID = 128  # a memory id is a uuid; anything far longer is not one


@dataclass
class Ready:
    """One pulled row, checked: a change to apply, or why it is refused."""

    seq: int
    change: Change | None = None
    refused: str | None = None
    put: body.Put | None = None
    edge: body.Edge | None = None
    emb: Embedding | None = None
    flags: list[str] = field(default_factory=list)


def prepare(engine: Engine, pulled: Sequence[Pulled | Rejected]) -> list[Ready]:
    return [_prepare(engine, item) for item in pulled]


def _prepare(engine: Engine, item: Pulled | Rejected) -> Ready:
    if isinstance(item, Rejected):
        return Ready(item.seq, refused=f"hub row {item.seq}: {item.reason}")
    c = item.change
    if rows.applied(engine.reader(), c.change_id):
        # Ours coming back, or a pull again from an earlier position: nothing to check or
        # embed (an old version's text would be embedded for nothing). apply skips it.
        return Ready(item.seq, c)
    try:
        if not c.memory_id or len(c.memory_id) > MAX_ID or "\x00" in c.memory_id:
            raise ValueError(f"bad memory id {c.memory_id[:MAX_ID]!r}")
        if c.kind == body.PUT:
            return _prepare_put(engine, item.seq, c)
        if c.kind == body.EDGE:
            return Ready(item.seq, c, edge=body.decode_edge(c.body))
        if c.kind == body.DELETE:
            return Ready(item.seq, c)
        raise ValueError(f"unknown kind {c.kind[:32]!r}")
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError, EnyalError) as exc:
        why = exc.message if isinstance(exc, EnyalError) else str(exc)
        return Ready(item.seq, c, refused=f"hub row {item.seq} (change {c.change_id}): {why}")


def _prepare_put(engine: Engine, seq: int, c: Change) -> Ready:
    put = body.decode_put(c.body)
    s = put.state
    check_content(s.content)
    normalize_iso(s.created_at, "created_at")
    normalize_iso(s.updated_at, "updated_at")
    # Someone else's writing: redacted as any write is, judged as any write is.
    clean = redaction.scrub(engine.redactor, content=s.content, tags=s.tags)
    s = msgspec.structs.replace(s, content=clean.content or "", tags=clean.tags or [])
    put = msgspec.structs.replace(put, state=s)
    row = entries.get(engine.reader(), c.memory_id)
    if row is not None and row.content == s.content:
        return Ready(seq, c, put=put)  # its text is stored already, with its vectors
    emb = _vectors(engine, c, s.content)
    flags = judge(" ".join([s.content, *s.tags]), emb.whole, emb.passages)
    return Ready(seq, c, put=put, emb=emb, flags=flags)


def _vectors(engine: Engine, c: Change, text: str) -> Embedding:
    """The text's vectors: the whole one carried, when our model made it (a long text's
    passages are embedded here: they do not travel); else all embedded here."""
    dim = engine.embedder.dim
    if (
        c.vector is not None
        and c.model_id == engine.embedder.files.model_id
        and len(c.vector) == dim * 4
    ):
        whole = np.frombuffer(c.vector, dtype="<f4").astype(np.float32)
        if np.all(np.isfinite(whole)):
            parts = passages.split(text, engine.embedder.count_tokens)
            return Embedding(whole, engine.embed_many(parts)) if parts else Embedding.of(whole)
    return engine.embed_memory(text)


def apply(
    engine: Engine,
    capture: Capture,
    ready: Sequence[Ready],
    cursor: int,
    key: str = "cursor",
) -> list[str]:
    """Apply a pulled batch and move the cursor (`key` in hub_state: the log's, or a
    space's catching up) to `cursor`, in one transaction. Returns what was refused or
    quarantined (for `hub status`)."""

    def job(tx: Tx) -> list[str]:
        capture.silence(tx)
        problems: list[str] = []
        for r in ready:
            if r.refused is not None:
                problems.append(r.refused)
                continue
            assert r.change is not None
            try:
                with tx.conn:  # a savepoint: a change that fails leaves nothing behind
                    _apply_one(engine, tx, r)
            except (EnyalError, apsw.Error, ValueError) as exc:
                why = exc.message if isinstance(exc, EnyalError) else str(exc)
                problems.append(f"hub row {r.seq} (change {r.change.change_id}): {why}")
                continue
            if r.flags:
                problems.append(
                    f"hub row {r.seq}: memory {r.change.memory_id} quarantined "
                    f"({', '.join(r.flags)})"
                )
        rows.put(tx.conn, key, str(cursor))
        rows.put(tx.conn, "last_pull", engine.clock.now_iso())  # last pull that brought any
        return problems

    return engine.write(job)


def _apply_one(engine: Engine, tx: Tx, r: Ready) -> None:
    c = r.change
    assert c is not None
    conn = tx.conn
    if rows.applied(conn, c.change_id):
        rows.seen_at(conn, c.change_id, r.seq)  # ours back: its position, to prune by
        return  # a pull that overlaps, or our own change coming back
    if r.seq <= rows.pruned(conn, c.space):
        return  # applied, its id since pruned (worker.prune): a pull from an old position
    rows.mark_applied(conn, c.change_id, r.seq, c.space)
    rows.observe(conn, c.clock)
    version = (c.clock, c.device)
    if c.kind == body.DELETE:
        _delete(engine, tx, c, version)
    elif c.kind == body.PUT:
        assert r.put is not None
        _put(engine, tx, c, r, r.put, version)
    else:
        assert r.edge is not None
        _edge(engine, tx, r.edge, version)


def _put(engine: Engine, tx: Tx, c: Change, r: Ready, put: body.Put, version: rows.Version) -> None:
    conn = tx.conn
    if rows.tombstone(conn, c.memory_id) is not None:
        return  # deleted for good: a put, however late or high, does not bring it back
    member = rows.member(conn, c.memory_id)
    row = entries.get(conn, c.memory_id)
    if member is not None and member.clock > 0:
        # Concurrent: neither writer held the other's version (or a later one).
        concurrent = put.based < member.version and member.based < version
        if version < member.version:
            if concurrent:
                rows.keep_conflict(conn, c.memory_id, version, c.body)
                rows.set_review(conn, c.memory_id, CONCURRENT)
            return
        if concurrent and row is not None:
            was = body.encode(body.Put(state=body.state_of(row), based=member.based))
            rows.keep_conflict(conn, c.memory_id, member.version, was)
            rows.set_review(conn, c.memory_id, CONCURRENT)
        elif not concurrent and member.review is not None:
            rows.set_review(conn, c.memory_id, None)  # made after seeing the winner: settled
    else:
        rows.enrol(conn, c.memory_id, c.space)
    _write_state(engine, tx, c.memory_id, put.state, r)
    after = entries.get(conn, c.memory_id)
    assert after is not None
    digest = body.digest(body.state_of(after))
    rows.set_version(conn, c.memory_id, c.space, version, put.based, digest)


def _write_state(engine: Engine, tx: Tx, memory_id: str, s: body.State, r: Ready) -> None:
    conn = tx.conn
    now = engine.clock.now_iso()
    row = entries.get(conn, memory_id)
    emb = r.emb
    if row is None or row.content != s.content:
        emb = emb or engine.embed_memory(s.content)  # not expected: prepare embedded it
    reason = ", ".join(r.flags) or None
    if row is None:
        assert emb is not None
        entry = p.Entry(
            id=memory_id,
            content=s.content,
            content_type=s.content_type,
            scope_level=s.scope_level,
            scope_path=s.scope_path,
            confidence=s.confidence,
            created_at=s.created_at,
            updated_at=s.updated_at,
            accessed_at=None,
            access_count=0,
            source_type=None,
            source_ref=None,
            tags=list(dict.fromkeys(s.tags)),
            metadata={},
            is_deprecated=s.forgotten,
            content_hash=entries.content_hash(s.content),
            importance=s.importance,
            written_by=s.written_by,
            quarantined=bool(r.flags),
            quarantine_reason=reason,
            status=s.status,
            due=s.due,
        )
        rid = entries.insert(conn, entry, *emb.blobs())
        versions.record(conn, memory_id, "created", now)
        engine.index_after_commit(
            tx, rid, emb, (s.scope_level, s.scope_path), s.content_type, not s.forgotten
        )
        engine.changes.note(tx, "created", entry)
        _edges_waiting(engine, tx, memory_id)
        return
    fields: dict[str, object] = {}
    if s.content != row.content:
        fields.update(
            content=s.content,
            content_hash=entries.content_hash(s.content),
            quarantined=int(bool(r.flags)),
            quarantine_reason=reason,
        )
    tags = list(dict.fromkeys(s.tags))
    if tags != row.tags():
        fields["tags"] = msgspec.json.encode(tags).decode()
    for name in ("content_type", "confidence", "importance", "status", "due", "written_by"):
        if getattr(s, name) != getattr(row, name):
            fields[name] = getattr(s, name)
    if s.forgotten != row.is_deprecated:
        fields["is_deprecated"] = int(s.forgotten)
    if not fields:
        return
    fields["updated_at"] = s.updated_at
    entries.update_fields(conn, row.rid, fields)
    kind: Literal["forgotten", "restored", "updated"] = "updated"
    if s.forgotten != row.is_deprecated:
        kind = "forgotten" if s.forgotten else "restored"
    versions.record(conn, memory_id, kind, now)
    if "content" in fields:
        assert emb is not None
        entries.replace_vector(conn, row.rid, *emb.blobs())
        engine.index_after_commit(tx, row.rid, emb, row.scope, s.content_type, not s.forgotten)
    else:
        if s.content_type != row.content_type:
            engine.retype_after_commit(tx, row.rid, s.content_type)
        if "is_deprecated" in fields:
            tx.after_commit.append(
                functools.partial(engine.index.set_active, row.rid, not s.forgotten)
            )
    after = entries.get(conn, memory_id)
    assert after is not None
    engine.changes.note(tx, kind, after, previous_type=row.content_type)


def _delete(engine: Engine, tx: Tx, c: Change, version: rows.Version) -> None:
    conn = tx.conn
    rows.bury(conn, c.memory_id, c.space, version)
    rows.forget_member(conn, c.memory_id)
    row = entries.get(conn, c.memory_id)
    if row is None:
        return
    engine.changes.note_deleted(tx, row)
    entries.delete(conn, row.rid)
    tx.after_commit.append(functools.partial(engine.index.remove, row.rid))
    engine.purge_after_commit(tx)


def _edge(engine: Engine, tx: Tx, e: body.Edge, version: rows.Version) -> None:
    conn = tx.conn
    known = rows.edge(conn, e.source, e.target, e.edge_type)
    if known is not None and known[0] >= version:
        return  # a later add or remove of this edge is in force
    rows.set_edge(conn, e.source, e.target, e.edge_type, version, e.present)
    source, target = entries.get(conn, e.source), entries.get(conn, e.target)
    if source is None or target is None or source.id == target.id:
        return  # an end deleted for good: nothing to link (its version is kept above)
    existing = graph.find(conn, e.source, e.target, e.edge_type)
    if e.present and existing is None:
        graph.insert(conn, e.source, e.target, e.edge_type, 1.0, {}, engine.clock.now_iso())
        engine.changes.note_edge(tx, "linked", source, target, e.edge_type)
    elif not e.present and existing is not None:
        graph.delete(conn, existing.id)
        engine.changes.note_edge(tx, "unlinked", source, target, e.edge_type)


def _edges_waiting(engine: Engine, tx: Tx, memory_id: str) -> None:
    """Edges in force whose other end was here before this memory arrived: made now, so
    an edge is the same whichever of its three changes came last."""
    for source, target, edge_type in rows.edges_present(tx.conn, memory_id):
        ends = entries.get(tx.conn, source), entries.get(tx.conn, target)
        if ends[0] is None or ends[1] is None or source == target:
            continue
        if graph.find(tx.conn, source, target, edge_type) is None:
            graph.insert(tx.conn, source, target, edge_type, 1.0, {}, engine.clock.now_iso())
            engine.changes.note_edge(tx, "linked", ends[0], ends[1], edge_type)  # type: ignore[arg-type]

"""The verbs on one memory: remember, get, update, forget, restore, confirm, release.

Each validates and embeds outside the writer (embedding is the slow part and needs
no lock), then does its reads-and-writes as one job on the writer, where the checks
that must not race (dedup, existence) run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import apsw
import msgspec

from enyal_protocol import wire as p

from ...embedder.onnx import Vectors
from ...embedder.passages import Embedding
from ...errors import Conflict, InvalidValue, NotFound
from ...hygiene.injection import judge_memory
from ...store import entries, versions
from ...store import sources as source_rows
from ...store.rows import EntryRow
from ...store.sources import SourceRow
from ...store.writer import Tx
from ..core import traffic
from ..core.engine import Engine
from ..files import shared_files, sharing, sources
from ..hub import membership
from ..rules import conflicts, expiry, redaction, scopes
from ..rules.clock import to_iso
from ..rules.limits import check_content, check_metadata
from . import consolidation, graph
from .dedup import nearest_in_scope


def remember(
    engine: Engine,
    params: p.RememberParams,
    content_type: p.ContentType | None = None,
    status: p.TaskStatus | None = None,
    due: str | None = None,
    existing: Callable[[apsw.Connection], EntryRow | None] | None = None,
) -> p.RememberResult:
    """Store a memory. The keywords are for the verbs that store the types remember does
    not take (tasks/logs): their type, and a task's status and due date; and `existing`,
    the entry that makes this one unneeded if it exists when the write runs (a day's log:
    checked in the writer, so two first appends cannot both create it)."""
    check_content(params.content)
    check_metadata(params.metadata)
    clean = redaction.scrub(
        engine.redactor,
        content=params.content,
        tags=params.tags,
        metadata=params.metadata,
        source_ref=params.source_ref,
    )
    params = msgspec.structs.replace(
        params,
        content=clean.content,
        tags=clean.tags,
        metadata=clean.metadata,
        source_ref=clean.source_ref,
    )
    scope_path = scopes.resolve_scope_path(params.scope, params.scope_path, params.cwd)
    if params.shared and params.scope not in ("project", "file"):
        raise InvalidValue(f"only a project's or a file's memory can be shared, not {params.scope}")
    # The file cited is read where it is on this machine; the entry keeps its place.
    ref = sources.resolve_ref(params.source_type, params.source_ref, params.cwd)
    local_file = scopes.local_file(params.scope, params.scope_path, params.cwd)
    cited = sources.cited_path(params.source_type, ref, params.scope, local_file)
    params = msgspec.structs.replace(params, source_ref=sources.stored_ref(params.source_type, ref))
    # Hashed before the writer job: reading a file must not hold every other write up. A
    # file that does not exist (yet) has nothing to compare with later: not tracked.
    cited_as = sources.fingerprint(cited) if cited is not None else None
    if cited_as is not None and cited_as.hash is None:
        cited_as = None
    digest = entries.content_hash(params.content)
    membership.check_space(engine, params.space)

    def already(conn: apsw.Connection) -> EntryRow | None:
        same = entries.find_by_hash(conn, digest, params.scope, scope_path)
        if same is None and existing is not None:
            same = existing(conn)
        # A task is not the fact it shares its words with (nor a log line a task).
        if same is None or (content_type is not None and same.content_type != content_type):
            return None
        return same

    # Agents repeat what they know: a text the scope holds already costs no embedding (the
    # writer checks again, for a write that lands in between).
    same = already(engine.reader())
    if same is not None:
        if params.shared:  # asked to share what it holds already: shared now
            sharing.share(engine, p.ShareParams(id=same.id, cwd=params.cwd))
        if params.space is not None:  # likewise into the hub's space
            membership.share(engine, p.ShareParams(id=same.id, space=params.space))
        return p.RememberResult(
            id=same.id, action="existing", entry=same.entry(), redacted=clean.found
        )
    traffic.announce()  # from here to its commit bookkeeping waits (engine.write settles)
    emb = engine.embed_memory(params.content)
    vec = emb.whole
    at = engine.clock.now()
    now = to_iso(at)
    expires = expiry.expires_at(params.ttl, at) if params.ttl is not None else None
    kind = content_type or params.content_type
    flags = judge_memory(
        params.content,
        params.tags,
        kind,
        emb.whole,
        emb.passages,
        parts=emb.parts,
        states=emb.states,
    )
    entry = p.Entry(
        id=str(uuid.uuid4()),
        content=params.content,
        content_type=kind,
        scope_level=params.scope,
        scope_path=scope_path,
        confidence=params.confidence,
        created_at=now,
        updated_at=now,
        accessed_at=None,
        access_count=0,
        source_type=params.source_type,
        source_ref=params.source_ref,
        tags=list(dict.fromkeys(params.tags)),
        metadata=params.metadata,
        is_deprecated=False,
        content_hash=digest,
        importance=params.importance,
        expires_at=expires,
        written_by=params.written_by,
        quarantined=bool(flags),
        quarantine_reason=", ".join(flags) or None,
        status=status,
        due=due,
    )

    def job(tx: Tx) -> p.RememberResult:
        same = already(tx.conn)
        if same is not None:
            return p.RememberResult(id=same.id, action="existing", entry=same.entry())
        near = (
            nearest_in_scope(engine, tx.conn, vec, params.scope, scope_path)
            if params.dedup != "off"
            else None
        )
        similarity = near[1] if near is not None else None
        duplicate = near is not None and near[1] >= params.dedup_threshold
        if near is not None and duplicate and params.dedup == "reject":
            return p.RememberResult(
                id=near[0].id,
                action="rejected",
                similarity=similarity,
                duplicate_of=near[0].id,
                entry=near[0].entry(),
            )
        if near is not None and duplicate and params.dedup == "merge":
            merged = _replace_content(engine, tx, near[0], params.content, emb, now)
            return p.RememberResult(
                id=merged.id,
                action="merged",
                similarity=similarity,
                duplicate_of=merged.id,
                entry=merged,
            )
        found_conflicts, candidates = _contradictions(engine, tx, params, scope_path, vec)
        rid = entries.insert(tx.conn, entry, *emb.blobs())
        if cited is not None and cited_as is not None:
            source_rows.record(tx.conn, rid, cited, cited_as)
        engine.note_expiry(tx, expires)
        versions.record(tx.conn, entry.id, "created", now)
        engine.changes.note(tx, "created", entry)  # before its edges' changes
        edges = graph.remember_edges(engine, tx, entry.id, params, vec, now)
        engine.index_after_commit(tx, rid, emb, (params.scope, scope_path), entry.content_type)
        if params.shared or sharing.by_rule(tx.conn, entry, params.cwd):
            sharing.mark_on(tx, rid, entry, params.cwd, now)
        if params.space is not None:
            membership.enrol(tx, entry.id, params.space)
        return p.RememberResult(
            id=entry.id,
            action="stored" if duplicate else "created",
            similarity=similarity,
            duplicate_of=near[0].id if near is not None and duplicate else None,
            entry=entry,
            edges=edges,
            conflicts=found_conflicts,
            supersedes_candidates=candidates,
        )

    result = engine.write(job)
    if result.action in ("created", "stored"):
        # After the commit, on this request's thread: the reply says the file is there
        # (a failed write is logged, and written by the next reconcile: sharing.py).
        shared_files.write_file(engine, result.id)
    return msgspec.structs.replace(result, redacted=clean.found)


def _contradictions(
    engine: Engine, tx: Tx, params: p.RememberParams, scope_path: str | None, vec: Vectors
) -> tuple[list[p.Related], list[p.Related]]:
    if not (params.detect_conflicts or params.suggest_supersedes):
        return [], []
    # Only what some place sees together with the new memory can contradict it: two
    # projects' opposite conventions are each right in their own project.
    view = scopes.view_around(params.scope, params.scope_path, params.cwd, engine.groups)
    groups = None if view is None else engine.groups.matching(view.sees, view)
    hits = engine.index.search(vec, conflicts.CANDIDATES, groups=groups)
    rows = entries.by_rids(tx.conn, [rid for rid, _ in hits])
    similar = [(rows[rid], sim) for rid, sim in hits if rid in rows]
    # Superseded entries are history; those this memory supersedes are being settled now.
    settled = conflicts.superseded(tx.conn, similar) | set(params.supersedes)
    return conflicts.review(
        params.content,
        params.content_type,
        (params.scope, scope_path),
        similar,
        params.detect_conflicts,
        params.suggest_supersedes,
        settled,
    )


def _replace_content(
    engine: Engine, tx: Tx, row: EntryRow, content: str, emb: Embedding, now: str
) -> p.Entry:
    entries.update_fields(tx.conn, row.rid, {"content": content, "updated_at": now})
    entries.replace_vector(tx.conn, row.rid, *emb.blobs())
    versions.record(tx.conn, row.id, "updated", now)
    engine.index_after_commit(
        tx, row.rid, emb, row.scope, row.content_type, active=not row.is_deprecated
    )
    engine.changes.note(tx, "updated", row)
    return engine.require(row.id, tx.conn).entry()


def get(engine: Engine, params: p.GetParams) -> p.Entry:
    entry = engine.require(params.id).entry()
    sources.annotate(engine, [entry])
    membership.annotate(engine, [entry])
    engine.bookkeeping.touch([entry.id])  # reading an entry is using it, as a recall hit is
    engine.bookkeeping.event(entry.id, "access")
    return entry


def release(engine: Engine, params: p.ReleaseParams) -> p.Entry:
    """The user read a quarantined entry and vouches for it: back into default recall.
    (The MCP shim offers no tool for this: an agent must not release what it wrote.)"""

    def job(tx: Tx) -> p.Entry:
        row = engine.require(params.id, tx.conn)
        if not row.quarantined:  # nothing to release: nothing changes, no version
            return row.entry()
        fields = {"quarantined": 0, "quarantine_reason": None}
        entries.update_fields(tx.conn, row.rid, fields)
        when = engine.clock.now_iso()
        versions.record(tx.conn, row.id, "released", when)  # who vouched, and when
        engine.changes.note(tx, "updated", row)
        return engine.require(row.id, tx.conn).entry()

    return engine.write(job)


def confirm(engine: Engine, params: p.ConfirmParams) -> p.Entry:
    """The memory was checked and still holds: its decay clock starts again (and recency
    counts from now), and the confirmation is counted. A 'confirmed' version keeps the
    check in the entry's history, with the confidence it set. A file it cites is recorded
    as it is now: whoever confirms has checked the memory against it. (Not for a mirror of
    an indexed file: its text changes only when the file is indexed again.)"""
    entry_id = engine.require(params.id).id
    cited = _cited_now(engine, entry_id)

    def job(tx: Tx) -> p.Entry:
        row = engine.require(entry_id, tx.conn)
        now = engine.clock.now_iso()
        fields: dict[str, Any] = {"confirmed_at": now, "confirm_count": row.confirm_count + 1}
        if params.confidence is not None:
            fields["confidence"] = params.confidence
        entries.update_fields(tx.conn, row.rid, fields)
        if cited is not None:
            source_rows.refresh(tx.conn, [row.rid], cited)
        versions.record(tx.conn, row.id, "confirmed", now)
        engine.changes.note(tx, "updated", row)
        return engine.require(row.id, tx.conn).entry()

    return engine.write(job)


def _cited_now(engine: Engine, entry_id: str) -> source_rows.Fingerprint | None:
    """The file the entry cites as it is now (None: it cites none, or is a mirror)."""
    row = sources.source_of(engine, entry_id)
    if row is None or row.mirror:
        return None
    return sources.fingerprint(row.path)


def update(engine: Engine, params: p.UpdateParams) -> p.UpdateResult:
    fields: dict[str, Any] = {}
    emb: Embedding | None = None
    if params.content is not None:
        check_content(params.content)
    if params.metadata is not None:
        check_metadata(params.metadata)
    clean = redaction.scrub(
        engine.redactor, content=params.content, tags=params.tags, metadata=params.metadata
    )
    params = msgspec.structs.replace(
        params, content=clean.content, tags=clean.tags, metadata=clean.metadata
    )
    if params.content is not None:
        traffic.announce()  # as remember's
        emb = engine.embed_memory(params.content)
        fields["content"] = params.content
    if params.content_type is not None:
        fields["content_type"] = params.content_type
    if params.confidence is not None:
        fields["confidence"] = params.confidence
    if params.tags is not None:
        fields["tags"] = list(dict.fromkeys(params.tags))
    if params.metadata is not None:
        fields["metadata"] = params.metadata
    if params.importance is not None:
        fields["importance"] = params.importance
    if params.ttl is not None:
        fields["expires_at"] = expiry.expires_at(params.ttl, engine.clock.now())
    if not fields:
        raise InvalidValue(
            "nothing to update: give content, content_type, confidence, tags, metadata, "
            "importance or ttl"
        )
    before = engine.require(params.id)
    entry_id = before.id
    flags = _judged(engine, before, params, emb)
    new_text = params.content is not None or params.tags is not None
    if new_text and params.written_by is not None:
        # New text is its writer's, as a remembered memory is: one read from the
        # repository and edited here is this user's (or agent's) from now on.
        fields["written_by"] = params.written_by
    if flags:  # new text is checked as new text is; a release is not undone otherwise
        fields["quarantined"] = True
        fields["quarantine_reason"] = ", ".join(flags)
    source = _writable(engine, entry_id)
    cited = sources.fingerprint(source.path) if source is not None else None
    fields["updated_at"] = engine.clock.now_iso()

    def job(tx: Tx) -> p.Entry:
        row = engine.require(entry_id, tx.conn)
        if "content_type" in fields and row.content_type in ("task", "log"):
            raise InvalidValue(f"a {row.content_type} stays one: its type cannot change")
        if params.content is not None:  # remember never stores one text twice in a scope
            same = entries.find_by_hash(tx.conn, entries.content_hash(params.content), *row.scope)
            if same is not None and same.id != row.id:
                raise Conflict(
                    f"entry {same.id} already holds this content in the same scope",
                    {"existing": same.id},
                )
        entries.update_fields(tx.conn, row.rid, fields)
        if cited is not None:  # whoever updates a memory has looked at what it cites
            source_rows.refresh(tx.conn, [row.rid], cited)
        engine.note_expiry(tx, fields.get("expires_at"))
        versions.record(tx.conn, row.id, "updated", fields["updated_at"])
        kind = fields.get("content_type", row.content_type)
        if emb is not None:
            entries.replace_vector(tx.conn, row.rid, *emb.blobs())
            engine.index_after_commit(
                tx, row.rid, emb, row.scope, kind, active=not row.is_deprecated
            )
        elif kind != row.content_type:
            engine.retype_after_commit(tx, row.rid, kind)
        entry = engine.require(row.id, tx.conn).entry()
        engine.changes.note(tx, "updated", entry, previous_type=row.content_type)
        return entry

    entry = engine.write(job)
    engine.bookkeeping.event(entry.id, "update")
    return p.UpdateResult(**msgspec.structs.asdict(entry), redacted=clean.found)


def _judged(
    engine: Engine, row: EntryRow, params: p.UpdateParams, emb: Embedding | None
) -> list[str]:
    """New text (content or tags) judged as remember judges it: the memory as the update
    leaves it, its text with its tags, by its type. New tags alone are judged with the
    text they go with, by its stored vectors (embedded again only if it has none)."""
    if params.content is None and params.tags is None:
        return []
    content = params.content if params.content is not None else row.content
    vectors = emb if emb is not None else engine.stored_embedding(row.rid, text=content)
    if vectors is None:
        vectors = engine.embed_memory(content)
    tags = params.tags if params.tags is not None else row.entry().tags
    kind = params.content_type or row.content_type
    return judge_memory(
        content,
        tags,
        kind,
        vectors.whole,
        vectors.passages,
        parts=vectors.parts,
        states=vectors.states,
    )


def forget(engine: Engine, params: p.ForgetParams) -> p.ForgetResult:
    def job(tx: Tx) -> p.ForgetResult:
        row = engine.require(params.id, tx.conn)
        if params.hard or not row.is_deprecated:  # a forgotten entry's chain is closed already
            engine.close_chain(tx, row.id, engine.clock.now_iso())
        if params.hard:
            engine.changes.note_deleted(tx, row)
            entries.delete(tx.conn, row.rid)  # edges, versions, events go by ON DELETE CASCADE
            tx.after_commit.append(lambda: engine.index.remove(row.rid))
            engine.purge_after_commit(tx)  # acknowledged once no byte of it is left
            return p.ForgetResult(id=row.id, action="deleted")
        if row.is_deprecated:  # already forgotten: nothing changes, no version is added
            return p.ForgetResult(id=row.id, action="deprecated", changed=False)
        engine.deprecate(tx, row, engine.clock.now_iso())
        return p.ForgetResult(id=row.id, action="deprecated")

    return engine.write(job)


def _writable(engine: Engine, entry_id: str) -> SourceRow | None:
    """The file the entry cites, if any; Conflict if it mirrors an indexed file, whose
    text only `enyal index` of that file may change."""
    source = sources.source_of(engine, entry_id)
    if source is not None and source.mirror:
        raise Conflict(
            f"entry {entry_id} mirrors {source.path} (indexed): it is read-only; edit the file "
            "and run `enyal index` on it again",
            {"indexed_from": source.path},
        )
    return source


# What a version keeps of its entry, compared and written back by restore (below) as it is;
# and what only newer versions keep (None in older ones: the entry's value stands).
VERSION_FIELDS = ("content", "content_type", "confidence", "tags", "metadata", "is_deprecated")
OPTIONAL_FIELDS = ("importance", "status")


def _holds(entry: p.Entry, version: p.Version) -> bool:
    """Whether the entry already is that version: restoring it would change nothing
    (importance and status only where the version kept them)."""
    return all(getattr(entry, f) == getattr(version, f) for f in VERSION_FIELDS) and all(
        getattr(version, f) in (None, getattr(entry, f)) for f in OPTIONAL_FIELDS
    )


def restore(engine: Engine, params: p.RestoreParams) -> p.RestoreResult:
    """Un-forget an entry; or, with `version`, bring back that version's content and
    fields as a new version (history is never rewritten)."""
    target: p.Version | None = None
    emb: Embedding | None = None
    current = engine.require(params.id)
    entry_id = current.id
    if params.version is not None:
        _writable(engine, entry_id)
        target = versions.get(engine.reader(), entry_id, params.version)
        if target is None:
            raise NotFound(f"entry {entry_id} has no version {params.version}")
        if not _holds(current.entry(), target):  # nothing to embed for nothing to change
            emb = engine.embed_memory(target.content)

    def job(tx: Tx) -> p.RestoreResult:
        row = engine.require(entry_id, tx.conn)
        now = engine.clock.now_iso()
        changed = True
        if target is None:
            changed = row.is_deprecated
            if row.is_deprecated:
                entries.update_fields(tx.conn, row.rid, {"is_deprecated": False})
                engine.reopen_chain(tx, row.id)  # its chain runs through it again
                consolidation.unmerge(tx, row.id)  # a merged entry comes back as it was
                versions.record(tx.conn, row.id, "restored", now)
                engine.changes.note(tx, "restored", row)
            tx.after_commit.append(lambda: engine.index.set_active(row.rid, True))
        elif _holds(row.entry(), target):  # no version written for nothing changed
            changed = False
        else:
            # Not embedded above only if the entry held the version then and was edited
            # since, between the two reads: rare enough to embed here, under the writer.
            made = emb or engine.embed_memory(target.content)
            kept = {f: getattr(target, f) for f in VERSION_FIELDS}
            # Every field the version kept (older versions kept no importance or status).
            kept |= {f: getattr(target, f) for f in OPTIONAL_FIELDS if getattr(target, f)}
            entries.update_fields(tx.conn, row.rid, {**kept, "updated_at": now})
            if target.is_deprecated and not row.is_deprecated:
                engine.close_chain(tx, row.id, now)
            elif row.is_deprecated and not target.is_deprecated:
                engine.reopen_chain(tx, row.id)
            entries.replace_vector(tx.conn, row.rid, *made.blobs())
            versions.record(tx.conn, row.id, "reverted", now)
            engine.index_after_commit(
                tx, row.rid, made, row.scope, target.content_type, not target.is_deprecated
            )
        entry = engine.require(row.id, tx.conn).entry()
        if target is not None and changed:
            engine.changes.note(tx, "updated", entry, previous_type=row.content_type)
        return p.RestoreResult(**msgspec.structs.asdict(entry), changed=changed)

    return engine.write(job)

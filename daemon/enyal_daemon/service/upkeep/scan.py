"""`scan`: secrets stored before redaction existed (or while it was off), found and fixed.

Everything that holds text a user or agent sent is read: each entry's content, tags,
metadata and source_ref, every past version, and the queries in the analytics log.
With `fix`, an affected entry is rewritten with placeholders and re-embedded, a new
version says so, and its history is rewritten in place: a history that kept the
secret would defeat the fix. Then nothing of the old text may linger on disk: the
full-text index is merged (old terms live on in older segments until then), the
database file is rebuilt (VACUUM: deleted text lingers in free space inside pages),
and the WAL is checkpointed and truncated. The rebuild holds other writes for its
duration (about a second per 100 MB of database). It runs on every `fix`, secrets
found or not: it is also what purges text deleted before deletes purged it.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field

from enyal_protocol import wire as p

from ...embedder.passages import Embedding
from ...hygiene.secrets import Redactor, merge_found
from ...store import analytics, db, entries, versions
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import redaction

log = logging.getLogger(__name__)

PAGE = 1000
FIX_CHUNK = 200  # entries per write job: others' writes wait at most one chunk


@dataclass
class _Finding:
    row: EntryRow | None = None  # set when the entry's own fields hold a secret
    clean: redaction.Scrubbed | None = None
    fields: list[p.ScanField] = field(default_factory=list)
    history: list[tuple[int, redaction.Scrubbed]] = field(default_factory=list)
    kinds: list[dict[str, int]] = field(default_factory=list)


def scan(engine: Engine, params: p.ScanParams) -> p.ScanResult:
    conn = engine.reader()
    rules = engine.secrets
    found: dict[str, _Finding] = {}
    scanned = 0
    after = 0
    while rows := entries.page(conn, after, PAGE, include_deprecated=True):
        after = rows[-1].rid
        scanned += len(rows)
        for row in rows:
            _scan_entry(rules, row, found)
    for row_id, entry_id, content, tags, metadata in versions.texts(conn):
        old = redaction.scrub(rules, content=content, tags=tags, metadata=metadata)
        if old.found:
            f = found.setdefault(entry_id, _Finding())
            f.history.append((row_id, old))
            f.kinds.append(old.found)
            if "history" not in f.fields:
                f.fields.append("history")
    queries = [
        (row_id, r.text, events)
        for row_id, q, events in analytics.queries(conn)
        if (r := rules.redact(q)).found
    ]
    fixed = _fix(engine, found, queries) if params.fix else 0
    hits = [
        p.ScanHit(id=entry_id, kinds=_entry_kinds(f), fields=f.fields)
        for entry_id, f in found.items()
    ]
    return p.ScanResult(
        scanned=scanned,
        affected=len(found),
        fixed=fixed,
        kinds=merge_found(*(h.kinds for h in hits)),
        queries=sum(events for _, _, events in queries),  # as many as the events logged
        entries=hits[: params.limit],
    )


def _scan_entry(rules: Redactor, row: EntryRow, found: dict[str, _Finding]) -> None:
    tags, metadata = row.tags(), row.metadata()
    clean = redaction.scrub(
        rules, content=row.content, tags=tags, metadata=metadata, source_ref=row.source_ref
    )
    if not clean.found:
        return
    f = found.setdefault(row.id, _Finding())
    f.row, f.clean = row, clean
    f.kinds.append(clean.found)
    changed: list[tuple[p.ScanField, bool]] = [
        ("content", clean.content != row.content),
        ("tags", clean.tags != tags),
        ("metadata", clean.metadata != metadata),
        ("source_ref", clean.source_ref != row.source_ref),
    ]
    f.fields.extend(name for name, differs in changed if differs)


def _entry_kinds(f: _Finding) -> dict[str, int]:
    """An entry's secrets, each counted once even when its history repeats it: the
    entry's own fields count if they hold any, else its history's worst version."""
    if f.clean is not None:
        return f.clean.found
    return max((old.found for _, old in f.history), key=lambda k: sum(k.values()))


def _fix(engine: Engine, found: dict[str, _Finding], queries: list[tuple[int, str, int]]) -> int:
    rewritten = [f for f in found.values() if f.row is not None]
    texts = [f.clean.content if f.clean and f.clean.content else "" for f in rewritten]
    vector_of = dict(zip(map(id, rewritten), engine.embed_memories(texts), strict=True))
    history_only = [f for f in found.values() if f.row is None]
    fixed = 0
    items: list[_Finding] = [*rewritten, *history_only]
    for start in range(0, len(items), FIX_CHUNK):
        chunk = items[start : start + FIX_CHUNK]
        fixed += engine.write(functools.partial(_fix_chunk, engine, chunk, vector_of))
    # Always, even when nothing was found: text deleted before deletes purged (a store
    # made before m012) lingers in free pages and text-index segments until this.
    engine.write(functools.partial(_finish, engine, queries))
    return fixed


def _fix_chunk(
    engine: Engine, chunk: list[_Finding], vector_of: dict[int, Embedding], tx: Tx
) -> int:
    now = engine.clock.now_iso()
    fixed = 0
    for f in chunk:
        for row_id, old in f.history:
            assert old.content is not None and old.tags is not None and old.metadata is not None
            versions.rewrite(tx.conn, row_id, old.content, old.tags, old.metadata)
        if f.row is None or f.clean is None:
            fixed += 1
            continue
        current = entries.get(tx.conn, f.row.id)
        if current is None or current.updated_at != f.row.updated_at:
            continue  # deleted or changed since the scan read it: the next scan sees it anew
        clean = f.clean
        assert clean.content is not None and clean.tags is not None
        entries.update_fields(
            tx.conn,
            current.rid,
            {
                "content": clean.content,
                "tags": clean.tags,
                "metadata": clean.metadata,
                "source_ref": clean.source_ref,
                "updated_at": now,
            },
        )
        versions.record(tx.conn, current.id, "updated", now)
        vec = vector_of[id(f)]
        entries.replace_vector(tx.conn, current.rid, *vec.blobs())
        engine.index_after_commit(
            tx, current.rid, vec, current.scope, current.content_type, not current.is_deprecated
        )
        engine.changes.note(tx, "updated", current)
        fixed += 1
    return fixed


def _finish(engine: Engine, queries: list[tuple[int, str, int]], tx: Tx) -> None:
    for row_id, query, _ in queries:
        analytics.set_query(tx.conn, row_id, query)
    entries.compact_text_index(tx.conn)
    conn = tx.conn

    def purge() -> None:
        """After the commit, outside any transaction, on the writer's turn: rebuild the
        file, then empty the WAL, which still holds the old pages."""
        db.vacuum(conn)
        if not engine.writer.empty_wal(cut=True):
            log.warning("a reader kept part of the WAL after the scan; the next checkpoint ends it")

    tx.after_commit.append(purge)

"""Import and export as JSONL: everything a memory means, vectors left out.

The format (docs/PROTOCOL.md, "The export format"): a header line naming the format
and the model, then one line per entry with its version history, then one line
per edge. Exports of format 1 (bare entry lines, no header) still import.
Vectors are a function of the content and the model, so they are recomputed on
import rather than carried (a file stays small, and stays valid across models).

Each import line is its own savepoint: a line is stored whole or not at all, and a
bad line is reported without touching the others. Edges come after the entries
they join, so a whole file imports in order; an edge whose ends are missing fails
alone. Imported edges and histories are taken as they were written: the checks of
`link` (one head per supersession chain) guard new edges, not restored ones.
"""

from __future__ import annotations

import functools
import itertools
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import apsw
import msgspec

from enyal_protocol import wire as p
from enyal_protocol.projects import place_ref

from ... import heap
from ...embedder.passages import Embedding
from ...errors import EnyalError, InvalidValue
from ...hygiene.injection import is_turn, judge_memory
from ...hygiene.secrets import Redactor, merge_found
from ...store import entries, graph, versions
from ...store.failures import STORAGE_FAILURES
from ...store.writer import Tx
from ..core.engine import Engine, require_entry
from ..rules import redaction, scopes
from ..rules.clock import Clock, normalize_iso
from ..rules.limits import check_content, check_metadata

_entry_decoder = msgspec.json.Decoder(p.ImportEntry)
_edge_decoder = msgspec.json.Decoder(p.ImportEdge)
_header_decoder = msgspec.json.Decoder(p.ExportHeader)
MAX_RID = 2**63 - 1

Parsed = tuple[int, p.Entry, list[p.Version] | None] | tuple[int, p.Edge]


def _decode(decoder: msgspec.json.Decoder[Any], line: str, what: str) -> Any:
    try:
        return decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise InvalidValue(f"invalid {what}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InvalidValue(f"not JSON: {exc}") from None
    except RecursionError:
        raise InvalidValue("JSON nested too deeply") from None


LineKind = Literal["entry", "edge", "header"]


def _kind(line: str) -> LineKind:
    """What a line holds, from its first key: a header and an edge line each have one."""
    head = line.lstrip()[:32]
    if head.startswith('{"enyal_export"'):
        return "header"
    if head.startswith('{"edge"'):
        return "edge"
    return "entry"


def _header(line: str) -> p.ExportHeader:
    header: p.ExportHeader = _decode(_header_decoder, line, "header")
    if header.enyal_export > p.EXPORT_FORMAT:
        raise InvalidValue(
            f"written in export format {header.enyal_export} by enyal {header.enyal_version}; "
            f"this one reads up to {p.EXPORT_FORMAT}: upgrade Enyal to import it"
        )
    return header


def _entry(
    line: str, redactor: Redactor | None, clock: Clock
) -> tuple[p.Entry, list[p.Version] | None, dict[str, int], bool]:
    """The entry, its history, what was redacted, and whether its quarantine state is
    kept as exported (else it is judged once its vectors are made)."""
    item: p.ImportEntry = _decode(_entry_decoder, line, "entry")
    check_content(item.content)
    check_metadata(item.metadata)
    item, found = _scrubbed(item, redactor)
    if item.scope_level == "global" and item.scope_path is not None:
        raise InvalidValue("global scope takes no scope_path")
    if item.scope_level != "global" and item.scope_path is None:
        raise InvalidValue(f"{item.scope_level} scope needs scope_path")
    item = _placed(item)
    now = clock.now_iso()
    # An exported entry (it has an id) says whether it is quarantined, and keeps that: a
    # released one stays released. A line written by hand is judged as remember judges,
    # once its vectors are made (_store_entry).
    kept = item.id is not None and item.quarantined is not None
    quarantined = bool(item.quarantined)
    reason = item.quarantine_reason if quarantined else None
    created = normalize_iso(item.created_at, "created_at") if item.created_at else now
    updated = normalize_iso(item.updated_at, "updated_at") if item.updated_at else created
    accessed = normalize_iso(item.accessed_at, "accessed_at") if item.accessed_at else None
    entry = p.Entry(
        id=item.id or str(uuid.uuid4()),
        content=item.content,
        content_type=item.content_type,
        scope_level=item.scope_level,
        scope_path=item.scope_path,
        confidence=item.confidence,
        created_at=created,
        updated_at=updated,
        accessed_at=accessed,
        access_count=item.access_count,
        source_type=item.source_type,
        source_ref=item.source_ref,
        tags=list(dict.fromkeys(item.tags)),
        metadata=item.metadata,
        is_deprecated=item.is_deprecated,
        content_hash=entries.content_hash(item.content),
        importance=item.importance,
        expires_at=normalize_iso(item.expires_at, "expires_at") if item.expires_at else None,
        confirmed_at=(
            normalize_iso(item.confirmed_at, "confirmed_at") if item.confirmed_at else None
        ),
        confirm_count=item.confirm_count,
        # An exported entry (it has an id) keeps its provenance, even none; a line
        # written by hand is the import's.
        written_by=item.written_by if item.id is not None else (item.written_by or "import"),
        quarantined=quarantined,
        quarantine_reason=reason,
        status=item.status or ("open" if item.content_type == "task" else None),
        due=item.due if item.content_type == "task" else None,
    )
    if entry.status is not None and entry.content_type != "task":
        raise InvalidValue("only a task has a status")
    if item.versions is not None:
        numbers = [v.version for v in item.versions]
        if len(set(numbers)) != len(numbers) or min(numbers, default=1) < 1:
            raise InvalidValue("versions must be numbered from 1, each once")
        for v in item.versions:
            normalize_iso(v.changed_at, "versions.changed_at")
    return entry, item.versions, found, kept


def _placed(item: p.ImportEntry) -> p.ImportEntry:
    """An entry exported before projects had keys names its project and file by absolute
    paths: placed as they are placed now (projects.py), when the folders are here. A
    place (`git:...`) is kept: it is what makes an export portable."""
    path, ref = item.scope_path, item.source_ref
    if item.scope_level in ("project", "file") and path is not None and os.path.isabs(path):
        path = scopes.place(scopes.absolute(path, None))
    if item.source_type == "file" and ref is not None and "://" not in ref and "\x00" not in ref:
        ref = place_ref(ref)
    return msgspec.structs.replace(item, scope_path=path, source_ref=ref)


def _scrubbed(
    item: p.ImportEntry, redactor: Redactor | None
) -> tuple[p.ImportEntry, dict[str, int]]:
    """The line with secrets redacted everywhere it holds text: fields and history."""
    clean = redaction.scrub(
        redactor,
        content=item.content,
        tags=item.tags,
        metadata=item.metadata,
        source_ref=item.source_ref,
    )
    counts = [clean.found]
    history = None
    if item.versions is not None:
        history = []
        for v in item.versions:
            old = redaction.scrub(redactor, content=v.content, tags=v.tags, metadata=v.metadata)
            counts.append(old.found)
            history.append(
                msgspec.structs.replace(
                    v, content=old.content, tags=old.tags, metadata=old.metadata
                )
            )
    item = msgspec.structs.replace(
        item,
        content=clean.content,
        tags=clean.tags,
        metadata=clean.metadata,
        source_ref=clean.source_ref,
        versions=history,
    )
    return item, merge_found(*counts)


def _edge(line: str, redactor: Redactor | None) -> p.Edge:
    edge: p.Edge = _decode(_edge_decoder, line, "edge").edge
    check_metadata(edge.metadata)
    edge = msgspec.structs.replace(
        edge, metadata=redaction.scrub(redactor, metadata=edge.metadata).metadata
    )
    if edge.source_id == edge.target_id:
        raise InvalidValue("an entry cannot be linked to itself")
    normalize_iso(edge.created_at, "edge.created_at")
    return edge


# Lines embedded at a time: while one chunk's vectors are made (onnxruntime, on both
# cores, without the GIL), the chunk before is judged here and written by the writer, so
# the cores do not wait for the Python work between embeddings (docs/ARCHITECTURE.md,
# "Where an import's time goes").
CHUNK = 50
# The lines of a request's last chunk, at most: it is judged and written after every
# embedding of the request is done, while the cores wait for the next request.
LAST_CHUNK = 10
# The lines of a request's first chunk, at most: it is read (parsed, its secrets redacted,
# its sentences counted: ~1 ms a SciFact abstract) while the cores wait for it, and the
# next chunk is read while they embed it.
FIRST_CHUNK = 10

T = TypeVar("T")
Item = tuple[int, p.Entry, list[p.Version] | None, dict[str, int], bool]
IndexRow = tuple[int, Embedding, tuple[str, str | None], str, bool]  # index_new_after_commit's


def import_lines(engine: Engine, params: p.ImportParams) -> p.ImportResult:
    results: list[p.ImportLine] = []
    edges: list[tuple[int, p.Edge]] = []

    def parsed(lines: list[tuple[int, str]]) -> list[Item]:
        """A chunk's entries; its headers, failures and edges said to `results`, `edges`."""
        items: list[Item] = []
        for number, line in lines:
            kind = _kind(line)
            try:
                if kind == "header":
                    _header(line)
                    results.append(p.ImportLine(line=number, status="read", kind="header"))
                elif kind == "edge":
                    edges.append((number, _edge(line, engine.redactor)))
                else:
                    items.append((number, *_entry(line, engine.redactor, engine.clock)))
            except EnyalError as exc:
                error = p.ImportLine(line=number, status="failed", error=exc.message, kind=kind)
                results.append(error)
        return items

    # Blank lines are not entries. Each chunk is read (parsed, its secrets redacted) just
    # before its embedding is asked for, so the cores start on the first chunk while the
    # rest are read.
    numbered = [(params.first_line + k, x) for k, x in enumerate(params.lines) if x.strip()]
    stored = _store_all(engine, (parsed(chunk) for chunk in _chunks(numbered)), edges)
    if stored:
        results.extend(stored)
        # A batch of long texts leaves tens of MB of freed heap behind, and the writer's
        # page cache filled (16 MB): both given back to the OS (issue 30).
        engine.release_write_cache()
        heap.trim()
    results.sort(key=lambda r: r.line)
    counted = [r for r in results if r.kind != "header"]
    return p.ImportResult(
        stored=sum(r.status == "stored" for r in counted),
        existing=sum(r.status == "existing" for r in counted),
        failed=sum(r.status == "failed" for r in counted),
        lines=results,
        redacted=merge_found(*(r.redacted for r in results)),
    )


def _store_all(
    engine: Engine, chunks: Iterator[list[Item]], edges: list[tuple[int, p.Edge]]
) -> list[p.ImportLine]:
    """The entries written a chunk at a time (each chunk's embedding made while the chunk
    before is judged and written), then the edges (all read once `chunks` is), after the
    entries they may join. A line the store held when its chunk was read is not embedded
    (`_held`); should it be gone by the time its chunk is written, it is embedded and
    written after the others."""
    reader = engine.reader()
    seen: set[str] = set()

    def handed(chunk: list[Item]) -> tuple[list[Item], list[str], Callable[[], list[Embedding]]]:
        """The chunk, its texts to embed and the wait for their vectors: those of lines the
        store does not hold, each text once in the whole request (a repeated line is
        embedded with its first)."""
        new = [e.content for _, e, _, _, _ in chunk if not _held(reader, e)]
        texts = [t for t in dict.fromkeys(new) if t not in seen]
        seen.update(texts)
        return chunk, texts, engine.embed_memories_soon(texts)

    made: dict[str, Embedding] = {}
    writes: list[Callable[[], Sequence[p.ImportLine | Item]]] = []
    # The next chunk is handed to the embedding pool before this one is waited for: a
    # core done with its half of a chunk goes on to the next, not idle until the other
    # half is done and the next chunk read and counted.
    coming = [handed(chunk) for chunk in itertools.islice(chunks, 1)]
    while coming:
        coming += [handed(chunk) for chunk in itertools.islice(chunks, 1)]
        chunk, texts, wait = coming.pop(0)
        made.update(zip(texts, wait(), strict=True))
        if not chunk:
            continue
        ready = [(item, made.get(item[1].content)) for item in chunk]
        judged = [(item, vec, _flags(item, vec)) for item, vec in ready]
        writes.append(engine.write_soon(functools.partial(_write_entries, engine, judged)))
    if edges:
        writes.append(engine.write_soon(functools.partial(_write_edges, engine, edges)))
    out: list[p.ImportLine] = []
    gone: list[Item] = []
    for wait_written in writes:
        for done in wait_written():
            if isinstance(done, p.ImportLine):
                out.append(done)
            else:
                gone.append(done)
    if gone:  # deleted while this import ran: a line like any other now
        embedded = engine.embed_memories([e.content for _, e, _, _, _ in gone])
        again = [(item, vec, _flags(item, vec)) for item, vec in zip(gone, embedded, strict=True)]
        redo = engine.write(functools.partial(_write_entries, engine, again))
        out.extend(done for done in redo if isinstance(done, p.ImportLine))
    return out


def _chunks(lines: list[T]) -> list[list[T]]:
    """`lines` in chunks of at most CHUNK, alike in size, the first of at most FIRST_CHUNK
    and the last of at most LAST_CHUNK."""
    if len(lines) <= FIRST_CHUNK + LAST_CHUNK:
        return [lines] if lines else []
    first, body, last = lines[:FIRST_CHUNK], lines[FIRST_CHUNK:-LAST_CHUNK], lines[-LAST_CHUNK:]
    count = -(-len(body) // CHUNK)
    size = -(-len(body) // count)
    return [first, *(body[at : at + size] for at in range(0, len(body), size)), last]


def _held(conn: apsw.Connection, entry: p.Entry) -> bool:
    """Whether the store holds this entry already, as `_store_entry` will find it (its id,
    or for an active entry the same text in the same scope): it is then not embedded."""
    if entries.get(conn, entry.id) is not None:
        return True
    if entry.is_deprecated:
        return False
    return (
        entries.find_by_hash(conn, entry.content_hash, entry.scope_level, entry.scope_path)
        is not None
    )


def _flags(item: Item, vec: Embedding | None) -> list[str]:
    """The quarantine judge's flags for a line written by hand (as remember judges, a
    conversation's turn as injection.is_turn says), made before the writer job, so that
    the writer does not hold every other write up for it."""
    _, entry, _, _, kept = item
    if kept or vec is None:
        return []
    turn = is_turn(entry.tags)
    return judge_memory(
        entry.content, entry.tags, entry.content_type, vec.whole, vec.passages, turn, vec.parts
    )


def _write_entries(
    engine: Engine, ready: Sequence[tuple[Item, Embedding | None, list[str]]], tx: Tx
) -> list[p.ImportLine | Item]:
    """Each line in its savepoint; a line not embedded because the store held it, which
    the store no longer holds, is handed back (not written) to be embedded."""
    out: list[p.ImportLine | Item] = []
    indexed: list[IndexRow] = []
    for item, vec, flags in ready:
        number, entry, history, found, _ = item
        store = functools.partial(
            _store_entry, engine, tx, number, entry, history, vec, flags, indexed
        )
        done = _savepoint(tx, number, "entry", store)
        if done is None:
            out.append(item)
            continue
        out.append(msgspec.structs.replace(done, redacted=found) if found else done)
    # The chunk's rows reach the index in one bulk load once committed (the index's write
    # lock taken once, not once a row, while recalls read it).
    engine.index_new_after_commit(tx, indexed)
    return out


def _write_edges(engine: Engine, edges: list[tuple[int, p.Edge]], tx: Tx) -> list[p.ImportLine]:
    out: list[p.ImportLine] = []
    for number, edge in edges:
        store = functools.partial(_store_edge, engine, tx, number, edge)
        done = _savepoint(tx, number, "edge", store)
        assert done is not None  # an edge needs no vectors
        out.append(done)
    return out


def _savepoint(
    tx: Tx, number: int, kind: Literal["entry", "edge"], store: Callable[[], p.ImportLine | None]
) -> p.ImportLine | None:
    try:
        with tx.conn:  # one savepoint per line
            return store()
    except EnyalError as exc:
        error = exc.message
    except STORAGE_FAILURES:
        raise  # the chunk fails as one StorageError (and the call with it), not line by line
    except Exception as exc:  # a constraint the checks above did not foresee
        error = str(exc)
    return p.ImportLine(line=number, status="failed", error=error, kind=kind)


def _store_entry(
    engine: Engine,
    tx: Tx,
    number: int,
    entry: p.Entry,
    history: list[p.Version] | None,
    vec: Embedding | None,
    flags: list[str],
    indexed: list[IndexRow],
) -> p.ImportLine | None:
    """The line written (its vectors added to `indexed`), or found held; None if it was
    not embedded and must be."""
    if entries.get(tx.conn, entry.id) is not None:
        return p.ImportLine(line=number, status="existing", id=entry.id)
    if flags:
        entry = msgspec.structs.replace(
            entry,
            quarantined=True,
            quarantine_reason=entry.quarantine_reason or ", ".join(flags),
        )
    if not entry.is_deprecated:
        same = entries.find_by_hash(
            tx.conn, entry.content_hash, entry.scope_level, entry.scope_path
        )
        if same is not None:
            return p.ImportLine(line=number, status="existing", id=same.id)
    if vec is None:
        return None
    rid = entries.insert(tx.conn, entry, *vec.blobs())
    engine.note_expiry(tx, entry.expires_at)
    if history:
        versions.insert_all(tx.conn, entry.id, history)
    else:
        versions.record(tx.conn, entry.id, "created", entry.created_at)
    engine.changes.note(tx, "created", entry)
    scope = (entry.scope_level, entry.scope_path)
    indexed.append((rid, vec, scope, entry.content_type, not entry.is_deprecated))
    return p.ImportLine(line=number, status="stored", id=entry.id)


def _store_edge(engine: Engine, tx: Tx, number: int, edge: p.Edge) -> p.ImportLine:
    if graph.get(tx.conn, edge.id) is not None:
        return p.ImportLine(line=number, status="existing", id=edge.id, kind="edge")
    same = graph.find(tx.conn, edge.source_id, edge.target_id, edge.edge_type)
    if same is not None:
        return p.ImportLine(line=number, status="existing", id=same.id, kind="edge")
    source = require_entry(tx.conn, edge.source_id)
    target = require_entry(tx.conn, edge.target_id)
    graph.insert_edge(tx.conn, edge)
    engine.changes.note_edge(tx, "linked", source, target, edge.edge_type)
    return p.ImportLine(line=number, status="stored", id=edge.id, kind="edge")


def export_page(engine: Engine, params: p.ExportParams) -> p.ExportResult:
    # Cursors are SQLite integers (64-bit): one beyond them just means past the end.
    after = min(params.after, MAX_RID)
    if params.kind == "entries" and params.after == 0:
        # The access counts of requests already answered, which the daemon otherwise writes
        # every couple of seconds: an export right after a recall would or would not count
        # it depending on whether that flush had run (a test flaked on it under load).
        engine.flush_bookkeeping()
    conn = engine.reader()
    if params.kind == "edges":
        page = graph.page(conn, after, params.limit)
        nxt = page[-1][0] if len(page) == params.limit else None
        return p.ExportResult(entries=[], edges=[edge for _, edge in page], next=nxt)
    rows = entries.page(conn, after, params.limit, params.include_deprecated)
    history = versions.all_for(conn, [r.id for r in rows]) if params.versions else {}
    exported = [
        p.ExportedEntry(
            **msgspec.structs.asdict(r.entry()),
            versions=history.get(r.id, []) if params.versions else None,
        )
        for r in rows
    ]
    return p.ExportResult(
        entries=exported, next=rows[-1].rid if len(rows) == params.limit else None
    )

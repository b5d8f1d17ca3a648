"""Import and export as JSONL: one entry a line, every field, vectors left out.

Vectors are a function of the content and the model, so they are recomputed on
import rather than carried (a file stays small, and stays valid across models).
Each import line is its own savepoint: a line is stored whole or not at all,
and a bad line is reported without touching the others.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from enyal_protocol import wire as p

from .. import heap
from ..errors import EnyalError, InvalidValue
from ..store import entries, versions
from ..store.writer import Tx
from .clock import normalize_iso, now_iso
from .engine import Engine
from .limits import check_content, check_metadata

_line_decoder = msgspec.json.Decoder(p.ImportEntry)
MAX_RID = 2**63 - 1


def _parse(line: str) -> p.ImportEntry:
    try:
        item = _line_decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise InvalidValue(f"invalid entry: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InvalidValue(f"not JSON: {exc}") from None
    check_content(item.content)
    check_metadata(item.metadata)
    if item.scope_level == "global" and item.scope_path is not None:
        raise InvalidValue("global scope takes no scope_path")
    if item.scope_level != "global" and item.scope_path is None:
        raise InvalidValue(f"{item.scope_level} scope needs scope_path")
    return item


def _entry(item: p.ImportEntry) -> p.Entry:
    now = now_iso()
    created = normalize_iso(item.created_at, "created_at") if item.created_at else now
    updated = normalize_iso(item.updated_at, "updated_at") if item.updated_at else created
    accessed = normalize_iso(item.accessed_at, "accessed_at") if item.accessed_at else None
    return p.Entry(
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
    )


def import_lines(engine: Engine, params: p.ImportParams) -> p.ImportResult:
    results: list[p.ImportLine] = []
    parsed: list[tuple[int, p.Entry]] = []
    for offset, line in enumerate(params.lines):
        number = params.first_line + offset
        if not line.strip():
            continue  # blank lines are not entries
        try:
            parsed.append((number, _entry(_parse(line))))
        except EnyalError as exc:
            results.append(p.ImportLine(line=number, status="failed", error=exc.message))
    vectors = engine.embed_many([e.content for _, e in parsed])

    def job(tx: Tx) -> list[p.ImportLine]:
        out: list[p.ImportLine] = []
        for (number, entry), vec in zip(parsed, vectors, strict=True):
            try:
                with tx.conn:  # one savepoint per line
                    out.append(_store_one(engine, tx, number, entry, vec))
            except Exception as exc:  # a constraint the checks above did not foresee
                out.append(p.ImportLine(line=number, status="failed", error=str(exc)))
        return out

    if parsed:
        results.extend(engine.write(job))
        del vectors
        heap.trim()  # a batch of long texts leaves tens of MB of freed heap behind
    results.sort(key=lambda r: r.line)
    return p.ImportResult(
        stored=sum(r.status == "stored" for r in results),
        existing=sum(r.status == "existing" for r in results),
        failed=sum(r.status == "failed" for r in results),
        lines=results,
    )


def _store_one(engine: Engine, tx: Tx, number: int, entry: p.Entry, vec: Any) -> p.ImportLine:
    if entries.get(tx.conn, entry.id) is not None:
        return p.ImportLine(line=number, status="existing", id=entry.id)
    if not entry.is_deprecated:
        same = entries.find_by_hash(
            tx.conn, entry.content_hash, entry.scope_level, entry.scope_path
        )
        if same is not None:
            return p.ImportLine(line=number, status="existing", id=same.id)
    rid = entries.insert(tx.conn, entry, vec.tobytes())
    versions.record(tx.conn, entry.id, "created", entry.created_at)
    active = not entry.is_deprecated
    engine.index_after_commit(tx, rid, vec, (entry.scope_level, entry.scope_path), active)
    return p.ImportLine(line=number, status="stored", id=entry.id)


def export_page(engine: Engine, params: p.ExportParams) -> p.ExportResult:
    # rids are SQLite integers (64-bit): a cursor beyond them just means past the end.
    after = min(params.after, MAX_RID)
    rows = entries.page(engine.reader(), after, params.limit, params.include_deprecated)
    nxt = rows[-1].rid if len(rows) == params.limit else None
    return p.ExportResult(entries=[r.entry() for r in rows], next=nxt)

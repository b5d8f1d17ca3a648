"""SQL over context_entries and its vector row. No policy here: the service decides.

Every function takes the connection it runs on, so the writer can compose them
inside one transaction and readers can run them on their own connections.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apsw
import msgspec

from enyal_protocol.wire import Entry

COLUMNS = (
    "rid, id, content, content_type, scope_level, scope_path, confidence, created_at, "
    "updated_at, accessed_at, access_count, source_type, source_ref, tags, metadata, "
    "is_deprecated, content_hash"
)

_json_decode = msgspec.json.decode
_json_encode = msgspec.json.encode


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def row_to_entry(row: Sequence[Any]) -> Entry:
    return Entry(
        id=row[1],
        content=row[2],
        content_type=row[3],
        scope_level=row[4],
        scope_path=row[5],
        confidence=row[6],
        created_at=row[7],
        updated_at=row[8],
        accessed_at=row[9],
        access_count=row[10],
        source_type=row[11],
        source_ref=row[12],
        tags=_json_decode(row[13]),
        metadata=_json_decode(row[14]),
        is_deprecated=bool(row[15]),
        content_hash=row[16],
    )


def insert(conn: apsw.Connection, entry: Entry, vector: bytes) -> int:
    """Entry, vector and (by trigger) FTS row, on the caller's transaction. Returns rid."""
    conn.execute(
        "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
        "scope_path, confidence, created_at, updated_at, accessed_at, access_count, "
        "source_type, source_ref, tags, metadata, is_deprecated) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            entry.id,
            entry.content,
            entry.content_hash,
            entry.content_type,
            entry.scope_level,
            entry.scope_path,
            entry.confidence,
            entry.created_at,
            entry.updated_at,
            entry.accessed_at,
            entry.access_count,
            entry.source_type,
            entry.source_ref,
            _json_encode(entry.tags).decode(),
            _json_encode(entry.metadata).decode(),
            int(entry.is_deprecated),
        ),
    )
    rid = conn.last_insert_rowid()
    conn.execute("INSERT INTO context_vectors(rowid, embedding) VALUES (?, ?)", (rid, vector))
    return rid


def get_row(conn: apsw.Connection, entry_id: str) -> tuple[Any, ...] | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM context_entries WHERE id = ?", (entry_id,)
    ).fetchone()
    return tuple(row) if row else None


def rows_by_rid(conn: apsw.Connection, rids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    ids = list(rids)
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cur = conn.execute(f"SELECT {COLUMNS} FROM context_entries WHERE rid IN ({marks})", ids)
    return {int(r[0]): tuple(r) for r in cur}


def find_by_hash(
    conn: apsw.Connection, digest: str, scope_level: str, scope_path: str | None
) -> tuple[Any, ...] | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM context_entries WHERE content_hash = ? AND scope_level = ? "
        "AND scope_path IS ? AND is_deprecated = 0 LIMIT 1",
        (digest, scope_level, scope_path),
    ).fetchone()
    return tuple(row) if row else None


def update_fields(conn: apsw.Connection, rid: int, fields: dict[str, Any]) -> None:
    if not fields:
        return
    sets = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(f"UPDATE context_entries SET {sets} WHERE rid = ?", (*fields.values(), rid))


def replace_vector(conn: apsw.Connection, rid: int, vector: bytes) -> None:
    # vec0 has no UPSERT; delete + insert on the same transaction is atomic.
    conn.execute("DELETE FROM context_vectors WHERE rowid = ?", (rid,))
    conn.execute("INSERT INTO context_vectors(rowid, embedding) VALUES (?, ?)", (rid, vector))


def delete(conn: apsw.Connection, rid: int) -> None:
    """Entry, and by trigger its vector and FTS row."""
    conn.execute("DELETE FROM context_entries WHERE rid = ?", (rid,))


def touch(conn: apsw.Connection, accessed: Sequence[tuple[str, int, str]]) -> None:
    """(entry id, times accessed, last access time) for each entry."""
    conn.executemany(
        "UPDATE context_entries SET accessed_at = ?, access_count = access_count + ? WHERE id = ?",
        [(when, n, entry_id) for entry_id, n, when in accessed],
    )


def iter_vectors(conn: apsw.Connection) -> Iterator[tuple[int, bytes, bool]]:
    """(rid, vector bytes, is_deprecated) of every entry, for building the in-memory index."""
    yield from conn.execute(
        "SELECT v.rowid, v.embedding, e.is_deprecated FROM context_vectors v "
        "JOIN context_entries e ON e.rid = v.rowid"
    )


def page(
    conn: apsw.Connection, after: int, limit: int, include_deprecated: bool
) -> list[tuple[Any, ...]]:
    where = "" if include_deprecated else "AND is_deprecated = 0"
    cur = conn.execute(
        f"SELECT {COLUMNS} FROM context_entries WHERE rid > ? {where} ORDER BY rid LIMIT ?",
        (after, limit),
    )
    return [tuple(r) for r in cur]


def count(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT count(*) FROM context_entries").fetchone()
    return int(row[0]) if row else 0

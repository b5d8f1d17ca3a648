"""context_versions: a snapshot of an entry after every change, numbered from 1."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import apsw
import msgspec

from enyal_protocol.wire import ChangeType, Version

from .db import in_lists

VERSION_COLUMNS = (
    "version, change_type, changed_at, content, content_type, confidence, tags, metadata, "
    "is_deprecated, merged_from, merged_into, status, importance"
)


def record(
    conn: apsw.Connection,
    entry_id: str,
    change_type: ChangeType,
    when: str,
    merged_from: Sequence[str] = (),
    merged_into: str | None = None,
) -> None:
    """Snapshot the entry as it is now on this transaction."""
    conn.execute(_RECORD, (change_type, when, _ids_json(merged_from), merged_into, entry_id))


def record_many(
    conn: apsw.Connection, entry_ids: Sequence[str], change_type: ChangeType, when: str
) -> None:
    """`record` for many entries, one statement for the lot."""
    conn.executemany(_RECORD, [(change_type, when, None, None, i) for i in entry_ids])


_RECORD = (
    f"INSERT INTO context_versions (entry_id, {VERSION_COLUMNS}) "
    "SELECT e.id, "
    "coalesce((SELECT max(version) FROM context_versions WHERE entry_id = e.id), 0) + 1, "
    "?, ?, e.content, e.content_type, e.confidence, e.tags, e.metadata, e.is_deprecated, "
    "?, ?, e.status, e.importance FROM context_entries e WHERE e.id = ?"
)


def last_id(conn: apsw.Connection) -> int:
    """The newest version's id: versions are numbered in the order they are recorded here,
    so a later one arrived later (a pulled file's memory keeps its author's dates)."""
    row = conn.execute("SELECT coalesce(max(id), 0) FROM context_versions").fetchone()
    return int(row[0]) if row is not None else 0


def first_recorded_after(conn: apsw.Connection, after: int) -> set[str]:
    """The entries whose first version was recorded after version id `after`: new here."""
    rows = conn.execute(
        "SELECT entry_id FROM context_versions WHERE id > ? AND version = 1", (after,)
    )
    return {str(r[0]) for r in rows}


def _ids_json(ids: Sequence[str]) -> str | None:
    return msgspec.json.encode(list(ids)).decode() if ids else None


def row_to_version(row: Sequence[Any]) -> Version:
    return Version(
        version=row[0],
        change_type=row[1],
        changed_at=row[2],
        content=row[3],
        content_type=row[4],
        confidence=row[5],
        tags=msgspec.json.decode(row[6]),
        metadata=msgspec.json.decode(row[7]),
        is_deprecated=bool(row[8]),
        merged_from=msgspec.json.decode(row[9]) if row[9] else [],
        merged_into=row[10],
        status=row[11],
        importance=row[12],
    )


def list_for(conn: apsw.Connection, entry_id: str, limit: int) -> list[Version]:
    cur = conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM context_versions WHERE entry_id = ? "
        "ORDER BY version DESC LIMIT ?",
        (entry_id, limit),
    )
    return [row_to_version(r) for r in cur]


def get(conn: apsw.Connection, entry_id: str, version: int) -> Version | None:
    row = conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM context_versions WHERE entry_id = ? AND version = ?",
        (entry_id, version),
    ).fetchone()
    return row_to_version(row) if row else None


_V_COLUMNS = ", ".join("v." + c for c in VERSION_COLUMNS.split(", "))


def states_at(conn: apsw.Connection, when: str, ids: Sequence[str]) -> list[tuple[str, Version]]:
    """(entry id, its latest version at `when`) for each of `ids` that existed then."""
    out: list[tuple[str, Version]] = []
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            f"SELECT v.entry_id, {_V_COLUMNS} FROM context_versions v WHERE v.entry_id IN "
            f"({marks}) AND v.version = (SELECT max(version) FROM "
            "context_versions w WHERE w.entry_id = v.entry_id AND w.changed_at <= ?)",
            (*chunk, when),
        )
        out.extend((str(r[0]), row_to_version(r[1:])) for r in cur)
    return out


def content_changed_since(conn: apsw.Connection, when: str) -> list[str]:
    """Ids of the entries whose content or fields were changed after `when`."""
    cur = conn.execute(
        "SELECT DISTINCT entry_id FROM context_versions WHERE changed_at > ? "
        "AND change_type IN ('updated', 'reverted')",
        (when,),
    )
    return [str(r[0]) for r in cur]


def all_for(conn: apsw.Connection, ids: Sequence[str]) -> dict[str, list[Version]]:
    """Every version of each of `ids`, oldest first."""
    out: dict[str, list[Version]] = {}
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            f"SELECT entry_id, {VERSION_COLUMNS} FROM context_versions WHERE entry_id IN "
            f"({marks}) ORDER BY entry_id, version",
            chunk,
        )
        for r in cur:
            out.setdefault(str(r[0]), []).append(row_to_version(r[1:]))
    return out


def insert_all(conn: apsw.Connection, entry_id: str, history: Sequence[Version]) -> None:
    """An entry's history as it was exported."""
    conn.executemany(
        f"INSERT INTO context_versions (entry_id, {VERSION_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                entry_id,
                v.version,
                v.change_type,
                v.changed_at,
                v.content,
                v.content_type,
                v.confidence,
                msgspec.json.encode(v.tags).decode(),
                msgspec.json.encode(v.metadata).decode(),
                int(v.is_deprecated),
                _ids_json(v.merged_from),
                v.merged_into,
                v.status,
                v.importance,
            )
            for v in history
        ],
    )


def texts(conn: apsw.Connection) -> Iterator[tuple[int, str, str, list[str], dict[str, Any]]]:
    """(row id, entry id, content, tags, metadata) of every version, for a secret scan."""
    for r in conn.execute("SELECT id, entry_id, content, tags, metadata FROM context_versions"):
        yield int(r[0]), str(r[1]), str(r[2]), msgspec.json.decode(r[3]), msgspec.json.decode(r[4])


def rewrite(
    conn: apsw.Connection, row_id: int, content: str, tags: list[str], metadata: dict[str, Any]
) -> None:
    """Change a past version's text in place: only for removing a secret from history,
    which must not keep what the entry itself no longer holds."""
    conn.execute(
        "UPDATE context_versions SET content = ?, tags = ?, metadata = ? WHERE id = ?",
        (
            content,
            msgspec.json.encode(tags).decode(),
            msgspec.json.encode(metadata).decode(),
            row_id,
        ),
    )

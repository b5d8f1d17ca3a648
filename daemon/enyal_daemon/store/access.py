"""context_access (m024): how often and when each entry was last read, apart from its text.

The bookkeeping flush (service/upkeep) adds a batch of recalls' counts every so often.
Beside the text in context_entries' wide rows each count rewrote a page of its own (a
flush after 150 recalls: 1,138 WAL pages at 10k, 1,462 on SciFact); here a row is a
rid, a time and a number, ~100 to a page. An entry never read has no row (rows.ACCESS
says what it reads as), and a trigger on context_entries deletes an entry's row with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import apsw

from .rows import ACCESS, ACCESS_TABLE


def _upsert(names: Sequence[str]) -> str:
    """The statement setting the columns `names` of one rid's row, made if missing."""
    return (
        f"INSERT INTO {ACCESS_TABLE} (rid, {', '.join(names)}) VALUES (?{', ?' * len(names)}) "
        "ON CONFLICT (rid) DO UPDATE SET "
        + ", ".join(f"{name} = excluded.{name}" for name in names)
    )


_SET = _upsert(tuple(ACCESS))
# By id, as the flush knows them: an entry deleted since its recall has no rid and gets
# no row (the UPDATE this replaces matched nothing). The WHERE also settles SQLite's
# parse of INSERT ... SELECT ... ON CONFLICT (its documentation asks for one).
_ADD = (
    f"INSERT INTO {ACCESS_TABLE} (rid, accessed_at, access_count) "
    "SELECT rid, ?, ? FROM context_entries WHERE id = ? "
    "ON CONFLICT (rid) DO UPDATE SET accessed_at = excluded.accessed_at, "
    "access_count = access_count + excluded.access_count"
)


def unread(values: Sequence[Any]) -> bool:
    """Whether ACCESS's `values` are those of an entry never read (no row needed)."""
    return all(value in (None, 0) for value in values)


def put(conn: apsw.Connection, rows: Iterable[tuple[int, Sequence[Any]]]) -> None:
    """Set (rid, ACCESS's values in order) of entries: those of an import, a merge."""
    conn.executemany(_SET, [(rid, *values) for rid, values in rows])


def put_fields(conn: apsw.Connection, rid: int, fields: Mapping[str, Any]) -> None:
    """Set some of ACCESS's columns of one entry, the others left as they are."""
    conn.execute(_upsert(list(fields)), (rid, *fields.values()))


def touch(conn: apsw.Connection, accessed: Sequence[tuple[str, int, str]]) -> None:
    """(entry id, times accessed, last access time) for each entry: the counts added."""
    conn.executemany(_ADD, [(when, n, entry_id) for entry_id, n, when in accessed])

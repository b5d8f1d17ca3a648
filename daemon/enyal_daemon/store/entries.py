"""SQL over context_entries and its vector row. No policy here: the service decides.

Every function takes the connection it runs on, so the writer can compose them
inside one transaction and readers can run them on their own connections. Rows
come back as EntryRow (store/rows.py), never as tuples.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import apsw

from enyal_protocol.wire import Entry

from . import access
from .db import in_lists
from .filters import EntryFilter
from .rows import (
    ACCESS,
    COLUMNS,
    ENTRIES,
    INSERT_COLUMNS,
    EntryRow,
    access_values,
    entry_row,
    insert_values,
    stored,
)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


_INSERT_MANY = f"INSERT INTO context_entries ({', '.join(INSERT_COLUMNS)}) VALUES "
_ROW = f"({', '.join('?' * len(INSERT_COLUMNS))})"
_INSERT = _INSERT_MANY + _ROW
_INSERT_VECTOR = "INSERT INTO context_vectors(rowid, embedding) VALUES (?, ?)"
_INSERT_PASSAGE = "INSERT INTO context_passages(rid, ord, embedding) VALUES (?, ?, ?)"


def insert(conn: apsw.Connection, entry: Entry, vector: bytes, passages: Sequence[bytes]) -> int:
    """Entry, vector, passage vectors (embedder/passages.py; none for most entries) and
    (by trigger) FTS row, on the caller's transaction. Returns rid."""
    conn.execute(_INSERT, tuple(insert_values(entry)))
    rid = conn.last_insert_rowid()
    conn.execute(_INSERT_VECTOR, (rid, vector))
    _insert_passages(conn, rid, passages)
    _insert_access(conn, [(rid, entry)])
    return rid


def _insert_access(conn: apsw.Connection, inserted: Iterable[tuple[int, Entry]]) -> None:
    """The access rows of those inserted entries that come with counts (an import's)."""
    values = ((rid, access_values(e)) for rid, e in inserted)
    counted = [(rid, v) for rid, v in values if not access.unread(v)]
    if counted:
        access.put(conn, counted)


def insert_many(
    conn: apsw.Connection, items: Sequence[tuple[Entry, bytes, Sequence[bytes]]]
) -> list[int]:
    """`insert` of many (entry, vector, passage vectors) at once: one statement per table
    for the lot (a replica's initial sync: ~15 statements a memory were most of its
    writer's time). Returns their rids, in order.

    The entries go in one INSERT of many rows, not one INSERT run many times: FTS5
    flushes its pending terms at each statement its trigger runs in, so a statement a
    row made an index segment a row (each merged again later: ~0.07 ms of CPU a
    memory); one statement, one segment. The triggers are the same ones, so the index
    holds what inserting each row alone puts there."""
    rids: list[int] = []
    width = len(INSERT_COLUMNS)
    per = max(1, conn.limit(apsw.SQLITE_LIMIT_VARIABLE_NUMBER) // width)
    for at in range(0, len(items), per):
        part = items[at : at + per]
        sql = f"{_INSERT_MANY}{', '.join([_ROW] * len(part))} RETURNING id, rid"
        # RETURNING's order is not promised (SQLite's documentation): by id
        got = dict(conn.execute(sql, [v for e, _, _ in part for v in insert_values(e)]))
        rids += [int(got[e.id]) for e, _, _ in part]
    conn.executemany(_INSERT_VECTOR, [(rid, v) for rid, (_, v, _) in zip(rids, items, strict=True)])
    parts = [
        (rid, i, blob)
        for rid, (_, _, ps) in zip(rids, items, strict=True)
        for i, blob in enumerate(ps)
    ]
    if parts:
        conn.executemany(_INSERT_PASSAGE, parts)
    _insert_access(conn, zip(rids, (e for e, _, _ in items), strict=True))
    return rids


def _insert_passages(conn: apsw.Connection, rid: int, passages: Sequence[bytes]) -> None:
    if passages:
        conn.executemany(_INSERT_PASSAGE, [(rid, i, blob) for i, blob in enumerate(passages)])


def get(conn: apsw.Connection, entry_id: str) -> EntryRow | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.id = ?", (entry_id,)).fetchone()
    return entry_row(row) if row else None


def prefix_range(prefix: str) -> tuple[str, str]:
    """The ids that start with `prefix`, as a range an id index can scan: [low, high)."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def by_prefix(conn: apsw.Connection, prefix: str, limit: int) -> list[EntryRow]:
    """Up to `limit` entries whose id starts with `prefix` (a range scan of the id index)."""
    cur = conn.execute(
        f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.id >= ? AND e.id < ? ORDER BY e.id LIMIT ?",
        (*prefix_range(prefix), limit),
    )
    return [entry_row(r) for r in cur]


def by_rids(conn: apsw.Connection, rids: Iterable[int]) -> dict[int, EntryRow]:
    out: dict[int, EntryRow] = {}
    for chunk, marks in in_lists(rids):
        cur = conn.execute(f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.rid IN ({marks})", chunk)
        for r in cur:
            row = entry_row(r)
            out[row.rid] = row
    return out


def by_ids(conn: apsw.Connection, ids: Sequence[str]) -> dict[str, EntryRow]:
    out: dict[str, EntryRow] = {}
    for chunk, marks in in_lists(ids):
        cur = conn.execute(f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.id IN ({marks})", chunk)
        for r in cur:
            row = entry_row(r)
            out[row.id] = row
    return out


def find_by_hash(
    conn: apsw.Connection, digest: str, scope_level: str, scope_path: str | None
) -> EntryRow | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.content_hash = ? AND e.scope_level = ? "
        "AND e.scope_path IS ? AND e.is_deprecated = 0 LIMIT 1",
        (digest, scope_level, scope_path),
    ).fetchone()
    return entry_row(row) if row else None


def update_fields(conn: apsw.Connection, rid: int, fields: Mapping[str, Any]) -> None:
    """Set these columns of one entry, each value in its wire form (tags a list, a flag a
    bool: rows.stored keeps them as SQLite does). New content brings its own hash; the
    access bookkeeping's go to its own table."""
    counts = {name: value for name, value in fields.items() if name in ACCESS}
    if counts:
        access.put_fields(conn, rid, counts)
        fields = {name: value for name, value in fields.items() if name not in ACCESS}
    if not fields:
        return
    if "content" in fields:
        fields = {**fields, "content_hash": content_hash(fields["content"])}
    sets = ", ".join(f"{name} = ?" for name in fields)
    values = [stored(value) for value in fields.values()]
    conn.execute(f"UPDATE context_entries SET {sets} WHERE rid = ?", (*values, rid))


def replace_vector(
    conn: apsw.Connection, rid: int, vector: bytes, passages: Sequence[bytes]
) -> None:
    """The entry's vectors for a new text: its whole vector and its passages' (which may
    now be more, fewer or none)."""
    # vec0 has no UPSERT; delete + insert on the same transaction is atomic.
    conn.execute("DELETE FROM context_vectors WHERE rowid = ?", (rid,))
    conn.execute(_INSERT_VECTOR, (rid, vector))
    replace_passages(conn, rid, passages)


def replace_passages(conn: apsw.Connection, rid: int, passages: Sequence[bytes]) -> None:
    conn.execute("DELETE FROM context_passages WHERE rid = ?", (rid,))
    _insert_passages(conn, rid, passages)


def has_passages(conn: apsw.Connection, rid: int) -> bool:
    row = conn.execute("SELECT 1 FROM context_passages WHERE rid = ?", (rid,)).fetchone()
    return row is not None


def vector(conn: apsw.Connection, rid: int) -> bytes | None:
    row = conn.execute("SELECT embedding FROM context_vectors WHERE rowid = ?", (rid,)).fetchone()
    return bytes(row[0]) if row else None


def passage_vectors(conn: apsw.Connection, rid: int) -> list[bytes]:
    """The vector bytes of the entry's passages, in text order ([] for a short text)."""
    cur = conn.execute("SELECT embedding FROM context_passages WHERE rid = ? ORDER BY ord", (rid,))
    return [bytes(r[0]) for r in cur]


def vectors(conn: apsw.Connection, rids: Sequence[int]) -> dict[int, bytes]:
    """rid -> vector bytes (float32) for each of `rids` that has one."""
    out: dict[int, bytes] = {}
    for chunk, marks in in_lists(rids):
        cur = conn.execute(
            f"SELECT rowid, embedding FROM context_vectors WHERE rowid IN ({marks})", chunk
        )
        out.update((int(rid), bytes(blob)) for rid, blob in cur)
    return out


def delete(conn: apsw.Connection, rid: int) -> None:
    """Entry, and by trigger its vector and FTS row."""
    conn.execute("DELETE FROM context_entries WHERE rid = ?", (rid,))


def iter_vectors(
    conn: apsw.Connection,
) -> Iterator[tuple[int, bytes, bool, str, str | None, str]]:
    """(rid, vector bytes, is_deprecated, scope_level, scope_path, content_type) of every
    entry, for building the in-memory index."""
    yield from conn.execute(
        "SELECT v.rowid, v.embedding, e.is_deprecated, e.scope_level, e.scope_path, "
        "e.content_type "
        "FROM context_vectors v JOIN context_entries e ON e.rid = v.rowid"
    )


def iter_passages(
    conn: apsw.Connection,
) -> Iterator[tuple[int, int, bytes, bool, str, str | None, str]]:
    """(rid, ord, vector bytes, is_deprecated, scope_level, scope_path, content_type) of
    every passage, in (rid, ord) order, for building the in-memory index."""
    yield from conn.execute(
        "SELECT p.rid, p.ord, p.embedding, e.is_deprecated, e.scope_level, e.scope_path, "
        "e.content_type "
        "FROM context_passages p JOIN context_entries e ON e.rid = p.rid ORDER BY p.rid, p.ord"
    )


def page(conn: apsw.Connection, after: int, limit: int, include_deprecated: bool) -> list[EntryRow]:
    where = "" if include_deprecated else "AND e.is_deprecated = 0"
    cur = conn.execute(
        f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.rid > ? {where} ORDER BY e.rid LIMIT ?",
        (after, limit),
    )
    return [entry_row(r) for r in cur]


def count(conn: apsw.Connection, upto_rid: int | None = None) -> int:
    """Entries (those with a rid up to `upto_rid`), deprecated ones included."""
    if upto_rid is None:
        row = conn.execute("SELECT count(*) FROM context_entries").fetchone()
    else:
        row = conn.execute(
            "SELECT count(*) FROM context_entries WHERE rid <= ?", (upto_rid,)
        ).fetchone()
    return int(row[0]) if row else 0


def contents_after(
    conn: apsw.Connection,
    after_rid: int,
    limit: int,
    *,
    upto_rid: int = 2**63 - 1,
    longer_than: int = 0,
) -> list[tuple[int, str]]:
    """(rid, content) of the next `limit` entries after `after_rid`, up to `upto_rid`, whose
    content is more than `longer_than` characters, in rid order."""
    cur = conn.execute(
        "SELECT rid, content FROM context_entries WHERE rid > ? AND rid <= ? "
        "AND length(content) > ? ORDER BY rid LIMIT ?",
        (after_rid, upto_rid, longer_than, limit),
    )
    return [(int(rid), str(content)) for rid, content in cur]


def max_rid(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT max(rid) FROM context_entries").fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


# --- by scope and by filter -------------------------------------------------------------


def rids_in_scope_after(
    conn: apsw.Connection, level: str, path: str | None, after_rid: int
) -> list[int]:
    """Active entries of one scope with a rid above `after_rid` (the newest few)."""
    # The unary + keeps SQLite off the scope index: walking the rid range is a few rows,
    # walking a big scope's index entries is all of them.
    return [
        int(r[0])
        for r in conn.execute(
            "SELECT rid FROM context_entries WHERE rid > ? AND +scope_level = ? "
            "AND +scope_path IS ? AND is_deprecated = 0",
            (after_rid, level, path),
        )
    ]


def filtered_rids(conn: apsw.Connection, f: EntryFilter, limit: int | None) -> list[int]:
    """Up to `limit` (None: all) rids the filter allows, deprecation aside (the index
    knows it). A filter of tags and metadata alone is read from their indexes without
    touching the entries (`holding`)."""
    if f.only_sets:
        return holding(conn, f, limit)
    sql = f"SELECT e.rid FROM context_entries e WHERE {f.narrowing_sql()} LIMIT ?"
    return [int(r[0]) for r in conn.execute(sql, (*f.args, _bound(limit)))]


def holding(conn: apsw.Connection, f: EntryFilter, limit: int | None) -> list[int]:
    """Up to `limit` (None: all) rids holding every tag and metadata pair of the filter
    (its other clauses aside), read from their indexes alone: 1.2 ms for 10,000 rids at
    100k, where checking each entry of a project's view for its tag took 8.5."""
    sql = " INTERSECT ".join(query for query, _ in f.sets)
    args = [arg for _, set_args in f.sets for arg in set_args]
    return [int(r[0]) for r in conn.execute(f"{sql} LIMIT ?", (*args, _bound(limit)))]


def _bound(limit: int | None) -> int:
    return -1 if limit is None else limit  # a negative LIMIT is none


def passing(conn: apsw.Connection, f: EntryFilter, rids: Sequence[int]) -> set[int]:
    """Those of `rids` the filter allows, deprecation aside."""
    out: set[int] = set()
    for chunk, marks in in_lists(rids):
        cur = conn.execute(
            f"SELECT e.rid FROM context_entries e WHERE {f.narrowing_sql()} AND e.rid IN ({marks})",
            (*f.args, *chunk),
        )
        out.update(int(r[0]) for r in cur)
    return out


def filtered(conn: apsw.Connection, f: EntryFilter) -> list[EntryRow]:
    return [
        entry_row(r)
        for r in conn.execute(f"SELECT {COLUMNS} FROM {ENTRIES} WHERE {f.sql()}", f.args)
    ]


def quarantined_matching(conn: apsw.Connection, f: EntryFilter) -> int:
    """How many quarantined entries `f` would allow if it included them (few: the partial
    index on quarantined rows finds them)."""
    wider = dataclasses.replace(f, include_quarantined=True)
    row = conn.execute(
        f"SELECT count(*) FROM context_entries e WHERE {wider.sql()} AND e.quarantined = 1",
        wider.args,
    ).fetchone()
    return int(row[0]) if row else 0


SORT_KEYS = {
    "updated": "e.updated_at",
    "created": "e.created_at",
    "accessed": f"coalesce({ACCESS['accessed_at']}, '')",
    "importance": "e.importance",
}


def listing(
    conn: apsw.Connection,
    f: EntryFilter,
    sort: str,
    descending: bool,
    after: tuple[Any, int] | None,
    limit: int,
) -> list[tuple[Any, EntryRow]]:
    """A page of the entries a filter allows, ordered by `sort` then rid (a total order,
    so a keyset cursor (key, rid) resumes exactly where the last page ended)."""
    key = SORT_KEYS[sort]
    op, direction = ("<", "DESC") if descending else (">", "ASC")
    where, args = f.sql(), list(f.args)
    if after is not None:
        where += f" AND ({key}, e.rid) {op} (?, ?)"
        args += list(after)
    cur = conn.execute(
        f"SELECT {key}, {COLUMNS} FROM {ENTRIES} WHERE {where} "
        f"ORDER BY {key} {direction}, e.rid {direction} LIMIT ?",
        (*args, limit),
    )
    return [(r[0], entry_row(r[1:])) for r in cur]


# --- counts ------------------------------------------------------------------------------


def totals(conn: apsw.Connection) -> tuple[int, int, str | None, str | None]:
    """(entries, active entries, oldest created_at, newest created_at)."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(is_deprecated = 0), 0), min(created_at), "
        "max(created_at) FROM context_entries"
    ).fetchone()
    assert row is not None  # an aggregate always returns a row
    return int(row[0]), int(row[1]), row[2], row[3]


def last_write(conn: apsw.Connection, at: str | None) -> str | None:
    """When a memory was last written, updated, confirmed or forgotten, at or before `at`
    (None: ever); None for a store never written. An entry's own time says when it was
    written or updated; a confirmation (or a forgetting) is a version. Both columns are
    indexed (idx_entries_updated, idx_versions_time): two index seeks."""
    stamps = []
    for table, column in (("context_entries", "updated_at"), ("context_versions", "changed_at")):
        bound, args = ("", ()) if at is None else (f" WHERE {column} <= ?", (at,))
        row = conn.execute(f"SELECT max({column}) FROM {table}{bound}", args).fetchone()
        if row is not None and row[0] is not None:
            stamps.append(str(row[0]))
    return max(stamps, default=None)


def active_counts_by(conn: apsw.Connection, column: str) -> dict[str, int]:
    """Active entries per value of content_type or scope_level."""
    if column not in ("content_type", "scope_level"):
        raise ValueError(column)
    return dict(
        conn.execute(
            f"SELECT {column}, count(*) FROM context_entries WHERE is_deprecated = 0 GROUP BY 1"
        )
    )


def confidence_bands(conn: apsw.Connection, high: float, low: float) -> dict[str, int]:
    """Active entries with confidence >= high ('high'), >= low ('medium'), below ('low')."""
    return dict(
        conn.execute(
            "SELECT CASE WHEN confidence >= ? THEN 'high' WHEN confidence >= ? THEN 'medium' "
            "ELSE 'low' END, count(*) FROM context_entries WHERE is_deprecated = 0 GROUP BY 1",
            (high, low),
        )
    )


# --- expiry ------------------------------------------------------------------------------


def next_expiry(conn: apsw.Connection) -> str | None:
    row = conn.execute(
        "SELECT min(expires_at) FROM context_entries WHERE expires_at IS NOT NULL"
    ).fetchone()
    return row[0] if row else None


def expired(conn: apsw.Connection, now: str) -> list[EntryRow]:
    """Every entry whose time is up."""
    return [
        entry_row(row)
        for row in conn.execute(
            f"SELECT {COLUMNS} FROM {ENTRIES} WHERE e.expires_at IS NOT NULL AND e.expires_at <= ?",
            (now,),
        )
    ]


def compact_text_index(conn: apsw.Connection) -> None:
    """Merge the FTS index into one segment: the terms of changed or deleted text stay in
    older segments until a merge, so this is what makes a removed word really gone."""
    conn.execute("INSERT INTO context_fts(context_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO context_cjk(context_cjk) VALUES ('optimize')")

"""The access bookkeeping (accessed_at, access_count) in a narrow table of its own,
context_access (m024, store/access.py): a store made at m023 keeps its counts through
the migration, a flush of counts writes a page for many entries instead of a page an
entry, and a hard delete takes an entry's access row with it."""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

import msgspec

from conftest import an_entry, raw_db
from enyal_daemon.store import access, cjk, db, entries, migrations, rows
from enyal_protocol import wire as p

_AT = "2026-01-01T00:00:00Z"


def _table_columns(conn: Any, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


def test_m024_keeps_the_counts_of_a_store_made_at_m023(home: Path, embedder: Any) -> None:
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.service.memory import memories

    db_path = home / "enyal.db"
    conn = raw_db(db_path)
    cjk.register(conn)  # m014's function, as the daemon's connections have it
    m023 = migrations.MIGRATIONS.index(migrations.m023_deleted_ids) + 1
    assert migrations.migrate(conn, upto=m023) == m023
    # (id, accessed_at, access_count) as the release at m023 kept them, in the entries' rows
    kept = [
        ("read", "2026-02-03T04:05:06Z", 5),
        ("dated", "2026-02-04T00:00:00Z", 0),  # read once, its count cleared by hand
        ("never", None, 0),
    ]
    with conn:
        for entry_id, accessed, count in kept:
            text = f"The {entry_id} memory of the deploy pipeline."
            conn.execute(
                "INSERT INTO context_entries (id, content, content_hash, content_type, "
                "scope_level, created_at, updated_at, accessed_at, access_count) "
                "VALUES (?, ?, ?, 'fact', 'global', ?, ?, ?, ?)",
                (entry_id, text, entries.content_hash(text), _AT, _AT, accessed, count),
            )
            conn.execute(
                "INSERT INTO context_vectors(rowid, embedding) VALUES (last_insert_rowid(), ?)",
                (embedder.embed(text).tobytes(),),
            )
    conn.close()

    m = Engine(db_path, embedder)
    try:
        for entry_id, accessed, count in kept:
            row = m.require(entry_id)
            assert (row.accessed_at, row.access_count) == (accessed, count), entry_id
        memories.get(m, p.GetParams(id="read"))  # a read is counted, on top of the old 5
        m.flush_bookkeeping()
        after = m.require("read")
        assert after.access_count == 6 and after.accessed_at is not None
        assert after.accessed_at > "2026-02-03T04:05:06Z"
        memories.forget(m, p.ForgetParams(id="read", hard=True))
    finally:
        m.close()

    check = db.connect(db_path, writer=False)
    assert not _table_columns(check, "context_entries") & set(rows.ACCESS)
    # Only entries ever read have a row; the hard-deleted one's went with it
    got = dict(check.execute("SELECT rid, access_count FROM context_access"))
    ids = dict(check.execute("SELECT id, rid FROM context_entries"))
    assert got == {ids["dated"]: 0}
    check.close()


def _vector() -> bytes:
    return struct.pack(f"{migrations.EMBED_DIM}f", *([0.1] * migrations.EMBED_DIM))


def _entry(i: int) -> p.Entry:
    # Long enough that an entry's row fills most of a page, as a note or a passage does
    text = f"Memory {i}: " + " ".join(f"word{i}_{j}" for j in range(300))
    entry: p.Entry = an_entry(text, id=f"01JACCESS{i:017d}", created_at=_AT, updated_at=_AT)
    return entry


def _wal_frames(conn: Any, path: Path) -> int:
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    wal = Path(f"{path}-wal")
    size = wal.stat().st_size if wal.exists() else 0
    return max(0, size - 32) // (page + 24)  # the WAL's header, then (frame header, page)s


def test_a_flush_of_counts_writes_a_page_for_many_entries(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    conn = db.connect(path, writer=True)
    migrations.migrate(conn)
    with conn:
        rids = entries.insert_many(conn, [(_entry(i), _vector(), []) for i in range(1200)])
    ids = dict(conn.execute("SELECT rid, id FROM context_entries"))
    touched = random.Random(7).sample(rids, 400)
    for rounds in range(2):  # the first flush makes the rows, the next adds to them
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert _wal_frames(conn, path) == 0
        with conn:
            access.touch(
                conn, [(ids[rid], 2, f"2026-03-0{rounds + 1}T00:00:00Z") for rid in touched]
            )
        frames = _wal_frames(conn, path)
        # A row is a rid, a time and a count (~100 to a page): the table's few pages and
        # their parents, where beside the text each count was a page of its own (>= 400)
        assert 0 < frames <= len(touched) // 20, (rounds, frames)
    got = entries.by_rids(conn, touched[:5])
    assert {(r.access_count, r.accessed_at) for r in got.values()} == {(4, "2026-03-02T00:00:00Z")}
    untouched = entries.get(conn, ids[next(r for r in rids if r not in set(touched))])
    assert untouched is not None and (untouched.access_count, untouched.accessed_at) == (0, None)
    conn.close()


def test_a_deleted_entry_takes_its_access_row_with_it(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "store.db", writer=True)
    migrations.migrate(conn)
    counted = msgspec.structs.replace(_entry(1), access_count=3, accessed_at=_AT)
    with conn:
        rid = entries.insert(conn, counted, _vector(), [])
    assert conn.execute("SELECT count(*) FROM context_access").fetchone()[0] == 1
    with conn:
        entries.delete(conn, rid)
    assert conn.execute("SELECT count(*) FROM context_access").fetchone()[0] == 0
    conn.close()

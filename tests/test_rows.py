"""A memory's columns are declared once, as store/rows.EntryRow's fields: the SELECT list,
the INSERT and EntryRow -> wire.Entry are derived from them. These tests hold that one
declaration to the table the migrations make and to wire.Entry, and show a memory with
every column set comes back from the real store as it went in."""

from __future__ import annotations

import struct
from pathlib import Path

import msgspec
from msgspec import UNSET
from msgspec.structs import fields

from enyal_daemon.store import db, entries, migrations, rows
from enyal_protocol.wire import Entry


def _stored_entry_fields() -> set[str]:
    # Fields left UNSET by default (source_changed, read_only, ...) are worked out when
    # the entry is read; every other field of a wire entry is kept in a column.
    return {f.name for f in fields(Entry) if f.default is not UNSET}


def test_the_declared_columns_are_the_tables_columns(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "store.db", writer=True)
    migrations.migrate(conn)
    table = {r[1] for r in conn.execute("PRAGMA table_info(context_entries)")}
    # The access bookkeeping's columns are context_access's (m024), keyed by rid
    counts = {r[1] for r in conn.execute(f"PRAGMA table_info({rows.ACCESS_TABLE})")}
    assert counts == {"rid", *rows.ACCESS}
    assert not table & set(rows.ACCESS), "the counts are kept in one table"
    table |= set(rows.ACCESS)
    assert set(rows.COLUMN_NAMES) == table, (
        f"declared but not in the table: {sorted(set(rows.COLUMN_NAMES) - table)}; "
        f"in the table but not on EntryRow: {sorted(table - set(rows.COLUMN_NAMES))}"
    )


def test_every_stored_field_of_a_wire_entry_has_its_column() -> None:
    stored, inserted = _stored_entry_fields(), set(rows.ENTRY_COLUMNS)
    assert inserted == stored, (
        f"wire.Entry fields without an EntryRow column: {sorted(stored - inserted)}; "
        f"EntryRow columns not on wire.Entry: {sorted(inserted - stored)}"
    )
    assert "rid" in rows.COLUMN_NAMES and "rid" not in rows.ENTRY_COLUMNS
    assert set(rows.INSERT_COLUMNS) == inserted - set(rows.ACCESS)


def test_an_entry_with_every_column_set_reads_back_as_written(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "store.db", writer=True)
    migrations.migrate(conn)
    # No field at its default, each distinct, so a value landing in another column shows.
    entry = Entry(
        id="01JROWS0000000000000000000",
        content="the build uses ninja",
        content_type="decision",
        scope_level="project",
        scope_path="/p",
        confidence=0.75,
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-02T00:00:00Z",
        accessed_at="2026-01-03T00:00:00Z",
        access_count=4,
        source_type="commit",
        source_ref="abc123",
        tags=["build", "ninja"],
        metadata={"k": [1, 2]},
        is_deprecated=True,
        content_hash=entries.content_hash("the build uses ninja"),
        importance=5,
        expires_at="2027-01-01T00:00:00Z",
        confirmed_at="2026-01-04T00:00:00Z",
        confirm_count=2,
        written_by="agent",
        quarantined=True,
        quarantine_reason="reads as an instruction",
        status="blocked",
        due="2026-02-01",
    )
    assert set(_stored_entry_fields()) <= {
        f.name for f in fields(Entry) if getattr(entry, f.name) != f.default
    }, "the test entry leaves a stored field at its default: set it"
    vector = struct.pack(f"{migrations.EMBED_DIM}f", *([0.0] * migrations.EMBED_DIM))
    with conn:
        rid = entries.insert(conn, entry, vector, [])
    row = entries.get(conn, entry.id)
    assert row is not None and row.rid == rid
    assert row.entry() == entry
    assert row.is_deprecated and row.tags() == ["build", "ninja"]
    # The row an insert stored, as a batch takes it without reading it back (its digest)
    assert rows.inserted_row(rid, entry) == row
    plain = msgspec.structs.replace(
        entry, id="01JROWS0000000000000000001", is_deprecated=False, quarantined=False, tags=[]
    )
    with conn:
        rid = entries.insert(conn, plain, vector, [])
    assert rows.inserted_row(rid, plain) == entries.get(conn, plain.id)

    # An update names fields in their wire form, as the entry has them: the store keeps
    # them as an insert does (JSON text, 0/1), and new content brings its own hash.
    changed = {
        "content": "the build uses make",
        "tags": ["make"],
        "metadata": {"k": {"deep": True}},
        "is_deprecated": True,
        "quarantined": False,
        "status": "open",
        "access_count": 9,  # the counts are another table's (m024): set there
        "accessed_at": "2026-01-05T00:00:00Z",
    }
    with conn:
        entries.update_fields(conn, rid, changed)
    after = entries.get(conn, plain.id)
    assert after is not None
    want = msgspec.structs.replace(
        plain, content_hash=entries.content_hash("the build uses make"), **changed
    )
    assert after.entry() == want
    assert rows.inserted_row(rid, want) == after, "stored as an insert of it would store it"

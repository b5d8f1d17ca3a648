"""The store's typed rows: what a SELECT hands back, by name.

Above store/ nothing reads a row by position. An EntryRow is the entry as SQLite
holds it (tags and metadata still JSON text, is_deprecated 0/1) plus its rid, the
integer key the vector index and FTS share; `entry()` decodes it for the wire.
Decoding is left until a row is worth it: recall ranks a few hundred rows and
turns only the best into wire entries.

The columns are declared once, as EntryRow's fields: each field's encoded name
(msgspec's `name=` where the Python name differs) is its column, and the SELECT
list, the INSERT and entry() are derived from them, so a new column is one new
field here and on wire.Entry (tests/test_rows.py holds the two and the tables to
the same set).

Two of them, the access bookkeeping, live in a narrow table of their own,
context_access (m024), keyed by rid and holding a row only for an entry read at least
once: a flush of counts rewrites ~1 page a hundred entries there, where beside the text
it rewrote a page an entry. ACCESS says which they are and how each reads for an entry
without a row; every SELECT reads the entry `FROM {ENTRIES}`, the two tables joined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect
from msgspec.structs import fields

from enyal_protocol.wire import (
    ContentType,
    Entry,
    ScopeLevel,
    SourceType,
    TaskStatus,
    WrittenBy,
)

_decode = msgspec.json.decode
_encode = msgspec.json.encode


class EntryRow(msgspec.Struct, frozen=True):
    rid: int
    id: str
    content: str
    content_type: ContentType
    scope_level: ScopeLevel
    scope_path: str | None
    confidence: float
    created_at: str
    updated_at: str
    accessed_at: str | None
    access_count: int
    source_type: SourceType | None
    source_ref: str | None
    tags_json: str = msgspec.field(name="tags")  # JSON text
    metadata_json: str = msgspec.field(name="metadata")  # JSON text
    deprecated: int = msgspec.field(name="is_deprecated")  # 0 or 1, as SQLite stores it
    content_hash: str
    importance: int
    expires_at: str | None
    confirmed_at: str | None
    confirm_count: int
    written_by: WrittenBy | None
    quarantined: int  # 0 or 1
    quarantine_reason: str | None
    status: TaskStatus | None
    due: str | None

    @property
    def is_deprecated(self) -> bool:
        return bool(self.deprecated)

    @property
    def checked_at(self) -> str:
        """When the entry was last known true: decay and recency count from here."""
        if self.confirmed_at is not None and self.confirmed_at > self.updated_at:
            return self.confirmed_at
        return self.updated_at

    @property
    def scope(self) -> tuple[ScopeLevel, str | None]:
        return self.scope_level, self.scope_path

    def tags(self) -> list[str]:
        tags: list[str] = _decode(self.tags_json)
        return tags

    def metadata(self) -> dict[str, Any]:
        metadata: dict[str, Any] = _decode(self.metadata_json)
        return metadata

    def entry(self) -> Entry:
        return _to_entry(self)


# The access bookkeeping's columns (context_access, m024), each with what it reads as for
# an entry never read (no row: the LEFT JOIN's NULLs), the defaults the entries' own
# columns had.
ACCESS = {"accessed_at": "a.accessed_at", "access_count": "coalesce(a.access_count, 0)"}
ACCESS_TABLE = "context_access"
# An entry's row and its access row, aliased e and a: what every SELECT of EntryRow reads.
ENTRIES = f"context_entries e LEFT JOIN {ACCESS_TABLE} a ON a.rid = e.rid"

# (attribute, column) of each EntryRow field: the one list every statement is built from.
_FIELDS = tuple((f.name, f.encode_name) for f in fields(EntryRow))
# Entry's fields that are columns: all but rid (the store's own key).
_ENTRY_FIELDS = tuple((attr, name) for attr, name in _FIELDS if name != "rid")
COLUMN_NAMES = tuple(name for _, name in _FIELDS)
# The SELECT list of an EntryRow `FROM {ENTRIES}`.
COLUMNS = ", ".join(ACCESS.get(c, "e." + c) for c in COLUMN_NAMES)
# Entry's columns, in EntryRow's order: those of context_entries and ACCESS's.
ENTRY_COLUMNS = tuple(name for _, name in _ENTRY_FIELDS)
# The columns an insert into context_entries writes: every one but rid, which SQLite
# assigns, and ACCESS's (an insert of an entry with counts writes its access row too).
INSERT_COLUMNS = tuple(name for name in ENTRY_COLUMNS if name not in ACCESS)
# The columns SQLite keeps in another form (JSON text, 0/1), which entry() decodes.
_DECODED = {
    "tags": "row.tags()",
    "metadata": "row.metadata()",
    "is_deprecated": "row.is_deprecated",
    "quarantined": "bool(row.quarantined)",
}


def _entry_builder() -> Callable[[EntryRow], Entry]:
    """EntryRow -> Entry, written out from the fields once at import, as dataclasses writes
    __init__: every column but rid under its own name. Built generically per call (a dict
    of the fields, then Entry(**it)) it cost entry() half again its time."""
    args = ", ".join(f"{name}={_DECODED.get(name, 'row.' + attr)}" for attr, name in _ENTRY_FIELDS)
    namespace: dict[str, Any] = {"Entry": Entry}
    exec(f"def to_entry(row):\n    return Entry({args})\n", namespace)
    to_entry: Callable[[EntryRow], Entry] = namespace["to_entry"]
    return to_entry


_to_entry = _entry_builder()


_ENTRY_TYPES = {f.name: f.type for f in fields(Entry)}


def stored(value: Any) -> Any:
    """A field's value as SQLite keeps it, from its wire form: a bool as 0 or 1, a list or
    dict as JSON text, the rest as it is (what entry() decodes back). Inserts and updates
    both write through it, so no caller encodes a column itself."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list | dict):
        return _encode(value).decode()
    return value


def _stored(name: str) -> str:
    """The expression of the Entry field `name`'s value as SQLite keeps it: `stored` of it
    where its declared type is one SQLite keeps in another form, else the value itself."""
    kind = msgspec.inspect.type_info(_ENTRY_TYPES[name])
    encoded = msgspec.inspect.BoolType | msgspec.inspect.ListType | msgspec.inspect.DictType
    return f"stored(entry.{name})" if isinstance(kind, encoded) else f"entry.{name}"


def _values_builder(names: tuple[str, ...]) -> Callable[[Entry], tuple[Any, ...]]:
    """Entry -> its values of the columns `names`, in order, written out once at import (as
    `_entry_builder`): a generator of getattr and isinstance a column cost a replica's
    initial sync ~0.013 ms a memory, twice (its digest, its insert)."""
    values = ", ".join(_stored(name) for name in names)
    namespace: dict[str, Any] = {"stored": stored}
    exec(f"def values(entry):\n    return ({values},)\n", namespace)
    built: Callable[[Entry], tuple[Any, ...]] = namespace["values"]
    return built


insert_values = _values_builder(INSERT_COLUMNS)
insert_values.__doc__ = "The entry's values in INSERT_COLUMNS order, in the form SQLite keeps them."
_row_values = _values_builder(ENTRY_COLUMNS)


def entry_row(row: Any) -> EntryRow:
    # The SELECT lists COLUMNS, derived from EntryRow's fields in order, so position here
    # is the declaration's own order, not a second hand-kept one (and it is the fastest
    # way msgspec builds a Struct).
    return EntryRow(*row)


def inserted_row(rid: int, entry: Entry) -> EntryRow:
    """The row an insert of `entry` stored under `rid`, as a SELECT would hand it back,
    without reading it back (a batch of inserts need not read each one again)."""
    return EntryRow(rid, *_row_values(entry))


access_values = _values_builder(tuple(ACCESS))
access_values.__doc__ = "The entry's values of ACCESS's columns, in that order."

"""The store's typed rows: what a SELECT hands back, by name.

Above store/ nothing reads a row by position. An EntryRow is the entry as SQLite
holds it (tags and metadata still JSON text, is_deprecated 0/1) plus its rid, the
integer key the vector index and FTS share; `entry()` decodes it for the wire.
Decoding is left until a row is worth it: recall ranks a few hundred rows and
turns only the best into wire entries.
"""

from __future__ import annotations

from typing import Any

import msgspec

from enyal_protocol.wire import (
    ContentType,
    Entry,
    ScopeLevel,
    SourceType,
    TaskStatus,
    WrittenBy,
)

_decode = msgspec.json.decode


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
    tags_json: str
    metadata_json: str
    deprecated: int  # 0 or 1, as SQLite stores it
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
        return Entry(
            id=self.id,
            content=self.content,
            content_type=self.content_type,
            scope_level=self.scope_level,
            scope_path=self.scope_path,
            confidence=self.confidence,
            created_at=self.created_at,
            updated_at=self.updated_at,
            accessed_at=self.accessed_at,
            access_count=self.access_count,
            source_type=self.source_type,
            source_ref=self.source_ref,
            tags=self.tags(),
            metadata=self.metadata(),
            is_deprecated=self.is_deprecated,
            content_hash=self.content_hash,
            importance=self.importance,
            expires_at=self.expires_at,
            confirmed_at=self.confirmed_at,
            confirm_count=self.confirm_count,
            written_by=self.written_by,
            quarantined=bool(self.quarantined),
            quarantine_reason=self.quarantine_reason,
            status=self.status,
            due=self.due,
        )


COLUMNS = (
    "rid, id, content, content_type, scope_level, scope_path, confidence, created_at, "
    "updated_at, accessed_at, access_count, source_type, source_ref, tags, metadata, "
    "is_deprecated, content_hash, importance, expires_at, confirmed_at, confirm_count, "
    "written_by, quarantined, quarantine_reason, status, due"
)
# The same columns of the entries table aliased e, for queries that join it.
E_COLUMNS = ", ".join("e." + c for c in COLUMNS.split(", "))


def entry_row(row: Any) -> EntryRow:
    return EntryRow(*row)

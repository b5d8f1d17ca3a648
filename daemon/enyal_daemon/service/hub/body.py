"""What a change's `body` says, per kind (docs/ARCHITECTURE.md, "The replica").

`put`: the memory's whole state after the change, and the version its writer held
(`based`): two puts neither based on the other are concurrent. `delete`: a tombstone;
its body is `{}`. `edge`: a link's (from, to, kind) and whether it is there now.
Bodies are JSON: the hub stores them without reading them; a body that does not
decode as its kind is refused on pull (reported in `hub status`), never applied.
"""

from __future__ import annotations

import hashlib
from typing import Annotated

import msgspec
from msgspec import Meta

from enyal_protocol import wire as p

from ...store.rows import EntryRow

PUT = "put"
DELETE = "delete"
EDGE = "edge"
# A put the hub emptied once its memory was deleted for good (hub/schema.py): skipped.
PURGED = "purged"
KINDS = (PUT, DELETE, EDGE)


class State(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A memory as every replica keeps it. Access counts, confirmations and expiry are
    each home's own and do not travel."""

    content: str
    content_type: p.ContentType
    scope_level: p.ScopeLevel
    scope_path: str | None
    confidence: Annotated[float, Meta(ge=0.0, le=1.0)]
    created_at: str
    updated_at: str
    tags: list[str]
    importance: Annotated[int, Meta(ge=1, le=5)]
    forgotten: bool
    written_by: p.WrittenBy | None = None
    status: p.TaskStatus | None = None
    due: str | None = None


class Put(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    state: State
    based: tuple[int, str]  # (clock, device) of the version the writer held; (0, "") none


class Edge(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    target: str
    edge_type: p.EdgeType
    present: bool


def state_of(row: EntryRow) -> State:
    return State(
        content=row.content,
        content_type=row.content_type,
        scope_level=row.scope_level,
        scope_path=row.scope_path,
        confidence=row.confidence,
        created_at=row.created_at,
        updated_at=row.updated_at,
        tags=row.tags(),
        importance=row.importance,
        forgotten=row.is_deprecated,
        written_by=row.written_by,
        status=row.status,
        due=row.due,
    )


def digest(state: State) -> str:
    """What the capture compares: a state equal to the one last sent is not sent again.
    `updated_at` is left out: a write that changes nothing else (a confirmation) is
    not a new version for the others."""
    plain = msgspec.structs.replace(state, updated_at="")
    return hashlib.sha256(msgspec.json.encode(plain)).hexdigest()


def encode(value: Put | Edge) -> bytes:
    return msgspec.json.encode(value)


def decode_put(body: bytes) -> Put:
    return msgspec.json.decode(body, type=Put)


def decode_edge(body: bytes) -> Edge:
    return msgspec.json.decode(body, type=Edge)

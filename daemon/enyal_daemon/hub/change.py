"""What travels between a daemon and the hub: one change to one memory of a space.

The hub stores a change without reading it (`body` is opaque to it); the daemons agree on
what it means. A change is made once, by the daemon that wrote the memory, and keeps its
`change_id` wherever it goes, so applying it twice (a push retried after a crash, a pull
that overlaps) is a no-op by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from .wake import Wake


class Change(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    change_id: str  # uuid4 hex, made by the writing daemon; unique in the hub's log
    space: str
    memory_id: str
    clock: int  # the writer's logical (Lamport) clock, never a wall clock
    device: str  # the writing home's device id: ties on `clock` break on it
    kind: str  # what happened to the memory; the replica defines the kinds
    body: bytes  # the kind's payload as JSON; opaque to the hub
    vector: bytes | None  # float32 little-endian embedding, when made by `model_id`
    model_id: str


class Pulled(msgspec.Struct, frozen=True):
    seq: int  # the hub log's position: the puller's cursor moves past it
    change: Change
    # The hub role that appended it: the log's `author`, the hub's current_user at the
    # insert (its policy refuses any other), so unlike `device` no member can claim it.
    author: str = ""


class Rejected(msgspec.Struct, frozen=True):
    seq: int  # a row of the log that is not a well-formed change: skipped, reported
    reason: str


class HubLink(Protocol):
    """One daemon's connection to one hub, as its role (libpq's usual means: the URL,
    PGPASSFILE, PGSSLMODE...). Every method raises errors.HubUnavailable when the hub
    cannot be reached, so the caller keeps its outbox and retries."""

    def init_schema(self) -> int:
        """Create or migrate the hub's schema; idempotent; the schema version."""
        ...

    def join(self, space: str) -> None:
        """Make this role a member of `space`, creating the space if it has none."""
        ...

    def invite(self, space: str, role: str) -> None:
        """Let `role` join `space`; only a member of `space` may invite (the hub's row
        security refuses anyone else)."""
        ...

    def spaces(self) -> list[str]:
        """The spaces this role is a member of."""
        ...

    def push(self, changes: Sequence[Change]) -> None:
        """Append `changes` to the log in one transaction, in order; a change_id already
        there is skipped. Returns once committed (then the outbox may drop them)."""
        ...

    def pull(self, after: int, limit: int, space: str | None = None) -> list[Pulled | Rejected]:
        """Changes of this role's spaces (or of `space` alone) with seq > after, in seq
        order. `space` catches up a space just joined, whose rows lie below the cursor."""
        ...

    def head(self) -> int:
        """The last seq this role can see (for lag)."""
        ...

    def wait(self, timeout: float, wake: Wake | None = None) -> bool:
        """Block until the hub announces a new change (LISTEN/NOTIFY), `wake` is set
        (a local write to push) or `timeout` passes; True if announced."""
        ...

    def close(self) -> None: ...

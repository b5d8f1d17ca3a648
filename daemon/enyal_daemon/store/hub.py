"""SQL over the replica's tables (m018_hub): this home's device id, clock and status,
the spaces joined and the project rules, each shared memory's current version, the
tombstones, the edges' versions, the outbox and the change ids applied. No policy here:
service/hub/ decides what a change means and which version wins."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import apsw
import msgspec

from .db import in_lists, present

Version = tuple[int, str]  # (clock, device): the order of versions, never a wall clock


class Member(msgspec.Struct, frozen=True):
    memory_id: str
    space: str
    clock: int
    device: str
    based_clock: int
    based_device: str
    digest: str | None
    review: str | None

    @property
    def version(self) -> Version:
        return self.clock, self.device

    @property
    def based(self) -> Version:
        return self.based_clock, self.based_device


# --- this home's state ------------------------------------------------------------------


def get(conn: apsw.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM hub_state WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def put(conn: apsw.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO hub_state (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def drop(conn: apsw.Connection, key: str) -> None:
    conn.execute("DELETE FROM hub_state WHERE key = ?", (key,))


CATCHUP = "catchup:"  # + a space just joined: how far its own rows below the cursor are read


def catching_up(conn: apsw.Connection) -> dict[str, int]:
    """space -> its catch-up position, for each space joined and not yet caught up."""
    cur = conn.execute(
        "SELECT key, value FROM hub_state WHERE key LIKE ? ORDER BY key", (CATCHUP + "%",)
    )
    return {k[len(CATCHUP) :]: int(v) for k, v in cur}


# + a space catching up: the parts of the log (after, upto] its catch-up reads, fixed
# once before a pull could see the space (service/hub/worker.py, `fix_catch_ups`)
CATCHUP_SPANS = "catchup_spans:"
Span = tuple[int, int]


def catch_up_spans(conn: apsw.Connection, space: str) -> list[Span] | None:
    """The spans a space's catch-up reads, or None when not fixed yet."""
    found = get(conn, CATCHUP_SPANS + space)
    return None if found is None else [(a, b) for a, b in msgspec.json.decode(found)]


def set_catch_up_spans(conn: apsw.Connection, space: str, spans: Sequence[Span]) -> None:
    put(conn, CATCHUP_SPANS + space, msgspec.json.encode(list(spans)).decode())


def drop_catch_up(conn: apsw.Connection, space: str) -> None:
    drop(conn, CATCHUP + space)
    drop(conn, CATCHUP_SPANS + space)


# The backlog: rows of the log behind the cursor not yet applied, from BACKLOG (the last
# one applied) to BACKLOG_END, read a batch a round after what is new (service/hub/worker).
BACKLOG = "backlog"
BACKLOG_END = "backlog_end"


def backlog(conn: apsw.Connection) -> tuple[int, int] | None:
    """(last applied, last to apply) of the backlog, if there is one."""
    after, end = get(conn, BACKLOG), get(conn, BACKLOG_END)
    return None if after is None or end is None else (int(after), int(end))


def drop_backlog(conn: apsw.Connection) -> None:
    drop(conn, BACKLOG)
    drop(conn, BACKLOG_END)


def device(conn: apsw.Connection) -> str:
    """This home's device id: random, made on first use and kept (a copy of the database
    moved to another machine is the same device; that is what a restore is)."""
    found = get(conn, "device")
    if found is None:
        found = uuid.uuid4().hex
        put(conn, "device", found)
    return found


def clock(conn: apsw.Connection) -> int:
    return int(get(conn, "clock") or 0)


def tick(conn: apsw.Connection) -> int:
    """The clock of a local change: one past everything made or seen here."""
    now = clock(conn) + 1
    put(conn, "clock", str(now))
    return now


def observe(conn: apsw.Connection, seen: int) -> None:
    """A change seen with clock `seen`: the next local one comes after it (Lamport)."""
    if seen > clock(conn):
        put(conn, "clock", str(seen))


# --- spaces and rules -------------------------------------------------------------------


def join(conn: apsw.Connection, space: str, when: str) -> None:
    conn.execute(
        "INSERT INTO hub_spaces (space, joined_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (space, when),
    )


def spaces(conn: apsw.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT space FROM hub_spaces ORDER BY space")]


def set_rule(conn: apsw.Connection, project: str, space: str) -> None:
    conn.execute(
        "INSERT INTO hub_rules (project, space) VALUES (?, ?) "
        "ON CONFLICT (project) DO UPDATE SET space = excluded.space",
        (project, space),
    )


def drop_rule(conn: apsw.Connection, project: str) -> str | None:
    """Remove the rule of `project` (its key as stored); the space it named, if any."""
    row = conn.execute(
        "DELETE FROM hub_rules WHERE project = ? RETURNING space", (project,)
    ).fetchone()
    return None if row is None else str(row[0])


def rules(conn: apsw.Connection) -> dict[str, str]:
    return {p: s for p, s in conn.execute("SELECT project, space FROM hub_rules ORDER BY 1")}


# --- memories of spaces -----------------------------------------------------------------

_MEMBER = "memory_id, space, clock, device, based_clock, based_device, digest, review"


def member(conn: apsw.Connection, memory_id: str) -> Member | None:
    row = conn.execute(
        f"SELECT {_MEMBER} FROM hub_memories WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    return Member(*row) if row else None


def enrol(conn: apsw.Connection, memory_id: str, space: str) -> None:
    """`memory_id` is of `space` from now on (its first version is yet to be made)."""
    conn.execute(
        "INSERT INTO hub_memories (memory_id, space) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (memory_id, space),
    )


def set_version(
    conn: apsw.Connection,
    memory_id: str,
    space: str,
    version: Version,
    based: Version,
    digest: str,
) -> None:
    conn.execute(
        _SET_VERSION, (memory_id, space, version[0], version[1], based[0], based[1], digest)
    )


def set_versions(
    conn: apsw.Connection, items: Sequence[tuple[str, str, Version, Version, str]]
) -> None:
    """`set_version` of many (memory id, space, version, based, digest), one statement."""
    conn.executemany(_SET_VERSION, [(m, s, v[0], v[1], b[0], b[1], d) for m, s, v, b, d in items])


_SET_VERSION = (
    "INSERT INTO hub_memories (memory_id, space, clock, device, based_clock, based_device,"
    " digest) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET "
    "clock = excluded.clock, device = excluded.device, based_clock = excluded.based_clock,"
    " based_device = excluded.based_device, digest = excluded.digest"
)


def known(conn: apsw.Connection, ids: Sequence[str]) -> set[str]:
    """Those of `ids` this home holds as memories of a space, or as tombstones."""
    out: set[str] = set()
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            f"SELECT memory_id FROM hub_memories WHERE memory_id IN ({marks}) UNION "
            f"SELECT memory_id FROM hub_tombstones WHERE memory_id IN ({marks})",
            (*chunk, *chunk),
        )
        out.update(str(r[0]) for r in cur)
    return out


def set_review(conn: apsw.Connection, memory_id: str, reason: str | None) -> None:
    conn.execute("UPDATE hub_memories SET review = ? WHERE memory_id = ?", (reason, memory_id))


def forget_member(conn: apsw.Connection, memory_id: str) -> None:
    conn.execute("DELETE FROM hub_memories WHERE memory_id = ?", (memory_id,))


def to_review(conn: apsw.Connection, limit: int) -> list[Member]:
    cur = conn.execute(
        f"SELECT {_MEMBER} FROM hub_memories WHERE review IS NOT NULL ORDER BY memory_id LIMIT ?",
        (limit,),
    )
    return [Member(*r) for r in cur]


def keep_conflict(conn: apsw.Connection, memory_id: str, version: Version, body: bytes) -> None:
    conn.execute(
        "INSERT INTO hub_conflicts (memory_id, clock, device, body) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (memory_id, version[0], version[1], body),
    )


def space_counts(conn: apsw.Connection) -> dict[str, int]:
    """space -> its memories stored here: kept by m021's triggers as either side
    changes, so reading it costs a row a space, not a join of every memory."""
    return {s: n for s, n in conn.execute("SELECT space, memories FROM hub_space_counts")}


def conflicts(conn: apsw.Connection) -> int:
    """How many memories are listed for review (m021's partial index holds just them)."""
    row = conn.execute("SELECT count(*) FROM hub_memories WHERE review IS NOT NULL").fetchone()
    return int(row[0]) if row else 0


def spaces_of(conn: apsw.Connection, ids: Sequence[str]) -> dict[str, str]:
    """memory id -> its space, for those of `ids` that are in one."""
    return {i: m.space for i in ids if (m := member(conn, i)) is not None}


def members_of(conn: apsw.Connection, space: str) -> list[str]:
    cur = conn.execute(
        "SELECT memory_id FROM hub_memories WHERE space = ? ORDER BY memory_id", (space,)
    )
    return [r[0] for r in cur]


# --- tombstones and edges ---------------------------------------------------------------


def tombstone(conn: apsw.Connection, memory_id: str) -> Version | None:
    row = conn.execute(
        "SELECT clock, device FROM hub_tombstones WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    return (int(row[0]), str(row[1])) if row else None


def bury(conn: apsw.Connection, memory_id: str, space: str, version: Version) -> None:
    """Keep the highest tombstone: every replica ends with the same row."""
    conn.execute(
        "INSERT INTO hub_tombstones (memory_id, space, clock, device) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (memory_id) DO UPDATE SET clock = excluded.clock, device = excluded.device"
        " WHERE (excluded.clock, excluded.device) > (hub_tombstones.clock, hub_tombstones.device)",
        (memory_id, space, version[0], version[1]),
    )


def edge(conn: apsw.Connection, source: str, target: str, kind: str) -> tuple[Version, bool] | None:
    row = conn.execute(
        "SELECT clock, device, present FROM hub_edges WHERE source = ? AND target = ? AND kind = ?",
        (source, target, kind),
    ).fetchone()
    return ((int(row[0]), str(row[1])), bool(row[2])) if row else None


def set_edge(
    conn: apsw.Connection, source: str, target: str, kind: str, version: Version, present: bool
) -> None:
    conn.execute(
        "INSERT INTO hub_edges (source, target, kind, clock, device, present) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (source, target, kind) DO UPDATE SET "
        "clock = excluded.clock, device = excluded.device, present = excluded.present",
        (source, target, kind, version[0], version[1], int(present)),
    )


def with_edges(conn: apsw.Connection, memory_ids: Sequence[str]) -> set[str]:
    """Which of `memory_ids` have an edge in force at an end (edges_present not empty):
    one query for a slice of new memories, where asking each was one a memory."""
    found: set[str] = set()
    for chunk, marks in in_lists(memory_ids):
        cur = conn.execute(
            f"SELECT source FROM hub_edges WHERE present = 1 AND source IN ({marks}) UNION "
            f"SELECT target FROM hub_edges WHERE present = 1 AND target IN ({marks})",
            chunk + chunk,
        )
        found.update(str(r[0]) for r in cur)
    return found


def edges_present(conn: apsw.Connection, memory_id: str) -> list[tuple[str, str, str]]:
    """(source, target, kind) of the edges in force with `memory_id` at an end."""
    cur = conn.execute(
        "SELECT source, target, kind FROM hub_edges WHERE present = 1 AND "
        "(source = ? OR target = ?)",
        (memory_id, memory_id),
    )
    return [(a, b, c) for a, b, c in cur]


# --- the outbox and what was applied ----------------------------------------------------

# A change's columns in the order of hub/change.py's Change fields: the service hands a
# change over as msgspec.structs.astuple(change) and builds it back as Change(*row) (this
# tier does not import the hub's contract).
_CHANGE = "change_id, space, memory_id, clock, device, kind, body, vector, model_id"
ChangeRow = tuple[str, str, str, int, str, str, bytes, bytes | None, str]


def append(conn: apsw.Connection, change: Sequence[Any]) -> None:
    """On the transaction of the change it records; also marks it applied here, so it is
    skipped when the pull brings it back."""
    conn.execute(f"INSERT INTO hub_outbox ({_CHANGE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", change)
    mark_applied(conn, str(change[0]), None, str(change[1]))


def pending(conn: apsw.Connection, limit: int) -> list[tuple[int, ChangeRow]]:
    """The outbox's oldest changes, in the order they were made: (outbox seq, the change)."""
    cur = conn.execute(f"SELECT seq, {_CHANGE} FROM hub_outbox ORDER BY seq LIMIT ?", (limit,))
    return [
        (
            int(r[0]),
            (
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                bytes(r[7]),
                None if r[8] is None else bytes(r[8]),
                r[9],
            ),
        )
        for r in cur
    ]


def pushed(conn: apsw.Connection, upto: int) -> None:
    """The changes up to outbox seq `upto` are committed on the hub."""
    conn.execute("DELETE FROM hub_outbox WHERE seq <= ?", (upto,))


def depth(conn: apsw.Connection) -> int:
    """Changes in the outbox: kept by m022's triggers (a count(*) read every page)."""
    row = conn.execute("SELECT n FROM hub_outbox_depth").fetchone()
    return int(row[0]) if row else 0


def applied(conn: apsw.Connection, change_id: str) -> bool:
    row = conn.execute("SELECT 1 FROM hub_applied WHERE change_id = ?", (change_id,)).fetchone()
    return row is not None


def applied_of(conn: apsw.Connection, ids: Sequence[str]) -> set[str]:
    return present(conn, "hub_applied", "change_id", ids)


_MARK_APPLIED = (
    "INSERT INTO hub_applied (change_id, seq, space) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
)


def mark_applied(
    conn: apsw.Connection, change_id: str, seq: int | None = None, space: str | None = None
) -> None:
    """`seq`: the hub log position it was applied from (None: made here, not back yet)."""
    conn.execute(_MARK_APPLIED, (change_id, seq, space))


def mark_applied_many(conn: apsw.Connection, applied: Sequence[tuple[str, int, str]]) -> None:
    """`mark_applied` of many (change id, seq, space), one statement."""
    conn.executemany(_MARK_APPLIED, applied)


def seen_at(conn: apsw.Connection, change_id: str, seq: int) -> None:
    """A change made here came back from the hub at `seq`: from now on it can be pruned."""
    conn.execute(
        "UPDATE hub_applied SET seq = ? WHERE change_id = ? AND seq IS NULL", (seq, change_id)
    )


PRUNED = "pruned:"  # + a space: its applied ids at or below this log position are pruned


def pruned(conn: apsw.Connection, space: str) -> int:
    return int(get(conn, PRUNED + space) or 0)


def prune_applied(conn: apsw.Connection, space: str, upto: int) -> int:
    """Forget the ids of `space`'s changes applied from log positions <= `upto`, and
    remember the position (a row at or below it is known applied); how many went."""
    conn.execute("DELETE FROM hub_applied WHERE space = ? AND seq <= ?", (space, upto))
    gone = conn.changes()
    if upto > pruned(conn, space):
        put(conn, PRUNED + space, str(upto))
    return gone


def forget_positions(conn: apsw.Connection) -> None:
    """Another hub: its log's positions are not the last one's. Nothing pruned is known
    by position any more, and nothing applied is pruned until seen in the new log."""
    conn.execute("DELETE FROM hub_state WHERE key LIKE ?", (PRUNED + "%",))
    conn.execute("UPDATE hub_applied SET seq = NULL")
    drop_backlog(conn)
    # A catch-up's spans are the last log's positions too: fixed anew from the new cursor.
    # (GLOB: LIKE would read the prefix's "_" as any character)
    conn.execute("DELETE FROM hub_state WHERE key GLOB ?", (CATCHUP_SPANS + "*",))


def prune_conflicts(conn: apsw.Connection) -> int:
    """The versions kept of conflicts that were settled (the memory no longer listed for
    review, or gone): nothing reads them any more."""
    conn.execute(
        "DELETE FROM hub_conflicts WHERE memory_id NOT IN "
        "(SELECT memory_id FROM hub_memories WHERE review IS NOT NULL)"
    )
    return conn.changes()

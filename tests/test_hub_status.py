"""`hub status` at any size (issue 28): what it reads of the store is one row per space,
not a join of every memory (m021's hub_space_counts, kept by triggers), and what it
counts is what a full recount of the store gives after every kind of change. In this
process on a real engine (real SQLite + sqlite-vec, the real model); the pulled rows are
made here, as in test_hub_sync.py (the real hub's side: test_hub_replica.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import msgspec
import pytest

from conftest import raw_db
from enyal_daemon.hub.change import Change, Pulled
from enyal_daemon.service.core.engine import Engine
from enyal_daemon.service.hub import body, converge, membership
from enyal_daemon.service.hub.replica import replica_of
from enyal_daemon.service.memory import memories
from enyal_daemon.service.rules.clock import SetClock
from enyal_daemon.store import cjk, migrations
from enyal_daemon.store import hub as rows
from enyal_protocol import wire as p
from test_hub_sync import STATE as SYNC_STATE

SPACE = "big"
OTHER = "small"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DEVICE = "e" * 32
STATE = msgspec.structs.replace(SYNC_STATE, tags=["status"])  # a put's state, as the sync's
SMALL, LARGE = 60, 600  # memories of the space at the two sizes the call is costed at


def recount(conn: apsw.Connection) -> dict[str, int]:
    """The count `hub status` reports, from scratch: a space's members stored here."""
    cur = conn.execute(
        "SELECT m.space, count(*) FROM hub_memories m JOIN context_entries e "
        "ON e.id = m.memory_id GROUP BY m.space"
    )
    return {s: n for s, n in cur}


def reported(e: Engine) -> dict[str, int]:
    st = membership.status(e, p.HubStatusParams())
    return {s.space: s.memories for s in st.spaces if s.memories}


@pytest.fixture
def engine(tmp_path: Path, embedder: Any) -> Iterator[Engine]:
    e = Engine(tmp_path / "status.db", embedder, clock=SetClock(NOW))
    for space in (SPACE, OTHER):
        e.write(lambda tx, s=space: rows.join(tx.conn, s, NOW.isoformat()))
    yield e
    replica_of(e).stop()
    e.close()


class Log:
    """Another replica's changes as the hub hands them over, numbered in order; one real
    vector carried for all (our model's id: nothing is embedded on arrival)."""

    def __init__(self, e: Engine) -> None:
        self.e = e
        self.seq = 0
        self.vector = e.embed_many(["a note about the staging database"])[0].astype("<f4")

    def change(self, memory_id: str, kind: str, payload: bytes, space: str = SPACE) -> Change:
        self.seq += 1
        return Change(
            uuid.uuid4().hex,
            space,
            memory_id,
            self.seq,
            DEVICE,
            kind,
            payload,
            self.vector.tobytes() if kind == body.PUT else None,
            self.e.embedder.files.model_id,
        )

    def put(self, memory_id: str, text: str, space: str = SPACE) -> Change:
        state = msgspec.structs.replace(STATE, content=text)
        return self.change(
            memory_id, body.PUT, body.encode(body.Put(state=state, based=(0, ""))), space
        )

    def apply(self, changes: list[Change]) -> None:
        first = self.seq - len(changes) + 1
        pulled = [Pulled(first + i, c) for i, c in enumerate(changes)]
        problems = converge.apply_pulled(self.e, replica_of(self.e).capture, pulled)
        assert not problems, problems

    def sync(self, n: int, space: str = SPACE) -> list[str]:
        ids = [str(uuid.uuid4()) for _ in range(n)]
        self.apply(
            [
                self.put(i, f"note {i[:8]}: the staging database, port {k}.", space)
                for k, i in enumerate(ids)
            ]
        )
        return ids


def cost(e: Engine) -> tuple[int, int]:
    """(VM steps, pages asked of the page cache) of one `hub status` and one listing of
    the memories to review (what `doctor`, `review` and the web view read of the hub),
    on this thread's reader: both count work, not time, so a loaded machine moves
    neither. Pages catch what steps do not (a bare count(*) is one step however large)."""
    conn = e.reader()
    steps: list[int] = []
    conn.trace_v2(
        apsw.SQLITE_TRACE_PROFILE,
        lambda d: steps.append(d["stmt_status"]["SQLITE_STMTSTATUS_VM_STEP"]),
    )

    def pages() -> int:
        hit = conn.status(apsw.SQLITE_DBSTATUS_CACHE_HIT)[0]
        return hit + conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS)[0]

    try:
        membership.status(e, p.HubStatusParams())  # prepared and cached: the second is read
        membership.problems(e, 100)
        steps.clear()
        before = pages()
        membership.status(e, p.HubStatusParams())
        membership.problems(e, 100)
        return sum(steps), pages() - before
    finally:
        conn.trace_v2(0, None)


def test_hub_status_reads_as_much_of_the_store_at_ten_times_the_memories(engine: Engine) -> None:
    log = Log(engine)
    log.sync(SMALL)
    small = cost(engine)
    log.sync(LARGE - SMALL)
    assert reported(engine) == {SPACE: LARGE}
    large = cost(engine)
    # The join it replaced read every member: 10x the memories, ~10x the steps and pages.
    assert large == small, f"steps and pages at {SMALL}: {small}, at {LARGE}: {large}"


def _outbox(e: Engine, log: Log, n: int) -> None:
    """`n` local changes not yet pushed, each appended as the capture appends one (its
    vector carried: rows of ~2 KB, what a store offline for a while keeps)."""

    def job(tx: Any) -> None:
        for _ in range(n):
            memory_id = str(uuid.uuid4())
            rows.append(tx.conn, msgspec.structs.astuple(log.put(memory_id, f"note {memory_id}")))

    e.write(job)


def outbox_recount(conn: apsw.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM hub_outbox").fetchone()[0])


def test_hub_status_reads_as_much_of_the_store_at_ten_times_the_outbox(engine: Engine) -> None:
    log = Log(engine)
    _outbox(engine, log, SMALL)
    small = cost(engine)
    _outbox(engine, log, LARGE - SMALL)
    assert membership.status(engine, p.HubStatusParams()).outbox == LARGE
    large = cost(engine)
    # count(*) of the outbox read each of its pages: ~10x the outbox, ~10x the pages.
    assert large == small, f"steps and pages at {SMALL}: {small}, at {LARGE}: {large}"
    # Pushed (deleted up to a position), and once more: the depth follows.
    conn = engine.reader()
    upto = rows.pending(conn, 100)[-1][0]
    engine.write(lambda tx: rows.pushed(tx.conn, upto))
    assert rows.depth(conn) == outbox_recount(conn) == LARGE - 100
    engine.write(lambda tx: rows.pushed(tx.conn, upto + LARGE))
    assert rows.depth(conn) == outbox_recount(conn) == 0


def test_the_counts_equal_a_full_recount_after_every_kind_of_change(engine: Engine) -> None:
    log = Log(engine)
    ids = log.sync(70)  # a sync: more than a slice, its new memories written together
    others = log.sync(3, OTHER)
    conn = engine.reader()
    assert reported(engine) == recount(conn) == {SPACE: 70, OTHER: 3}

    local = memories.remember(
        engine, p.RememberParams(content="Deploys go out on Tuesdays.", scope="global", space=SPACE)
    ).id
    memories.remember(engine, p.RememberParams(content="Not shared.", scope="global"))
    assert reported(engine) == recount(conn) == {SPACE: 71, OTHER: 3}

    memories.forget(engine, p.ForgetParams(id=ids[0]))  # forgotten, still stored
    assert reported(engine) == recount(conn) == {SPACE: 71, OTHER: 3}

    memories.forget(engine, p.ForgetParams(id=local, hard=True))
    memories.forget(engine, p.ForgetParams(id=ids[1], hard=True))
    assert reported(engine) == recount(conn) == {SPACE: 69, OTHER: 3}

    # A hard delete made on another replica, a put of a memory already here, and a put
    # of one deleted here for good (the tombstone wins: nothing comes back).
    log.apply(
        [
            log.change(others[0], body.DELETE, b"{}", OTHER),
            log.put(ids[2], "note: the staging database moved."),
            log.put(ids[1], "a late edit of a deleted memory"),
        ]
    )
    assert reported(engine) == recount(conn) == {SPACE: 69, OTHER: 2}

    # A new memory named twice in one batch is applied change by change, not with the
    # batch's new ones: its membership first, its entry after.
    twice = str(uuid.uuid4())
    log.apply([log.put(twice, "note: first words."), log.put(twice, "note: second words.")])
    assert reported(engine) == recount(conn) == {SPACE: 70, OTHER: 2}

    # A memory shared after it was stored (the entry first, its membership after).
    kept = memories.remember(engine, p.RememberParams(content="Lint before push.", scope="global"))
    membership.share(engine, p.ShareParams(id=kept.id, space=OTHER))
    assert reported(engine) == recount(conn) == {SPACE: 70, OTHER: 3}

    # No verb moves a memory to another space (the others hold it where it was); were a
    # row moved, its count would follow.
    move = "UPDATE hub_memories SET space = ? WHERE memory_id = ?"
    engine.write(lambda tx: tx.conn.execute(move, (OTHER, ids[3])))
    assert reported(engine) == recount(conn) == {SPACE: 69, OTHER: 4}


def test_m021_counts_a_store_an_older_release_left(tmp_path: Path, embedder: Any) -> None:
    e = Engine(tmp_path / "old.db", embedder, clock=SetClock(NOW))
    e.write(lambda tx: rows.join(tx.conn, SPACE, NOW.isoformat()))
    Log(e).sync(5)
    replica_of(e).stop()
    e.close()
    conn = raw_db(tmp_path / "old.db")
    cjk.register(conn)
    conn.execute("DROP TABLE hub_space_counts")  # as the release before m021 left it
    for kind, name in conn.execute(  # (m022's too: the migrations from m021 on run again)
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') "
        "AND name GLOB 'hub_*'"
    ).fetchall():
        conn.execute(f"DROP {kind.upper()} {name}")
    at = migrations.MIGRATIONS.index(migrations.m021_hub_space_counts)
    conn.execute("DELETE FROM schema_version WHERE version > ?", (at,))
    migrations.migrate(conn)
    assert rows.space_counts(conn) == recount(conn) == {SPACE: 5}
    conn.close()


def test_m022_counts_the_outbox_an_older_release_left(tmp_path: Path, embedder: Any) -> None:
    e = Engine(tmp_path / "old.db", embedder, clock=SetClock(NOW))
    _outbox(e, Log(e), 7)
    replica_of(e).stop()
    e.close()
    conn = raw_db(tmp_path / "old.db")
    cjk.register(conn)
    conn.execute("DROP TABLE hub_outbox_depth")  # as the release before m022 left it
    for trigger in ("hub_outbox_depth_in", "hub_outbox_depth_out"):
        conn.execute(f"DROP TRIGGER {trigger}")
    at = migrations.MIGRATIONS.index(migrations.m022_hub_outbox_depth)
    conn.execute("DELETE FROM schema_version WHERE version > ?", (at,))
    migrations.migrate(conn)
    assert rows.depth(conn) == outbox_recount(conn) == 7
    conn.close()


def test_m027_joins_the_spaces_a_store_holds_from_before(tmp_path: Path, embedder: Any) -> None:
    """A release before m027 applied every space its role reads, joined here or not: a
    store that holds such a space's memories (or only its tombstones) joins it, so its
    later changes still reach them; a space joined already keeps its time of joining."""
    e = Engine(tmp_path / "old.db", embedder, clock=SetClock(NOW))
    for space in (SPACE, OTHER):
        e.write(lambda tx, s=space: rows.join(tx.conn, s, NOW.isoformat()))
    log = Log(e)
    log.sync(3)
    gone = log.sync(1, OTHER)
    log.apply([log.change(gone[0], body.DELETE, b"{}", OTHER)])  # OTHER: a tombstone alone
    replica_of(e).stop()
    e.close()
    conn = raw_db(tmp_path / "old.db")
    cjk.register(conn)
    conn.execute("DELETE FROM hub_spaces WHERE space = ?", (OTHER,))  # never joined here
    conn.execute("INSERT INTO hub_spaces VALUES ('empty', 'then')")  # joined, nothing yet
    at = migrations.MIGRATIONS.index(migrations.m027_hub_spaces_held)
    conn.execute("DELETE FROM schema_version WHERE version > ?", (at,))
    migrations.migrate(conn)
    assert rows.spaces(conn) == sorted([SPACE, OTHER, "empty"])
    joined = dict(conn.execute("SELECT space, joined_at FROM hub_spaces").fetchall())
    assert joined[SPACE] == NOW.isoformat() and joined["empty"] == "then"
    conn.close()

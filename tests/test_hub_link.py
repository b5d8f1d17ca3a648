"""PgLink against a real PostgreSQL (one throwaway cluster for the module, tests/conftest.py
`pg_hub`): the schema's migrations, push and pull, LISTEN, row security as a member
sees it through raw SQL, malformed rows, and a hub that goes away and comes back."""

from __future__ import annotations

import socket
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import msgspec
import numpy as np
import psycopg
import pytest

from conftest import wait_for
from enyal_daemon.errors import HubUnavailable
from enyal_daemon.hub import schema
from enyal_daemon.hub.change import Change, Pulled, Rejected
from enyal_daemon.hub.link import PgLink, redacted, url_has_password
from enyal_daemon.hub.wake import Wake

DIM = 384
LOG = f"{schema.SCHEMA}.log"


def change(space: str, n: int, *, vector: bool = True, change_id: str | None = None) -> Change:
    vec = np.random.default_rng(n).standard_normal(DIM).astype("<f4").tobytes()
    return Change(
        change_id=change_id or uuid.uuid4().hex, space=space, memory_id=f"m{n}", clock=n,
        device="dev-a", kind="remember", body=b'{"content": "note %d"}' % n,
        vector=vec if vector else None, model_id="all-MiniLM-L6-v2",
    )  # fmt: skip


@pytest.fixture(scope="module")
def hub(pg_hub: Any) -> Any:
    """The cluster with the schema made by its owner role, as `enyal hub init` would."""
    owner = PgLink(pg_hub.url("enyal_hub"))
    assert owner.init_schema() == schema.VERSION
    owner.close()
    return pg_hub


@pytest.fixture
def links(hub: Any) -> Iterator[dict[str, PgLink]]:
    made = {role: PgLink(hub.url(role)) for role in ("alice", "bob", "carol")}
    yield made
    for link in made.values():
        link.close()


def space_name() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def shared_by_alice_and_bob(links: dict[str, PgLink]) -> str:
    """A new space alice made and invited bob into, both members."""
    space = space_name()
    links["alice"].join(space)
    links["alice"].invite(space, "bob")
    links["bob"].join(space)
    return space


def pulled(items: list[Pulled | Rejected]) -> list[Change]:
    assert all(isinstance(i, Pulled) for i in items), items
    return [i.change for i in items if isinstance(i, Pulled)]


def raw(hub: Any, role: str) -> psycopg.Connection[Any]:
    """A member's own psycopg session, as a member could open one outside Enyal."""
    return psycopg.connect(hub.url(role), autocommit=True)


# -- the schema ----------------------------------------------------------------------


def test_init_schema_is_idempotent_and_two_machines_may_run_it_at_once(pg_hub: Any) -> None:
    pg_hub.new_database("concurrent")
    urls = [pg_hub.url("enyal_hub", database="concurrent")] * 2
    start = threading.Barrier(2)
    results: list[int | BaseException] = []

    def init(url: str) -> None:
        link = PgLink(url)
        start.wait()
        try:
            results.append(link.init_schema())
        except BaseException as e:
            results.append(e)
        finally:
            link.close()

    threads = [threading.Thread(target=init, args=(u,)) for u in urls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [schema.VERSION, schema.VERSION]
    # Again, and by a member (who may not create anything): nothing to do, the version.
    for role in ("enyal_hub", "alice"):
        with closing(PgLink(pg_hub.url(role, database="concurrent"))) as link:
            assert link.init_schema() == schema.VERSION
    with pg_hub.admin("concurrent") as conn:
        rows = conn.execute(f"SELECT version FROM {schema.SCHEMA}.schema_version").fetchall()
    assert rows == [(schema.VERSION,)]


def test_a_member_cannot_create_the_schema_and_is_told_who_can(pg_hub: Any) -> None:
    pg_hub.new_database("unmade")
    with (
        pytest.raises(HubUnavailable, match=r"role alice .*enyal hub init.* owner role"),
        closing(PgLink(pg_hub.url("alice", database="unmade"))) as link,
    ):
        link.init_schema()
    with pg_hub.admin("unmade") as conn:
        assert conn.execute("SELECT to_regnamespace('enyal_hub')").fetchone() == (None,)


# -- push and pull -------------------------------------------------------------------


def test_push_pull_round_trip_carries_vectors_and_is_idempotent_by_change_id(
    links: dict[str, PgLink],
) -> None:
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    with closing(PgLink(links["bob"].url)) as bobs_laptop:  # the same role, another machine
        bobs_laptop.join(space)
        alice.join(space)
    sent = [change(space, 1), change(space, 2, vector=False), change(space, 3)]
    before = bob.head()
    alice.push(sent)
    alice.push(sent[:2])  # a retried push: already there, skipped
    alice.push([sent[2], sent[2]])  # the same change twice in one batch: once
    got = pulled(bob.pull(before, 100, space=space))
    assert got == sent
    assert np.array_equal(
        np.frombuffer(got[0].vector or b"", "<f4"), np.frombuffer(sent[0].vector or b"", "<f4")
    )
    assert bob.head() >= before + 3
    assert space in bob.spaces() and space in alice.spaces()


def test_a_pulled_rows_text_columns_come_back_exactly_as_pushed(links: dict[str, PgLink]) -> None:
    """A pull reads the text and number columns as one JSON array a row (hub/link.py
    _PACKED): quotes, backslashes, escapes spelled out, non-ASCII and a clock at the top
    of its range arrive as they were pushed, by the space's pull and the log's."""
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    odd = msgspec.structs.replace(
        change(space, 7),
        memory_id='m "quoted" \\ back\\slash \\u0041 ✓ 名前 😀',
        device="dév-ü/𝔡",
        clock=2**63 - 1,
        model_id='model "x" \\n',
    )
    sent = [odd, change(space, 8, vector=False)]
    before = bob.head()
    alice.push(sent)
    assert pulled(bob.pull(before, 10, space=space)) == sent
    assert [c for c in pulled(bob.pull(before, 10)) if c.space == space] == sent


def test_pull_pages_in_seq_order_from_the_cursor_and_by_space(links: dict[str, PgLink]) -> None:
    alice = links["alice"]
    one, two = space_name(), space_name()
    alice.join(one)
    alice.join(two)
    start = alice.head()
    sent = [change(one if n % 3 else two, n) for n in range(10)]
    for batch in (sent[:3], sent[3:4], sent[4:]):
        alice.push(batch)
    seen: list[Pulled] = []
    cursor = start
    while page := alice.pull(cursor, 4):
        assert len(page) <= 4
        seen += [p for p in page if isinstance(p, Pulled)]
        cursor = page[-1].seq
    seqs = [p.seq for p in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [p.change for p in seen] == sent
    assert pulled(alice.pull(start, 100, space=two)) == [c for c in sent if c.space == two]
    assert alice.head() == seqs[-1]


def log_rows_read(hub: Any) -> tuple[int, int]:
    """(scans, rows read) of the log's table and indexes so far, by every backend whose
    statistics reached shared memory (a backend's at the latest when it exits)."""
    with hub.admin() as conn:
        row = conn.execute(
            "SELECT coalesce(sum(i.idx_scan), 0) + max(t.seq_scan), "
            "coalesce(sum(i.idx_tup_read), 0) + max(t.seq_tup_read) "
            "FROM pg_stat_user_tables t LEFT JOIN pg_stat_user_indexes i USING (relid) "
            "WHERE t.schemaname = %s AND t.relname = 'log'",
            (schema.SCHEMA,),
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_a_spaces_pull_walks_its_own_rows_from_the_position_whatever_the_statistics(
    hub: Any, links: dict[str, PgLink]
) -> None:
    """A catch-up reads its space's rows a page at a time from a position. Planned as a
    bitmap scan of all the space's rows above it and a sort (no statistics yet, as right
    after a large push), or as a walk of the whole log filtering out the other spaces
    (statistics that do not know the space's rows come last), each page read them all;
    it must read about a page's worth, fresh or analyzed alike."""
    alice = links["alice"]
    other, mine = space_name(), space_name()
    alice.join(other)
    alice.join(mine)
    for space, n in ((other, 2_000), (mine, 1_000)):
        for at in range(0, n, 500):
            alice.push([change(space, k, vector=False) for k in range(at, at + 500)])
    page = 100
    for analyzed in (False, True):
        if analyzed:
            with hub.admin() as conn:
                conn.execute(f"ANALYZE {LOG}")
        before = log_rows_read(hub)
        reader = PgLink(hub.url("alice"))  # a link of its own: its statistics flush as it closes
        try:
            got = pulled(reader.pull(0, page, space=mine))
        finally:
            reader.close()
        assert [c.memory_id for c in got] == [f"m{k}" for k in range(page)]
        wait_for(lambda b=before: log_rows_read(hub)[0] > b[0], what="the pull's statistics")
        read = log_rows_read(hub)[1] - before[1]
        assert read <= 3 * page, f"{read} rows read for a page of {page} (analyzed: {analyzed})"


def test_the_pull_reads_the_rows_of_its_spaces_not_the_others_it_cannot_see(
    hub: Any, links: dict[str, PgLink]
) -> None:
    """The main pull reads after the cursor what the role may see. Walked as the log in
    seq order, row security filtering out the rest, a member at the head read every row of
    the spaces it is not in that came after it (a team's other spaces: most of the log);
    it must read about what it gets, whatever else was pushed meanwhile."""
    alice, bob = links["alice"], links["bob"]
    mine = shared_by_alice_and_bob(links)
    other = space_name()  # alice's alone
    alice.join(other)
    start = bob.head()
    for at in range(0, 2_000, 500):
        alice.push([change(other, k, vector=False) for k in range(at, at + 500)])
    sent = [change(mine, k, vector=False) for k in range(5)]
    alice.push(sent)
    before = log_rows_read(hub)
    reader = PgLink(hub.url("bob"))  # a link of its own: its statistics flush as it closes
    try:
        got = pulled(reader.pull(start, 100))
    finally:
        reader.close()
    assert got == sent
    wait_for(lambda: log_rows_read(hub)[0] > before[0], what="the pull's statistics")
    read = log_rows_read(hub)[1] - before[1]
    assert read <= 3 * len(sent), f"{read} rows read for the {len(sent)} of bob's spaces"


def test_appends_become_visible_in_seq_order(hub: Any, links: dict[str, PgLink]) -> None:
    """A slow transaction holding a low seq must not let a later, higher seq be seen
    first: the puller's cursor would pass the low one for ever."""
    bob = links["bob"]
    space = shared_by_alice_and_bob(links)
    start = bob.head()
    slow = psycopg.connect(hub.url("alice"))  # a transaction left open mid-push
    first, second = change(space, 1), change(space, 2)
    slow.execute(
        f"INSERT INTO {LOG} (change_id, space, memory_id, clock, device, kind, body, "
        "vector, model_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (first.change_id, space, first.memory_id, first.clock, first.device, first.kind,
         first.body, first.vector, first.model_id),
    )  # fmt: skip
    pusher = threading.Thread(target=bob.push, args=([second],))
    pusher.start()
    with hub.admin() as admin:
        waiting = (
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE usename = 'bob' AND wait_event_type = 'Lock'"
        )
        deadline = time.monotonic() + 10
        while admin.execute(waiting).fetchone() != (1,):
            assert time.monotonic() < deadline, "bob's push never waited for alice's"
            assert pusher.is_alive()
    with closing(PgLink(hub.url("bob"))) as puller:  # bob's link is busy pushing
        assert puller.pull(start, 10) == []  # neither is visible yet
        slow.commit()
        slow.close()
        pusher.join()
        assert pulled(puller.pull(start, 10)) == [first, second]


# -- LISTEN/NOTIFY -------------------------------------------------------------------


def test_a_push_wakes_another_roles_wait_within_a_second(links: dict[str, PgLink]) -> None:
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    # The first wait listens and answers at once: what came before it is to be pulled.
    assert bob.wait(5) is True
    assert bob.wait(0.05) is False
    woke: list[float] = []
    waiter = threading.Thread(
        target=lambda: woke.append(time.monotonic()) if bob.wait(10) else None
    )
    waiter.start()
    pushed = time.monotonic()
    alice.push([change(space, 1)])
    waiter.join()
    assert woke and woke[0] - pushed < 1.0


def test_a_wake_set_before_a_wait_is_seen_and_once_closed_ignores_set() -> None:
    wake = Wake()
    assert not wake.is_set() and not wake.wait(0.01)
    for _ in range(70_000):  # more than a pipe holds (64 KiB): still set, never blocking a writer
        wake.set()
    assert wake.wait(0) and wake.is_set()
    wake.clear()
    assert not wake.is_set()
    wake.close()
    wake.set()  # a writer's commit after the worker stopped: nothing written, no error
    wake.clear()
    wake.close()


def test_a_wait_with_a_wake_ends_at_the_wake_or_the_push_whichever_comes_first(
    hub: Any, links: dict[str, PgLink]
) -> None:
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    wake = Wake()
    try:
        assert bob.wait(5, wake) is True  # listening
        ended: list[tuple[bool | HubUnavailable, float]] = []

        def wait() -> None:
            try:
                ended.append((bob.wait(30, wake), time.monotonic()))
            except HubUnavailable as e:
                ended.append((e, time.monotonic()))

        def waiting() -> threading.Thread:
            t = threading.Thread(target=wait)
            t.start()
            return t

        waiter = waiting()  # a local write's wake: False (nothing announced), at once
        began = time.monotonic()
        wake.set()
        waiter.join(10)
        assert ended[-1][0] is False and ended[-1][1] - began < 1.0
        wake.clear()
        waiter = waiting()  # the hub's announcement: True, the wake untouched
        began = time.monotonic()
        alice.push([change(space, 1)])
        waiter.join(10)
        assert ended[-1][0] is True and ended[-1][1] - began < 1.0 and not wake.is_set()
        assert bob.wait(0.05, wake) is False  # the burst was one wake-up
        waiter = waiting()
        with hub.down():  # the hub gone: the wait ends, it does not sit out its 30 s
            waiter.join(10)
            assert not waiter.is_alive()
        assert isinstance(ended[-1][0], HubUnavailable)
    finally:
        wake.close()


# -- row security, as a member sees it through raw SQL -------------------------------


def test_row_security_keeps_a_member_to_its_own_spaces(hub: Any, links: dict[str, PgLink]) -> None:
    alice, bob = links["alice"], links["bob"]
    private = space_name()
    alice.join(private)
    secret = change(private, 1)
    alice.push([secret])
    mine = space_name()
    bob.join(mine)
    bob.push([change(mine, 2)])
    as_bob = raw(hub, "bob")
    try:
        seen = as_bob.execute(f"SELECT DISTINCT space FROM {LOG}").fetchall()
        assert (private,) not in seen and (mine,) in seen
        assert as_bob.execute(f"SELECT count(*) FROM {LOG} WHERE space = %s", (private,)
                              ).fetchone() == (0,)  # fmt: skip
        insert = (
            f"INSERT INTO {LOG} (change_id, space, memory_id, clock, device, kind, body, "
            "model_id{author}) VALUES (%s, %s, 'm', 1, 'd', 'remember', '\\x7b7d', 'x'{val})"
        )
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            as_bob.execute(insert.format(author="", val=""), (uuid.uuid4().hex, private))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            as_bob.execute(
                insert.format(author=", author", val=", 'alice'"), (uuid.uuid4().hex, mine)
            )
        for statement in (
            f"UPDATE {LOG} SET body = '\\x7b7d'",
            f"DELETE FROM {LOG}",
            f"TRUNCATE {LOG}",
            f"UPDATE {schema.SCHEMA}.members SET role = 'bob'",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                as_bob.execute(statement)
        # Nor can he make himself a member of alice's space, or invite himself into it.
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            as_bob.execute(
                f"INSERT INTO {schema.SCHEMA}.members (space, role) VALUES (%s, 'bob')",
                (private,),
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            as_bob.execute(
                f"INSERT INTO {schema.SCHEMA}.invites (space, role) VALUES (%s, 'bob')",
                (private,),
            )
    finally:
        as_bob.close()
    with pytest.raises(HubUnavailable, match="not invited"):
        bob.join(private)
    with pytest.raises(HubUnavailable, match="only a member"):
        bob.invite(private, "carol")
    with pytest.raises(HubUnavailable, match="not a member"):
        bob.push([change(private, 3)])
    assert bob.pull(0, 10_000, space=private) == []
    # The owner is no member: FORCEd row security keeps the log from it too.
    with closing(raw(hub, "enyal_hub")) as as_owner:
        assert as_owner.execute(f"SELECT count(*) FROM {LOG}").fetchone() == (0,)
    # What alice wrote is there, once, unchanged, in her name.
    with hub.admin() as admin:
        rows = admin.execute(
            f"SELECT change_id, body, author FROM {LOG} WHERE space = %s", (private,)
        ).fetchall()
    assert rows == [(secret.change_id, secret.body, "alice")]


# -- malformed rows ------------------------------------------------------------------


def test_malformed_rows_come_back_rejected_and_the_rest_still_arrive(
    hub: Any, links: dict[str, PgLink]
) -> None:
    alice = links["alice"]
    space = space_name()
    alice.join(space)
    start = alice.head()
    good = [change(space, n) for n in range(3)]
    bad: dict[str, tuple[Any, ...]] = {
        "body is not JSON": (uuid.uuid4().hex, "remember", b"{not json", b"\0" * 8),
        "not a JSON object": (uuid.uuid4().hex, "remember", b"[1, 2]", None),
        "whole float32s": (uuid.uuid4().hex, "remember", b"{}", b"\0" * 5),
        "change_id": ("not-an-id", "remember", b"{}", None),
        "kind": (uuid.uuid4().hex, "DROP TABLE", b"{}", None),
    }
    alice.push(good[:1])
    with hub.admin() as admin:  # the superuser, past row security: as a bad hand would
        for change_id, kind, body, vector in bad.values():
            admin.execute(
                f"INSERT INTO {LOG} (change_id, space, memory_id, clock, device, kind, body, "
                "vector, model_id) VALUES (%s, %s, 'm', 1, 'dev', %s, %s, %s, 'model')",
                (change_id, space, kind, body, vector),
            )
    alice.push(good[1:])
    items = alice.pull(start, 100)
    rejected = [i for i in items if isinstance(i, Rejected)]
    assert [i.change for i in items if isinstance(i, Pulled)] == good
    assert len(rejected) == len(bad)
    for reason, item in zip(bad, rejected, strict=True):
        assert reason in item.reason
    assert [i.seq for i in items] == sorted(i.seq for i in items)


# -- a hub that goes away ------------------------------------------------------------


def test_a_hub_that_goes_down_is_unavailable_at_once_and_a_link_reconnects(
    hub: Any, links: dict[str, PgLink]
) -> None:
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    assert bob.wait(1) is True  # listening
    waiting: list[BaseException | bool] = []

    def wait() -> None:
        try:
            waiting.append(bob.wait(30))
        except BaseException as e:
            waiting.append(e)

    waiter = threading.Thread(target=wait)
    waiter.start()
    with hub.down():
        began = time.monotonic()
        for call in (alice.head, lambda: alice.push([change(space, 1)]), alice.spaces):
            with pytest.raises(HubUnavailable):
                call()
        waiter.join(10)
        assert not waiter.is_alive(), "a wait outlived its hub"
        assert isinstance(waiting[0], HubUnavailable)
        with pytest.raises(HubUnavailable):
            bob.wait(5)
        assert time.monotonic() - began < 5
    # The same links, on the next call: new connections.
    sent = change(space, 2)
    start = bob.head()
    alice.push([sent])
    assert pulled(bob.pull(start, 10)) == [sent]
    assert bob.wait(1) is True  # listening again


def test_a_pull_across_a_hub_restart_loses_and_repeats_nothing(
    hub: Any, links: dict[str, PgLink]
) -> None:
    alice, bob = links["alice"], links["bob"]
    space = shared_by_alice_and_bob(links)
    start = bob.head()
    sent = [change(space, n) for n in range(30)]
    alice.push(sent[:20])
    assert bob.wait(1) is True  # listening
    first = bob.pull(start, 10)
    hub.restart()
    # Both links' connections died with the server: each call reconnects, no error.
    assert bob.wait(5) is True  # listening again: what was missed is to be pulled
    alice.push(sent[20:])
    rest: list[Pulled | Rejected] = []
    cursor = first[-1].seq
    while page := bob.pull(cursor, 7):
        rest += page
        cursor = page[-1].seq
    assert pulled(first + rest) == sent


def test_a_hub_that_never_answers_or_a_stuck_statement_gives_up_in_time(
    hub: Any, links: dict[str, PgLink]
) -> None:
    # A server that accepts the connection and then says nothing (a hung host, a
    # half-open network path): connect_timeout ends it.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        with closing(
            PgLink(f"postgresql://alice@127.0.0.1:{port}/enyal", connect_timeout=1)
        ) as link:
            began = time.monotonic()
            with pytest.raises(HubUnavailable, match="timeout"):
                link.head()
            assert time.monotonic() - began < 4
    # A push stuck behind a lock nobody releases: statement_timeout ends it, and nothing
    # of it is in the log.
    space = space_name()
    links["alice"].join(space)
    start = links["alice"].head()
    with hub.admin() as admin, closing(PgLink(hub.url("alice"), statement_timeout_ms=300)) as link:
        admin.execute("SELECT pg_advisory_lock(%s)", (schema.APPEND_LOCK,))
        began = time.monotonic()
        with pytest.raises(HubUnavailable, match="statement timeout"):
            link.push([change(space, 1)])
        assert time.monotonic() - began < 4
        admin.execute("SELECT pg_advisory_unlock(%s)", (schema.APPEND_LOCK,))
        assert link.pull(start, 10, space=space) == []


def test_a_password_not_found_says_where_the_daemon_looks_for_it(
    hub: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libpq's own words ('fe_sendauth: no password supplied') do not say where a
    password goes, and the URL must not carry one: a newcomer who exported PGPASSFILE
    in a shell after the daemon started was left there."""
    empty = tmp_path / "pgpass"
    empty.write_text("")
    empty.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(empty))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with (
        pytest.raises(HubUnavailable, match="no password supplied") as refused,
        closing(PgLink(hub.url("alice", tcp=True))) as link,
    ):
        link.head()
    said = str(refused.value)
    assert "~/.pgpass" in said and "PGPASSFILE" in said and "enyal daemon stop" in said


def test_no_password_shows_in_a_url_repr_or_error(hub: Any) -> None:
    password = hub.passwords["alice"]
    url = hub.url("alice", tcp=True).replace("alice@", f"alice:{password}@")
    assert url_has_password(url) and not url_has_password(hub.url("alice"))
    link = PgLink(url)
    try:
        assert link.spaces() is not None  # the password in the URL works
        shown = [repr(link), link.url, redacted(url)]
        with hub.down():
            with pytest.raises(HubUnavailable) as down:
                link.head()
            shown.append(str(down.value))
    finally:
        link.close()
    wrong = url.replace(password, "Wr0ngPassw0rd")
    with (
        pytest.raises(HubUnavailable, match="password authentication failed") as refused,
        closing(PgLink(wrong)) as link,
    ):
        link.head()
    shown.append(str(refused.value))
    for form in (
        f"host=127.0.0.1 user=alice password={password} dbname=enyal",
        f"postgresql://127.0.0.1/enyal?user=alice&password={password}",
    ):
        assert url_has_password(form)
        shown.append(redacted(form))
    assert not any(password in s for s in shown), shown
    assert not any("Wr0ngPassw0rd" in s for s in shown), shown
    assert all("***" in s for s in shown[:3])


def test_without_psycopg_a_link_says_what_to_install(
    hub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a mock of Enyal: the import the `hub` extra provides is made to fail, as on a
    # machine without it.
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(HubUnavailable, match=r"enyal\[hub\]"):
        PgLink(hub.url("alice"))

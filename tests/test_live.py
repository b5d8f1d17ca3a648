"""Live changes over the daemon's socket: subscribe, the `changed` notifications each
write sends after it commits, filters, unsubscribe, and a subscriber that never reads.

A raw socket client subscribes; another connection writes. Notifications are queued
before the writing request is answered (they are published on commit, the answer
goes out after), so reading them after the writes is not a race.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon_support import RawConn, RunningDaemon, error_of, frame, result_of, running
from enyal_protocol import wire as p


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("live") / "home", clocked=True) as d:
        yield d
        assert "Traceback" not in d.log.text(), d.log.text()


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    return root


class Subscriber:
    """A raw connection that subscribes and then reads notifications one by one."""

    def __init__(self, d: RunningDaemon) -> None:
        self.conn = RawConn(d.paths.socket)
        self._ids = 100

    def subscribe(self, **params: Any) -> dict[str, Any]:
        self._ids += 1
        r: dict[str, Any] = result_of(self.conn.request("subscribe", params, self._ids))
        return r

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """A request on the subscribed connection: its response, after any notification."""
        self._ids += 1
        self.conn.send(frame(method, params, self._ids))
        while True:
            msg = self.conn.read()
            if msg.get("id") == self._ids:
                return msg
            assert "method" in msg, msg

    def next(self) -> dict[str, Any]:
        msg = self.conn.read()
        assert "id" not in msg and msg["jsonrpc"] == "2.0", msg
        return msg

    def close(self) -> None:
        self.conn.close()


def kinds(msgs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["params"]["kind"], m["params"]["id"]) for m in msgs]


def test_every_kind_of_change_reaches_a_matching_subscription(
    shared: RunningDaemon, tmp_path: Path
) -> None:
    app, other = project(tmp_path, "app"), project(tmp_path, "other")
    sub = Subscriber(shared)
    s = sub.subscribe(scope="project", cwd=str(app))
    assert s["filter"] == {
        "scope": "project",
        "scope_path": str(app),
        "under": None,
        "content_types": [],
    }
    assert s["queue"] > 0
    call = shared.call

    a = call("remember", {"content": "The app deploys with Ansible", "cwd": str(app)})["id"]
    call("remember", {"content": "The other project uses Make", "cwd": str(other)})
    call("remember", {"content": "A global fact nobody scoped", "scope": "global"})
    b = call("remember", {"content": "Staging runs on one VM", "cwd": str(app)})["id"]
    call("update", {"id": a, "content": "The app deploys with Ansible 9"})
    call("confirm", {"id": a})
    call("forget", {"id": a})
    call("restore", {"id": a})
    call("link", {"source_id": a, "target_id": b, "edge_type": "relates_to"})
    call("unlink", {"source_id": a, "target_id": b, "edge_type": "relates_to"})
    c = call(
        "remember", {"content": "Staging runs on two VMs", "cwd": str(app), "supersedes": [b]}
    )["id"]
    call("forget", {"id": a, "hard": True})
    call("forget", {"id": c, "hard": True})  # its supersedes edge goes with it

    expected = [
        ("created", a),
        ("created", b),
        ("updated", a),
        ("updated", a),
        ("forgotten", a),
        ("restored", a),
        ("linked", a),
        ("linked", b),
        ("unlinked", a),
        ("unlinked", b),
        ("created", c),
        ("linked", c),
        ("superseded", b),
        ("deleted", a),
        ("unlinked", b),
        ("deleted", c),
    ]
    got = [sub.next() for _ in expected]
    assert kinds(got) == expected
    assert {m["method"] for m in got} == {p.CHANGED}
    for m in got:
        params = m["params"]
        assert params["subscription"] == s["subscription"]
        assert params["scope_level"] == "project" and params["scope_path"] == str(app)
        assert params["content_type"] == "fact" and params["at"].endswith("Z")
        assert "content" not in params  # never the memory itself
    edge_types = [m["params"].get("edge_type") for m in got]
    assert edge_types[6:10] == ["relates_to"] * 4 and edge_types[11:13] == ["supersedes"] * 2
    assert edge_types[14] == "supersedes"  # the other end of the edge a hard delete took
    # Nothing of the other project or the global scope came before this response.
    assert "result" in sub.request("status")
    sub.close()


def test_filters_keep_out_what_they_do_not_name(shared: RunningDaemon, tmp_path: Path) -> None:
    app = project(tmp_path, "app")
    src = app / "src" / "db.py"
    sub = Subscriber(shared)
    decisions = sub.subscribe(under=str(app), content_types=["decision"])["subscription"]
    files = sub.subscribe(scope="file", scope_path="src/db.py", cwd=str(app))["subscription"]
    everything = sub.subscribe()["subscription"]
    any_file = sub.subscribe(scope="file")["subscription"]  # file alone: every file's

    call = shared.call
    fact_p = call("remember", {"content": "Project fact", "cwd": str(app)})["id"]
    dec_f = call(
        "remember",
        {
            "content": "Decided: the db module owns migrations",
            "content_type": "decision",
            "scope": "file",
            "scope_path": str(src),
        },
    )["id"]
    dec_g = call(
        "remember", {"content": "Decided globally", "content_type": "decision", "scope": "global"}
    )["id"]

    seen: dict[str, list[str]] = {decisions: [], files: [], everything: [], any_file: []}
    for _ in range(6):  # everything: 3; files: 1; any file: 1; decisions under app: 1
        m = sub.next()["params"]
        seen[m["subscription"]].append(m["id"])
    assert seen == {
        everything: [fact_p, dec_f, dec_g],
        files: [dec_f],
        any_file: [dec_f],
        decisions: [dec_f],
    }

    r = result_of(sub.request("unsubscribe", {"subscription": everything}))
    assert r == {"unsubscribed": [everything]}
    fact_f = call("remember", {"content": "File fact", "scope": "file", "scope_path": str(src)})
    got = sorted([sub.next()["params"], sub.next()["params"]], key=lambda m: m["subscription"])
    assert got == sorted(
        [created(files, fact_f), created(any_file, fact_f)], key=lambda m: m["subscription"]
    )
    r = result_of(sub.request("unsubscribe"))
    assert sorted(r["unsubscribed"]) == sorted([decisions, files, any_file])
    call("remember", {"content": "Another file fact", "scope": "file", "scope_path": str(src)})
    resp = sub.request("status")  # the next frame is this answer: nothing is subscribed
    assert "result" in resp
    sub.close()


class _Timestamp:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.endswith("Z")


def created(sub_id: str, remembered: dict[str, Any]) -> dict[str, Any]:
    """The params of the `changed` notification a remember sends this subscription."""
    e = remembered["entry"]
    return {
        "subscription": sub_id,
        "kind": "created",
        "id": e["id"],
        "scope_level": e["scope_level"],
        "scope_path": e["scope_path"],
        "content_type": e["content_type"],
        "at": _Timestamp(),
    }


def test_a_subscriber_that_never_reads_does_not_hold_up_writes(
    shared: RunningDaemon, tmp_path: Path
) -> None:
    """The writer offers to a bounded queue and never waits: 1,000 imported entries and a
    remember are answered while the subscriber reads nothing. It then finds a resync
    where changes were dropped, every change accounted for, and changes flow again."""
    slow = Subscriber(shared)
    sub_id = slow.subscribe(scope="global")["subscription"]
    lines = [json.dumps({"content": f"bulk memory number {i}"}) for i in range(1000)]
    r = shared.call("import", {"lines": lines})
    assert r["stored"] == 1000
    last = shared.call("remember", {"content": "written while nobody read", "scope": "global"})
    assert last["action"] == "created"

    # Read now: changes delivered, and resyncs counting those dropped, add up to every write.
    changed, dropped, resyncs = 0, 0, 0
    while changed + dropped < 1001:
        m = slow.next()
        assert m["params"]["subscription"] == sub_id
        if m["method"] == p.RESYNC:
            resyncs += 1
            dropped += m["params"]["dropped"]
        else:
            assert m["method"] == p.CHANGED and m["params"]["kind"] == "created"
            changed += 1
    assert resyncs > 0 and dropped > 0
    after = shared.call("remember", {"content": "written once it reads again", "scope": "global"})
    m = slow.next()
    assert m["method"] == p.CHANGED and m["params"]["id"] == after["id"]
    slow.close()


def test_closing_the_connection_ends_its_subscriptions(shared: RunningDaemon) -> None:
    for _ in range(3):
        gone = Subscriber(shared)
        gone.subscribe()
        gone.close()
    r = shared.call("remember", {"content": "nobody is listening now", "scope": "global"})
    assert r["action"] == "created"
    assert shared.call("status")["pid"] == shared.proc.proc.pid


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("subscribe", {"scope": "project"}, p.INVALID_VALUE),  # which project: no cwd
        ("subscribe", {"under": "relative/dir"}, p.INVALID_VALUE),  # relative, and no cwd
        ("subscribe", {"scope": "global", "scope_path": "/x"}, p.INVALID_VALUE),
        ("subscribe", {"content_types": ["gossip"]}, p.INVALID_PARAMS),
        ("subscribe", {"types": ["fact"]}, p.INVALID_PARAMS),
        ("subscribe", [1, 2], p.INVALID_PARAMS),
        ("unsubscribe", {"subscription": "s999999"}, p.NOT_FOUND),
        ("unsubscribe", {"subscription": 7}, p.INVALID_PARAMS),
    ],
)
def test_bad_subscribe_params_are_refused(
    shared: RunningDaemon, method: str, params: Any, code: int
) -> None:
    with RawConn(shared.paths.socket) as conn:
        err = error_of(conn.request(method, params))
        assert err["code"] == code, err
        # Refused, the connection has no subscription: a write sends it nothing.
        shared.call("remember", {"content": "after a refused subscribe", "scope": "global"})
        assert "result" in conn.request("status", req_id=2)


def test_an_expired_entry_unlinks_the_other_end_of_its_edges(shared: RunningDaemon) -> None:
    """Expiry deletes for good, edges included: the entry at an edge's other end is told."""
    sub = Subscriber(shared)
    sub.subscribe(scope="global")
    call = shared.call
    kept = call("remember", {"content": "Deploys happen on Tuesdays, always.", "scope": "global"})
    soon = call(
        "remember",
        {"content": "The deploy freeze lasts until noon today.", "scope": "global", "ttl": "1h"},
    )
    call("link", {"source_id": kept["id"], "target_id": soon["id"], "edge_type": "relates_to"})
    got = [sub.next() for _ in range(4)]
    assert kinds(got) == [
        ("created", kept["id"]),
        ("created", soon["id"]),
        ("linked", kept["id"]),
        ("linked", soon["id"]),
    ]
    total = call("stats")["total"]
    # The sweep runs before any request is answered, once the hour has passed.
    shared.clock.advance(3601)  # without waiting for it
    assert call("stats")["total"] == total - 1
    got = [sub.next() for _ in range(2)]
    assert kinds(got) == [("unlinked", kept["id"]), ("deleted", soon["id"])]
    assert got[0]["params"]["edge_type"] == "relates_to"
    sub.close()


def test_a_type_change_reaches_those_watching_the_old_type(
    shared: RunningDaemon, tmp_path: Path
) -> None:
    """An entry that stops being a decision leaves a decisions-only view: its subscriber
    hears the update, with the new type and the one it had."""
    app = project(tmp_path, "app")
    sub = Subscriber(shared)
    sub.subscribe(under=str(app), content_types=["decision"])
    call = shared.call
    e = call(
        "remember", {"content": "Decided: Postgres", "content_type": "decision", "cwd": str(app)}
    )
    assert kinds([sub.next()]) == [("created", e["id"])]
    call("update", {"id": e["id"], "content_type": "fact"})
    m = sub.next()["params"]
    assert (m["kind"], m["content_type"], m["previous_type"]) == ("updated", "fact", "decision")
    call("update", {"id": e["id"], "content": "Decided: Postgres 17"})  # a fact now: not heard
    call("restore", {"id": e["id"], "version": 1})  # a decision again
    m = sub.next()["params"]
    assert (m["kind"], m["content_type"], m["previous_type"]) == ("updated", "decision", "fact")
    call("update", {"id": e["id"], "confidence": 0.9})
    m = sub.next()["params"]
    assert m["kind"] == "updated" and "previous_type" not in m  # the type did not change
    sub.close()


def test_an_indexed_files_chunks_are_live_changes(shared: RunningDaemon, tmp_path: Path) -> None:
    """`enyal index` (and the watcher, which reads through the same code) publishes its
    chunks' changes as any write does: a chunk added is created, one whose text changed
    updated, one whose section went forgotten; a subscriber of the project hears each."""
    app = project(tmp_path, "docs-app")
    doc = app / "CLAUDE.md"
    doc.write_text("# Build\n\nRun make before committing.\n\n# Test\n\nRun pytest -x.\n")
    sub = Subscriber(shared)
    sub.subscribe(under=str(app))
    first = shared.call("index", {"paths": [str(doc)]})
    assert first["chunks_added"] >= 2, first
    created = [sub.next()["params"] for _ in range(first["chunks_added"])]
    assert {m["kind"] for m in created} == {"created"}
    doc.write_text("# Build\n\nRun make all before committing.\n")  # Test's section gone
    second = shared.call("index", {"paths": [str(doc)]})
    assert (second["chunks_updated"], second["chunks_forgotten"]) == (1, 1), second
    after = {m["params"]["kind"]: m["params"] for m in (sub.next(), sub.next())}
    assert set(after) == {"updated", "forgotten"}
    assert {after["updated"]["id"], after["forgotten"]["id"]} <= {m["id"] for m in created}
    assert after["updated"]["scope_level"] == "project"
    sub.close()

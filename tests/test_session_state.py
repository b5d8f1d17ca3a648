"""The daemon's per-session memory of what a client session was shown (session_seen):
new keys once, bounded in sessions and keys, expired, reset; and bad params refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon_support import RunningDaemon
from enyal_client.transport import RpcError
from enyal_daemon.service.core.session_state import Sessions
from enyal_protocol import wire as p


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_keys_are_new_once_per_session() -> None:
    s = Sessions()
    assert s.check("a", ["m1", "m2", "m1"]) == (["m1", "m2"], [])
    assert s.check("a", ["m2", "m3"]) == (["m3"], ["m2"])
    assert s.check("b", ["m1"]) == (["m1"], [])
    assert s.check("a", ["m4"], record=False) == (["m4"], [])
    assert s.check("a", ["m4"]) == (["m4"], []), "not recorded by a look"
    assert s.check("a", [], reset=True) == ([], [])
    assert s.check("a", ["m1"]) == (["m1"], []), "forgotten by the reset"
    assert s.check("new", ["x"], record=False) == (["x"], []) and len(s) == 2


def test_bounded_and_expired() -> None:
    clock = Clock()
    s = Sessions(max_sessions=3, max_keys=4, ttl=100.0, clock=clock)
    for name in "abcd":
        s.check(name, ["k"])
    assert len(s) == 3 and s.check("a", ["k"], record=False) == (["k"], []), "LRU: a went"
    s.check("b", [f"k{i}" for i in range(6)])
    assert s.check("b", ["k", "k0", "k1", "k5"], record=False) == (["k", "k0", "k1"], ["k5"])
    clock.now = 99.0
    s.check("c", ["k"])
    clock.now = 150.0  # b and d unused for 150 s, c for 51 s
    assert s.check("c", ["k"], record=False) == ([], ["k"])
    assert len(s) == 1


def test_the_daemon_answers_and_refuses(d: RunningDaemon) -> None:
    r = d.call("session_seen", {"session_id": "s", "keys": ["a", "b"]})
    assert r == {"new": ["a", "b"], "seen": []}
    assert d.call("session_seen", {"session_id": "s", "keys": ["b", "c"]}) == {
        "new": ["c"],
        "seen": ["b"],
    }
    for bad in (
        {"session_id": "", "keys": []},
        {"session_id": "s"},
        {"session_id": "s", "keys": [""]},
        {"session_id": "s", "keys": ["x"] * 1001},
        {"session_id": "s", "keys": [], "extra": 1},
    ):
        with pytest.raises(RpcError) as exc:
            d.call("session_seen", bad)
        assert exc.value.code == p.INVALID_PARAMS, bad
    assert d.call("session_seen", {"session_id": "s", "keys": ["a"], "record": False}) == {
        "new": [],
        "seen": ["a"],
    }


def test_recall_for_a_session_shows_each_hit_once_and_refuses_bad_params(
    d: RunningDaemon, project: Path
) -> None:
    """recall's session_id and lines_about (what a hook did in a second round trip):
    a day's log cut to its lines about the words, then what the session saw left out."""
    cwd = str(project)
    d.call("remember", {"content": "The billing tests need SQLITE_TMPDIR set.", "cwd": cwd})
    for line in ("billing: invoices split in two", "docs: typo fixed", "billing reviewed again"):
        d.call("log_append", {"text": line, "cwd": cwd})
    ask = {"query": "billing tests invoices", "cwd": cwd, "lines_about": ["billing"]}
    plain = d.call("recall", {"query": "billing tests invoices", "cwd": cwd})["results"]
    first = d.call("recall", {**ask, "session_id": "r"})["results"]
    assert {h["id"] for h in first} == {h["id"] for h in plain}
    (log,) = [h for h in first if h["content_type"] == "log"]
    assert "docs: typo fixed" not in log["content"] and " / " in log["content"]
    assert "billing: invoices split in two" in log["content"]
    assert d.call("recall", {**ask, "session_id": "r"})["results"] == []  # all shown
    keys = [h["id"][:8] for h in first]  # recorded as session_seen's keys
    assert d.call("session_seen", {"session_id": "r", "keys": keys, "record": False})["new"] == []
    none = {**ask, "lines_about": ["nowhere"], "session_id": "other"}
    assert [h["content_type"] for h in d.call("recall", none)["results"]] == ["fact"]
    for bad in (
        {"session_id": ""},
        {"session_id": "x" * 257},
        {"session_id": 3},
        {"lines_about": "billing"},
        {"lines_about": [""]},
        {"lines_about": ["w"] * 1001},
    ):
        for method, extra in (("recall", {}), ("recall_by_scope", {"file_path": "/a.py"})):
            with pytest.raises(RpcError) as exc:
                d.call(method, {"query": "billing", **extra, **bad})
            assert exc.value.code == p.INVALID_PARAMS, (method, bad)
    assert d.call("session_seen", {"session_id": "x" * 256, "keys": ["k"]})["new"] == ["k"]

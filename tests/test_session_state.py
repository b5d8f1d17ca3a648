"""The daemon's per-session memory of what a client session was shown (session_seen):
new keys once, bounded in sessions and keys, expired, reset; and bad params refused."""

from __future__ import annotations

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

"""JSON-RPC 2.0 batches over a real daemon's socket: an array of requests is answered
with an array of their responses, in order, notifications left out; an array of
notifications alone gets nothing back; a bad item is answered with its own error and
the rest run. (What is refused whole, an empty or over-long or malformed array, is in
test_daemon_bad_input.py's cases, where the database is checked unchanged.)"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from daemon_support import RawConn, RunningDaemon, error_of, frame, result_of, running
from enyal_protocol import wire as p


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("batch") / "home") as d:
        yield d
        assert "Traceback" not in d.log.text(), d.log.text()


def batch(*items: bytes) -> bytes:
    return b"[" + b",".join(i.strip() for i in items) + b"]\n"


def note(method: str, params: Any) -> bytes:
    """A notification: no id, so no answer."""
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode()


def answers(conn: RawConn) -> list[dict[str, Any]]:
    line = conn.read_line()
    assert line is not None, "the daemon closed the connection instead of answering"
    got = json.loads(line)
    assert isinstance(got, list), got
    return got


def test_answers_in_order(daemon: RunningDaemon) -> None:
    with RawConn(daemon.paths.socket) as conn:
        conn.send(batch(frame("status", {}, "a"), frame("stats", {}, 2), frame("status", {}, 3)))
        got = answers(conn)
    assert [a["id"] for a in got] == ["a", 2, 3]
    assert all(a["jsonrpc"] == "2.0" for a in got)
    assert result_of(got[0])["pid"] == daemon.proc.proc.pid
    assert isinstance(result_of(got[1]), dict)


def test_runs_one_after_another(daemon: RunningDaemon) -> None:
    """A later request sees what an earlier one of the same batch wrote."""
    text = "Batches run their requests in order: the nightly job rotates the logs"
    with RawConn(daemon.paths.socket) as conn:
        conn.send(
            batch(
                frame("remember", {"content": text, "scope": "global"}, 1),
                frame("recall", {"query": "which job rotates the logs", "limit": 3}, 2),
            )
        )
        stored, found = answers(conn)
    memory_id = result_of(stored)["id"]
    assert [h["id"] for h in result_of(found)["results"]][:1] == [memory_id]


def test_bad_items_answered_alone(daemon: RunningDaemon) -> None:
    """Each bad item gets its own error (an array within the batch is one, not a batch of
    its own); a notification gets nothing; the good ones run."""
    before = daemon.call("stats", {})
    with RawConn(daemon.paths.socket) as conn:
        conn.send(
            batch(
                b"1",
                frame("nope", {}, 2),
                frame("recall", {"query": 5}, 3),
                note("status", {}),
                b"[" + frame("status", {}, 5).strip() + b"]",
                frame("forget", {"id": "no-such-memory"}, 6),
                frame("status", {}, 7),
            )
        )
        got = answers(conn)
        # The connection goes on serving after a batch.
        assert "pid" in result_of(conn.request("status", {}, 8))
    assert [a["id"] for a in got] == [None, 2, 3, None, 6, 7]
    codes = [error_of(a)["code"] for a in got[:5]]
    assert codes == [
        p.INVALID_REQUEST,
        p.METHOD_NOT_FOUND,
        p.INVALID_PARAMS,
        p.INVALID_REQUEST,
        p.NOT_FOUND,
    ]
    assert result_of(got[5])["pid"] == daemon.proc.proc.pid
    assert daemon.call("stats", {}) == before


def test_notifications_alone_get_nothing(daemon: RunningDaemon) -> None:
    """Nothing is written back for a batch of notifications (the spec: no array, not an
    empty one); they still run."""
    text = "A notification in a batch still runs: the cache is warmed at eight"
    with RawConn(daemon.paths.socket) as conn:
        conn.send(batch(note("remember", {"content": text, "scope": "global"}), note("status", {})))
        deadline = time.monotonic() + 30
        while not any(
            h["content"] == text
            for h in daemon.call("recall", {"query": "when is the cache warmed"})["results"]
        ):
            assert time.monotonic() < deadline, "the batch's remember never ran"
            time.sleep(0.05)
        time.sleep(0.2)  # (the status after it: an answer would be on its way by now)
        assert conn.request("status", {}, 9)["id"] == 9
        conn.sock.settimeout(0.5)
        with pytest.raises(TimeoutError):
            conn.read_line()

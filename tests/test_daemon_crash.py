"""Crash safety and graceful stops.

SIGKILL: a client streams writes and records each one the daemon acknowledged; the
daemon is killed mid-stream and restarted. Every acknowledged write must be there
(an acknowledgement is only sent after the commit's fsync), and the database must be
whole: integrity_check ok, and entries, vectors and FTS rows in agreement.

SIGTERM: requests already sent are answered (or refused as "shutting down"), the
process exits 0 with its WAL checkpointed and its socket file removed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import wait_for
from daemon_support import (
    RawConn,
    census,
    export_all,
    frame,
    integrity,
    isolated_env,
    running,
)
from enyal_client.transport import RpcError
from enyal_protocol import wire as p

# A client streaming writes on three connections until the daemon goes away. Prints one
# JSON line per event, numbered in the order written: "try" before a request is sent,
# "ack" once its answer is read. A write with a "try" but no "ack" may or may not have
# landed. Each line is one os.write: print() writes the text and its newline in two
# when stdout is unbuffered (PYTHONUNBUFFERED=1, as in CI), and a reader that misses the
# newline reads two events as one line.
STREAMER = r"""
import itertools, json, os, sys, threading
from enyal_client import transport
from enyal_protocol import paths

round_no = int(sys.argv[1])
lock = threading.Lock()
seq = itertools.count()

def emit(**event):
    with lock:
        os.write(1, (json.dumps({"seq": next(seq), **event}) + "\n").encode())

def stream(t):
    conn = transport.connect(paths.resolve(), autostart=False)
    mine = []
    i = 0
    try:
        while True:
            text = f"Round {round_no}, stream {t}, write {i}: keep this one"
            emit(op="try-remember", content=text)
            res = conn.call("remember", {"content": text, "scope": "global", "tags": [f"s{t}"]})
            emit(op="remember", id=res["id"], content=text)
            mine.append(res["id"])
            if t == 0 and i % 3 == 2:  # hard-delete an earlier write
                victim = mine.pop(0)
                emit(op="try-delete", id=victim)
                conn.call("forget", {"id": victim, "hard": True})
                emit(op="delete", id=victim)
            if t == 1 and i % 4 == 3:  # rewrite an earlier write
                target, new = mine.pop(0), f"Round {round_no}, stream 1, rewrite {i}"
                emit(op="try-update", id=target, content=new)
                conn.call("update", {"id": target, "content": new})
                emit(op="update", id=target, content=new)
            i += 1
    except Exception:
        pass  # the daemon was killed: stop

threads = [threading.Thread(target=stream, args=(t,)) for t in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


class Ledger:
    """What the streaming clients were told, and what is still uncertain."""

    def __init__(self) -> None:
        self.content: dict[str, str] = {}  # id -> acknowledged content
        self.deleted: set[str] = set()
        # A delete or update was sent but never answered: it may or may not have landed.
        self.maybe_deleted: set[str] = set()
        self.maybe_updated: set[str] = set()
        self.sent: set[str] = set()  # every content a client sent, answered or not
        self.acks = 0

    def apply(self, events: list[dict[str, Any]]) -> None:
        pending: dict[str, str] = {}
        for ev in events:
            op = ev["op"]
            if op in ("try-remember", "try-update"):
                self.sent.add(ev["content"])
            if op == "remember":
                self.content[ev["id"]] = ev["content"]
                self.acks += 1
            elif op in ("try-delete", "try-update"):
                pending[ev["id"]] = op
            elif op == "delete":
                pending.pop(ev["id"])
                del self.content[ev["id"]]
                self.deleted.add(ev["id"])
                self.acks += 1
            elif op == "update":
                pending.pop(ev["id"])
                self.content[ev["id"]] = ev["content"]
                self.acks += 1
        self.maybe_deleted |= {i for i, op in pending.items() if op == "try-delete"}
        self.maybe_updated |= {i for i, op in pending.items() if op == "try-update"}


def stream_until_killed(env: dict[str, str], kill: Any, round_no: int, acks: int) -> list[Any]:
    """Run the streamer; once it has `acks` acknowledgements, call kill(); return its events."""
    client = subprocess.Popen(
        [sys.executable, "-c", STREAMER, str(round_no)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    events: list[dict[str, Any]] = []

    def read() -> None:
        assert client.stdout is not None
        decoder = json.JSONDecoder()
        for line in client.stdout:
            # Every object a line holds: CI read two events on one line while
            # communicate() below read this pipe too and took the first's newline (a
            # lone write when stdout was unbuffered). It no longer does, and each event
            # is one write of a whole line; a lost newline still costs no event.
            at, line = 0, line.strip()
            while at < len(line):
                event, at = decoder.raw_decode(line, at)
                events.append(event)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_for(
            lambda: sum(e["op"] in ("remember", "delete", "update") for e in events) >= acks,
            what=f"{acks} acknowledged writes",
        )
        kill()
        # The reader alone reads stdout, to its end (the streamer's exit): communicate()
        # would read it too, and what it read was lost to the ledger.
        reader.join(60)
        assert not reader.is_alive(), "the streamer did not stop once the daemon was gone"
        _, err = client.communicate(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
    assert client.returncode == 0, err
    assert [e["seq"] for e in events] == list(range(len(events))), "events were lost"
    return events


def check_database(db: Path) -> None:
    assert integrity(db) == ["ok"]
    census(db).assert_consistent()  # includes the FTS5 integrity-check


def test_sigkill_loses_no_acknowledged_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = isolated_env(home)
    ledger = Ledger()
    for round_no in range(2):
        with running(home) as d:
            events = stream_until_killed(
                env, lambda d=d: d.proc.proc.send_signal(signal.SIGKILL), round_no, acks=60
            )
            assert d.proc.proc.wait(30) == -signal.SIGKILL
        ledger.apply(events)

        with running(home) as d:
            check_database(d.paths.db)
            stored = {e["id"]: e for e in export_all(d.call)}
            for eid, content in ledger.content.items():
                if eid in ledger.maybe_deleted:
                    continue
                assert eid in stored, f"acknowledged write {eid} is missing after SIGKILL"
                if eid not in ledger.maybe_updated:
                    assert stored[eid]["content"] == content
            for eid in ledger.deleted:
                assert eid not in stored, f"acknowledged delete of {eid} was undone"
            # Nothing but what the clients sent: no torn or invented rows.
            for entry in stored.values():
                assert entry["content"] in ledger.sent or entry["id"] in ledger.content
            # The in-memory vector index was rebuilt from the vectors that survived: a
            # query with an entry's exact text finds it at full similarity.
            certain = set(ledger.content) - ledger.maybe_deleted - ledger.maybe_updated
            probe_id = sorted(i for i in certain if "stream" in ledger.content[i])[0]
            probe = ledger.content[probe_id]
            stream = probe.split("stream ")[1][0]
            hits = d.call(
                "recall",
                {"query": probe, "min_confidence": 0.0, "limit": 100, "tags": [f"s{stream}"]},
            )["results"]
            assert {h["id"]: h["semantic"] for h in hits}[probe_id] > 0.99
            # And the daemon takes writes again.
            res = d.call("remember", {"content": f"After restart {round_no}", "scope": "global"})
            ledger.content[res["id"]] = f"After restart {round_no}"
        assert ledger.acks >= 60 * (round_no + 1)


def test_sigterm_finishes_in_flight_writes_and_exits_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    per_conn = 30
    sent: dict[tuple[int, int], str] = {}
    with running(home) as d:
        idle = RawConn(d.paths.socket)  # a client that is connected but silent
        conns = [RawConn(d.paths.socket) for _ in range(3)]
        for c, conn in enumerate(conns):
            batch = []
            for i in range(per_conn):
                sent[c, i] = f"Connection {c}, pipelined write {i}"
                batch.append(frame("remember", {"content": sent[c, i], "scope": "global"}, i))
            conn.send(b"".join(batch))
        # Stop while those are being worked on: the first answer shows work has begun.
        first = conns[0].read()
        d.proc.proc.send_signal(signal.SIGTERM)
        answers: dict[tuple[int, int], dict[str, Any]] = {(0, first["id"]): first}
        for c, conn in enumerate(conns):
            while (line := conn.read_line()) is not None:
                msg = json.loads(line)
                answers[c, msg["id"]] = msg
            conn.close()
        assert idle.at_eof()  # an idle client does not hold the daemon up
        idle.close()
        assert d.proc.proc.wait(30) == 0
        log = d.log.join()
        assert "Traceback" not in log, log
        assert not d.paths.socket.exists()
        assert not d.paths.pid_file.exists()
        wal = d.paths.db.with_name(d.paths.db.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0, "the WAL was not checkpointed"

    acked = {}
    for key, msg in answers.items():
        if "error" in msg:
            assert msg["error"]["code"] == p.SHUTTING_DOWN, msg
        else:
            assert msg["result"]["entry"]["content"] == sent[key]
            acked[msg["result"]["id"]] = sent[key]
    assert acked, "no write finished"

    with running(home) as d:
        check_database(d.paths.db)
        stored = {e["id"]: e["content"] for e in export_all(d.call)}
        # Every acknowledged write is there; and every write that landed was answered:
        # a graceful stop does not commit work and then drop the reply.
        assert stored == acked


def test_requests_after_sigterm_are_refused_or_answered(tmp_path: Path) -> None:
    # The stop begins while a client keeps writing on an open connection: each request
    # gets an answer (done, or "shutting down"), or the connection closes; never a hang.
    with running(tmp_path / "home") as d:
        conn = RawConn(d.paths.socket, timeout=30)
        assert "result" in conn.request("remember", {"content": "before", "scope": "global"}, 0)
        d.proc.proc.send_signal(signal.SIGTERM)
        outcomes = []
        for i in range(1, 200):
            try:
                conn.send(frame("remember", {"content": f"after {i}", "scope": "global"}, i))
                line = conn.read_line()
            except (BrokenPipeError, ConnectionResetError):
                line = None
            if line is None:
                break
            msg = json.loads(line)
            assert msg["id"] == i
            outcomes.append(msg)
            if "error" in msg:
                assert msg["error"]["code"] == p.SHUTTING_DOWN, msg
        conn.close()
        assert d.proc.proc.wait(30) == 0
    with running(tmp_path / "home") as d:
        stored = {e["content"] for e in export_all(d.call)}
        answered = {m["result"]["entry"]["content"] for m in outcomes if "result" in m}
        assert stored == {"before"} | answered


def test_restart_takes_over_what_a_killed_daemon_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running(home) as d:
        d.call("remember", {"content": "survives", "scope": "global"})
        d.proc.proc.send_signal(signal.SIGKILL)
        d.proc.proc.wait(30)
        # A killed daemon cleans nothing up: its socket file and pidfile stay behind.
        assert d.paths.socket.exists() and d.paths.pid_file.exists()
    # A new daemon takes both over and serves normally.
    with running(home) as d:
        assert [e["content"] for e in export_all(d.call)] == ["survives"]
        with pytest.raises(RpcError) as info:
            d.call("get", {"id": "nope"})
        assert info.value.code == p.NOT_FOUND
        check_database(d.paths.db)


def test_sigkill_with_the_wal_grown_ahead_loses_no_acknowledged_write(tmp_path: Path) -> None:
    """The daemon grows its WAL file with zeros to a working size before writes come
    (store/writer.py, WAL_KEPT); killed after acknowledged remembers whose frames lie
    before those zeros, it loses none: recovery reads the WAL up to its last valid frame."""
    from enyal_daemon.store.writer import WAL_KEPT

    home = tmp_path / "home"
    with running(home) as d:
        db, wal = d.paths.db, Path(f"{d.paths.db}-wal")
        kept = min(WAL_KEPT, db.stat().st_size)
        wait_for(lambda: wal.exists() and wal.stat().st_size >= kept, 10, "the WAL grown")
        grown = wal.stat().st_size
        ids = {
            d.call("remember", {"content": f"Grown WAL note {i}: keep it", "scope": "global"})[
                "id"
            ]: f"Grown WAL note {i}: keep it"
            for i in range(8)  # ~150 KB of frames each in a new store: within what was grown
        }
        # Zeros past the frames as it is killed (a quiet spell may have grown it further).
        assert wal.stat().st_size >= grown
        assert wal.read_bytes()[-(1 << 20) :] == bytes(1 << 20)
        d.proc.proc.send_signal(signal.SIGKILL)
        assert d.proc.proc.wait(30) == -signal.SIGKILL
    with running(home) as d:
        check_database(d.paths.db)
        stored = {e["id"]: e["content"] for e in export_all(d.call)}
        assert {i: stored.get(i) for i in ids} == ids

"""Case 6: requests a hostile machine makes possible (issue 25), each answered clearly.

Outside lock: another process holds the database's write lock (BEGIN EXCLUSIVE on
enyal.db); every kind of write is refused as busy (-32011) within a bound, reads go on,
and writes work once it lets go. Long paths and far dates: every path param given a
path over PATH_MAX (with a token in it) or a name over NAME_MAX is -32010, every date
param at the calendar's ends -32002; nothing is written, no token reaches the log.
Dropped reply: a proxy between client and daemon swallows the reply to a committed
write; the client's resend is answered, and the write lands once.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from enyal_client import transport
from enyal_protocol import wire as p

from .harness import Daemon, Row, home_env, logged_faults, open_db

BUSY_BOUND = 15.0  # seconds: the daemon's 5 s lock wait plus a loaded machine's slack
TOKEN = "ghp_" + "T0rtur3xL9mK4pT8wZ3nB6cY1dF5gH0jS2aE7u"  # a made-up GitHub token
DEEP = f"/tmp/{TOKEN}/" + "/".join(["d" * 200] * 25)  # over PATH_MAX, names fit
LONG_NAME = "/tmp/" + "n" * 300  # one name over NAME_MAX
DATES = ["9999-12-31", "9999-12-31T23:59:59Z", "0001-01-01", "0001-01-01T00:00:00+14:00"]


def path_shapes(path: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("remember", {"content": "x", "scope": "project", "cwd": path}),
        ("remember", {"content": "x", "scope": "file", "scope_path": path}),
        ("recall", {"query": "x", "scope": "project", "cwd": path}),
        ("recall_by_scope", {"query": "x", "file_path": path}),
        ("recall_batch", {"queries": ["x"], "scope": "project", "cwd": path}),
        ("list", {"scope": "project", "cwd": path}),
        ("consolidate", {"scope": "project", "cwd": path}),
        ("backup", {"path": path}),
        ("backup", {"path": "copy.db", "cwd": path}),
        ("task_add", {"content": "x", "cwd": path}),
        ("task_list", {"scope": "project", "cwd": path}),
        ("log_append", {"text": "x", "cwd": path}),
        ("log_show", {"cwd": path}),
        ("brief", {"cwd": path}),
        ("brief", {"path": path}),
        ("index", {"paths": ["notes.md"], "cwd": path}),
    ]


def date_shapes(when: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("recall", {"query": "x", "as_of": when}),
        ("recall", {"query": "x", "asked_at": when}),
        ("recall_batch", {"queries": ["x"], "asked_at": when}),
        ("list", {"created_after": when}),
        ("list", {"updated_before": when}),
    ]


def expect_code(row: Row, d: Daemon, method: str, params: dict[str, Any], code: int) -> float:
    """Send it; count a wrong answer as an error. Returns how long the answer took."""
    started = time.monotonic()
    row.runs += 1
    try:
        d.call(method, params)
    except transport.RpcError as exc:
        if exc.code != code:
            row.problem("errors", f"{method}: {exc.code} {exc.message[:120]} (wanted {code})")
    except Exception as exc:
        row.problem("errors", f"{method}: {type(exc).__name__}: {exc}"[:200])
    else:
        row.problem("errors", f"{method} {str(params)[:80]} was accepted (wanted {code})")
    return time.monotonic() - started


def outside_lock(row: Row, root: Path, project: str) -> None:
    d = Daemon(home_env(root / "lock"), root / "lock.log").start()
    try:
        kept = d.call("remember", {"content": "Written before the lock", "scope": "global"})
        row.acked += 1
        other = open_db(d.paths.db)
        other.execute("BEGIN EXCLUSIVE")
        waits = []
        try:
            for method, params in [
                ("remember", {"content": "Written under the lock", "scope": "global"}),
                ("log_append", {"text": "under the lock", "cwd": project}),
                ("forget", {"id": kept["id"]}),
            ]:
                waits.append(expect_code(row, d, method, params, p.BUSY))
            row.runs += 1
            if not d.call("recall", {"query": "written before the lock"})["results"]:
                row.problem("errors", "a read under the lock found nothing")
        finally:
            other.execute("ROLLBACK")
            other.close()
        if max(waits) > BUSY_BOUND:
            row.problem("errors", f"busy took {max(waits):.1f} s (bound {BUSY_BOUND:.0f} s)")
        row.note(f"busy in {min(waits):.1f}-{max(waits):.1f} s")
        d.call("log_append", {"text": "after the lock", "cwd": project})
        row.acked += 1
        if d.call("get", {"id": kept["id"]})["content"] != "Written before the lock":
            row.problem("lost", "the entry written before the lock changed")
    finally:
        if d.stop() != 0:
            row.problem("crashes", "the daemon did not stop cleanly")
    for fault in logged_faults(d.log_text()):
        row.problem("errors", fault)


def paths_and_dates(row: Row, root: Path) -> None:
    d = Daemon(home_env(root / "paths"), root / "paths.log").start()
    try:
        before = d.call("stats", {})["total"]
        for path in (DEEP, LONG_NAME):
            for method, params in path_shapes(path):
                expect_code(row, d, method, params, p.BAD_PATH)
        for when in DATES:
            for method, params in date_shapes(when):
                expect_code(row, d, method, params, p.INVALID_VALUE)
        if d.call("stats", {})["total"] != before:
            row.problem("errors", "a refused request wrote something")
    finally:
        if d.stop() != 0:
            row.problem("crashes", "the daemon did not stop cleanly")
    text = d.log_text()
    if TOKEN in text:
        row.problem("errors", "the token inside a path reached the daemon's log")
    for fault in logged_faults(text):
        row.problem("errors", fault)


class DroppingProxy:
    """Forwards connections to the daemon's socket; the first reply to `method` is
    swallowed and the client's connection closed, as if the path between them broke."""

    def __init__(self, path: Path, upstream: Path, method: str) -> None:
        self.path, self.upstream, self.method = path, upstream, method
        self.dropped = 0
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        daemon = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        daemon.connect(str(self.upstream))
        requests, replies = client.makefile("rb"), daemon.makefile("rb")
        with contextlib.ExitStack() as stack:
            for closable in (client, daemon, requests, replies):
                stack.callback(closable.close)
            while line := requests.readline():
                daemon.sendall(line)
                reply = replies.readline()
                if self.dropped == 0 and f'"method":"{self.method}"'.encode() in line:
                    self.dropped += 1
                    client.shutdown(socket.SHUT_RDWR)
                    return
                client.sendall(reply)

    def connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(self.path))
        return sock

    def close(self) -> None:
        self._server.close()


@contextlib.contextmanager
def dropping(d: Daemon, where: Path, method: str) -> Iterator[DroppingProxy]:
    px = DroppingProxy(where, d.paths.socket, method)
    try:
        yield px
    finally:
        px.close()


def dropped_reply(row: Row, root: Path, project: str, rng: random.Random) -> None:
    d = Daemon(home_env(root / "drop"), root / "drop.log").start()
    try:
        texts = [f"Resent line {n} #{rng.randrange(10**6)}" for n in range(2)]
        for n, text in enumerate(texts):
            with dropping(d, root / f"proxy{n}.sock", "log_append") as px:
                conn = transport.Connection(px.connect(), reopen=px.connect)
                try:
                    conn.call("log_append", {"text": text, "cwd": project})
                finally:
                    conn.close()
            row.runs += 1
            row.acked += 1
            if px.dropped != 1:
                row.problem("errors", "the proxy did not drop the reply")
        shown = [line[8:] for line in d.call("log_show", {"cwd": project})["lines"]]
        for text in texts:
            if shown.count(text) != 1:
                row.problem(
                    "lost" if not shown.count(text) else "errors",
                    f"{text!r} landed {shown.count(text)} times",
                )
    finally:
        if d.stop() != 0:
            row.problem("crashes", "the daemon did not stop cleanly")
    for fault in logged_faults(d.log_text()):
        row.problem("errors", fault)


def run(rows: list[Row], root: Path, rng: random.Random) -> None:
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    outside_lock(rows[0], root, str(project))
    paths_and_dates(rows[1], root)
    dropped_reply(rows[2], root, str(project), rng)

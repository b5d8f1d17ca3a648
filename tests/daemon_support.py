"""Helpers shared by the test_daemon_* modules: a raw socket client, a look inside the
database file, and a drain for the daemon's stderr. What the torture suite needs too (the
daemon's start and stop, the raw client, the file opened, the export read) is
scripts/harnesslib's, imported here.

Not a test module: the daemon tests import it by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import DaemonProc, start_daemon
from harnesslib.clockfile import MovedClock
from harnesslib.daemons import home_env as isolated_env
from harnesslib.raw import RawConn as RawConn
from harnesslib.raw import frame as frame
from harnesslib.store import export_entries as export_all
from harnesslib.store import open_db

# Comparable snapshots leave these out: a recall bumps them (batched, a few seconds
# later), so they change under a read-only request by design.
ACCESS_FIELDS = ("accessed_at", "access_count")


class StderrDrain:
    """Reads the daemon's stderr in a thread: a full pipe would block its logging (and
    with it the daemon), and the text tells whether anything was logged as a crash."""

    def __init__(self, daemon: DaemonProc) -> None:
        self._chunks: list[bytes] = []
        self._stream = daemon.proc.stderr
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._stream is None:
            return
        for line in iter(self._stream.readline, b""):
            self._chunks.append(line)

    def text(self) -> str:
        return b"".join(self._chunks).decode(errors="replace")

    def join(self, timeout: float = 10) -> str:
        """The whole log, once the daemon has exited and closed its end."""
        self._thread.join(timeout)
        return self.text()


@dataclass
class RunningDaemon:
    proc: DaemonProc
    log: StderrDrain

    @property
    def paths(self) -> Any:
        return self.proc.paths

    @property
    def clock(self) -> MovedClock:
        """Its time, to move past an expiry instead of sleeping (launched clocked)."""
        assert self.proc.clock is not None, "launch(home, clocked=True) gives a clock"
        return self.proc.clock

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.proc.call(method, params)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal it (if still running), wait for it, and release its pipe."""
        code = self.proc.stop(sig)
        self.log.join()
        if self.proc.proc.stderr:
            self.proc.proc.stderr.close()
        return code


def launch(home: Path, clocked: bool = False) -> RunningDaemon:
    return launch_env(isolated_env(home), clocked)


def launch_env(env: dict[str, str], clocked: bool = False) -> RunningDaemon:
    """A daemon on `env`: a home of isolated_env's, with what the test adds to it."""
    d = start_daemon(env=env, clocked=clocked)
    return RunningDaemon(d, StderrDrain(d))


def project_home(root: Path, cache: Path) -> tuple[dict[str, str], Path]:
    """The env of a home under `root` on the session's model cache (the 8-bit build made
    once), and a project folder beside it (it holds .git)."""
    project = root / "proj"
    (project / ".git").mkdir(parents=True)
    return isolated_env(root / "home") | {"ENYAL_CACHE_DIR": str(cache)}, project


@contextmanager
def running(home: Path, clocked: bool = False) -> Iterator[RunningDaemon]:
    d = launch(home, clocked)
    try:
        yield d
    finally:
        d.stop()


# --- raw frames --------------------------------------------------------------------------


def notification(method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode() + b"\n"


def error_of(resp: dict[str, Any]) -> dict[str, Any]:
    assert "result" not in resp, f"expected an error, got {resp}"
    err: dict[str, Any] = resp["error"]
    assert isinstance(err["code"], int) and isinstance(err["message"], str) and err["message"]
    return err


def result_of(resp: dict[str, Any]) -> Any:
    assert "error" not in resp, f"expected a result, got {resp}"
    return resp["result"]


# --- inside the database file ------------------------------------------------------------


@dataclass
class Census:
    """Which rids each of the three stores holds. They must always agree."""

    entries: set[int]
    vectors: set[int]
    fts: set[int]

    def assert_consistent(self) -> None:
        assert self.entries == self.vectors, (
            f"entries without a vector: {sorted(self.entries - self.vectors)}, "
            f"vectors without an entry: {sorted(self.vectors - self.entries)}"
        )
        assert self.entries == self.fts, (
            f"entries without an FTS row: {sorted(self.entries - self.fts)}, "
            f"FTS rows without an entry: {sorted(self.fts - self.entries)}"
        )


def census(db: Path) -> Census:
    """Read the rid sets with a separate connection, and check the FTS index.

    context_fts is an external-content table: a plain SELECT on it reads
    context_entries, so its own rows are counted in the docsize shadow table (one row
    per indexed document), and 'integrity-check' compares the index with the content.
    """
    conn = open_db(db)
    try:
        entries = {int(r[0]) for r in conn.execute("SELECT rid FROM context_entries")}
        vectors = {int(r[0]) for r in conn.execute("SELECT rowid FROM context_vectors")}
        fts = {int(r[0]) for r in conn.execute("SELECT id FROM context_fts_docsize")}
        conn.execute("INSERT INTO context_fts(context_fts) VALUES('integrity-check')")
        return Census(entries, vectors, fts)
    finally:
        conn.close()


def integrity(db: Path) -> list[str]:
    conn = open_db(db)
    try:
        return [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


# --- snapshots ---------------------------------------------------------------------------


def snapshot(call: Callable[[str, dict[str, Any]], Any]) -> list[dict[str, Any]]:
    """Every entry, every field except the access bookkeeping."""
    return [{k: v for k, v in e.items() if k not in ACCESS_FIELDS} for e in export_all(call)]

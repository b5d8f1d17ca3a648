"""What every case shares: the row it reports, daemons as subprocesses on a private
ENYAL_HOME, connections with timeouts, a look inside the database file, export
snapshots, and a tmpfs to fill or make read-only."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw

from enyal_client import transport
from enyal_protocol import paths as enyal_paths
from harnesslib import daemons

# The torture cases import these from here; they are the harness's, shared with tests/.
from harnesslib.daemons import home_env as home_env
from harnesslib.raw import RawConn as RawConn
from harnesslib.store import Call, open_db
from harnesslib.store import export_edges as export_edges
from harnesslib.store import export_entries as export_entries

# A recall bumps these (batched, seconds later): snapshots compared around read-only
# traffic leave them out.
ACCESS_FIELDS = ("accessed_at", "access_count")
CALL_TIMEOUT = 60.0  # no single request may take longer: a hang is a failure, not a wait
START_TIMEOUT = 90.0
STOP_TIMEOUT = 60.0
MAX_NOTES = 6


# What the generated memories are about (crash and clients cases).
TOPICS = [
    "the CI pipeline",
    "database migrations",
    "the deploy schedule",
    "code review rules",
    "the logging format",
    "feature flags",
    "the test runner",
    "secret storage",
    "API versioning",
    "error budgets",
    "the on-call rotation",
    "dependency upgrades",
]


def log(msg: str) -> None:
    """Progress, on stderr: stdout carries the table alone."""
    print(f"torture: {msg}", file=sys.stderr, flush=True)


class Skip(Exception):
    """The machine cannot run this case (no root for a mount, say): reported, not failed."""


# --- the report --------------------------------------------------------------------------


@dataclass
class Row:
    case: str
    runs: int = 0
    acked: int = 0
    lost: int = 0
    errors: int = 0
    crashes: int = 0
    integrity: str = "ok"
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # every failure, for --json and stderr
    details: dict[str, Any] = field(default_factory=dict)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def problem(self, kind: str, text: str) -> None:
        """Count a failure of `kind` (lost, errors, crashes), and keep what it was."""
        setattr(self, kind, getattr(self, kind) + 1)
        self.problems.append(f"{kind}: {text}")
        if len(self.problems) <= 20:
            log(f"[{self.case}] {kind}: {text}")

    def bad_integrity(self, what: str) -> None:
        self.integrity = what if self.integrity == "ok" else f"{self.integrity}; {what}"
        self.problems.append(f"integrity: {what}")
        log(f"[{self.case}] integrity: {what}")

    @property
    def failed(self) -> bool:
        if self.skipped is not None:
            return False
        return bool(self.lost or self.errors or self.crashes or self.integrity != "ok")

    def cells(self) -> list[str]:
        if self.skipped is not None:
            return [self.case, "—", "—", "—", "—", "—", "skipped", f"skipped: {self.skipped}"]
        notes = self.notes[:MAX_NOTES] + (["…"] if len(self.notes) > MAX_NOTES else [])
        text = "; ".join(notes).replace("|", "\\|").replace("\n", " ")
        return [
            self.case,
            str(self.runs),
            str(self.acked),
            str(self.lost),
            str(self.errors),
            str(self.crashes),
            self.integrity.replace("|", "\\|"),
            text,
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "runs": self.runs,
            "acked_writes": self.acked,
            "lost": self.lost,
            "errors": self.errors,
            "crashes": self.crashes,
            "integrity": self.integrity,
            "notes": self.notes,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 1),
            "failed": self.failed,
            "problems": self.problems,
            "details": self.details,
        }


HEADER = ["case", "runs", "acked writes", "lost", "errors", "crashes", "integrity", "notes"]


def table(rows: list[Row]) -> str:
    out = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(out)


# --- daemons -----------------------------------------------------------------------------

_started: list[subprocess.Popen[bytes]] = []  # every process this run started, for cleanup


def track(proc: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    _started.append(proc)
    return proc


def kill_leftovers() -> None:
    """Kill (by pid) whatever this run started and has not reaped: on errors or ^C."""
    for proc in _started:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)


def connect(paths: enyal_paths.Paths, timeout: float = CALL_TIMEOUT) -> transport.Connection:
    """A client connection whose every read gives up after `timeout` (TimeoutError)."""
    sock = transport.try_connect(paths.socket, timeout=timeout)
    if sock is None:
        raise transport.DaemonUnavailable(f"no daemon answers on {paths.socket}")
    return transport.Connection(sock)


class Daemon:
    """`python -m enyal_daemon` on the given environment, logging to a file of its own."""

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        preexec: Callable[[], None] | None = None,
    ) -> None:
        """`preexec`: run in the child before the daemon starts (a lower rlimit, say)."""
        self.env = env
        self.preexec = preexec
        self.paths = enyal_paths.resolve(env)
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_offset = 0

    def start(self, timeout: float = START_TIMEOUT) -> Daemon:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as out:
            self.proc = track(daemons.spawn(self.env, stdout=out, stderr=out, preexec=self.preexec))
        daemons.wait_until_answering(self.proc, self.paths, timeout, self.log_tail)
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> int:
        """SIGKILL; the exit status (-9 unless it had died already)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(STOP_TIMEOUT)

    def stop(self) -> int | None:
        """SIGTERM and wait; None if it would not stop (it is then killed)."""
        if self.proc is None:
            return None
        try:
            return daemons.stop(self.proc, signal.SIGTERM, STOP_TIMEOUT)
        except subprocess.TimeoutExpired:  # killed
            return None

    def connect(self, timeout: float = CALL_TIMEOUT) -> transport.Connection:
        return connect(self.paths, timeout)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        conn = self.connect()
        try:
            return conn.call(method, params or {})
        finally:
            conn.close()

    def log_text(self) -> str:
        """What this launch logged (from its start)."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(self._log_offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n: int = 600) -> str:
        return self.log_text()[-n:].strip()


def logged_faults(text: str) -> list[str]:
    """What a log tells of bugs: tracebacks and "database is locked", once per kind (a
    traceback's kind: its exception type and the line that raised it)."""
    seen: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            where, tail = "", ""
            for x in lines[i + 1 :]:
                if x.lstrip().startswith("File "):
                    where = x.strip()
                elif x and not x.startswith(" "):
                    tail = x
                    break
            key = f"{tail.split(':')[0]} {where}"
            seen.setdefault(key, f"traceback logged: {tail[:200]} ({where[:160]})")
        elif "database is locked" in line:
            seen.setdefault("locked", f"logged: {line.strip()[:200]}")
    return list(seen.values())


# --- inside the database file ------------------------------------------------------------


@dataclass
class DbCheck:
    problems: list[str]
    entries: int
    vectors: int
    fts: int

    @property
    def ok(self) -> bool:
        return not self.problems


def check_db(db: Path) -> DbCheck:
    """PRAGMA integrity_check, FTS5's integrity-check, and entries = vectors = FTS rows.

    context_fts is an external-content table: its own rows are counted in the docsize
    shadow table (one row per indexed document)."""
    problems: list[str] = []
    conn = open_db(db)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        if rows != ["ok"]:
            problems.append(f"integrity_check: {'; '.join(rows[:3])}")
        entries = {int(r[0]) for r in conn.execute("SELECT rid FROM context_entries")}
        vectors = {int(r[0]) for r in conn.execute("SELECT rowid FROM context_vectors")}
        fts = {int(r[0]) for r in conn.execute("SELECT id FROM context_fts_docsize")}
        try:
            conn.execute("INSERT INTO context_fts(context_fts) VALUES('integrity-check')")
        except apsw.Error as exc:
            problems.append(f"FTS integrity-check: {exc}")
        if entries != vectors:
            problems.append(
                f"{len(entries - vectors)} entries without a vector, "
                f"{len(vectors - entries)} vectors without an entry"
            )
        if entries != fts:
            problems.append(
                f"{len(entries - fts)} entries without an FTS row, "
                f"{len(fts - entries)} FTS rows without an entry"
            )
        return DbCheck(problems, len(entries), len(vectors), len(fts))
    finally:
        conn.close()


# --- exports -----------------------------------------------------------------------------


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def snapshot(call: Call) -> list[str]:
    """Every entry (with its history, without the access bookkeeping) and every edge,
    as sorted canonical JSON lines: equal snapshots mean an unchanged store."""
    entries = [
        canonical({k: v for k, v in e.items() if k not in ACCESS_FIELDS})
        for e in export_entries(call, versions=True)
    ]
    edges = [canonical({"edge": e}) for e in export_edges(call)]
    return sorted(entries) + sorted(edges)


# --- a small file system -----------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` at `where`, unmounted on the way out whatever happened. Raises
    Skip where mounting is not possible (not root, no tmpfs)."""
    if not sys.platform.startswith("linux"):
        raise Skip("tmpfs mounts need Linux")
    where.mkdir(parents=True, exist_ok=True)
    try:
        run = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Skip(f"cannot run mount ({exc})") from None
    if run.returncode != 0:
        why = run.stderr.strip().splitlines()[0] if run.stderr.strip() else "not root"
        raise Skip(f"cannot mount a tmpfs ({why})")
    try:
        yield where
    finally:
        done = subprocess.run(["umount", str(where)], capture_output=True, check=False)
        if done.returncode != 0:  # something still holds it: detach it all the same
            subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of the file system at `disk`."""
    filler = disk / "filler"
    with filler.open("wb") as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * (1 << 16))
            f.flush()
    return filler

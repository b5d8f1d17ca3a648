"""Shared fixtures. Every test gets its own ENYAL_HOME; nothing touches the real one.

Everything is real: SQLite with sqlite-vec, the ONNX model, the daemon as a
subprocess on a Unix socket, the CLI and the MCP shim as the executables a user
runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw
import pytest
import sqlite_vec

from enyal_client import transport
from enyal_protocol import paths as enyal_paths

BIN = Path(sys.executable).parent
# The daemon harness (scripts/harnesslib) is shared with scripts/torture, which runs
# without pytest: it lives in scripts/, and the tests reach it from here.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from harnesslib import daemons  # noqa: E402
from harnesslib.clockfile import MovedClock  # noqa: E402


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache dir for the session, so the model's 8-bit build (embedder/build8.py) is
    made once, not by every daemon in its fresh home; tests/test_build8.py makes its own."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def home(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    monkeypatch.setenv("ENYAL_HOME", str(h))
    monkeypatch.setenv("ENYAL_CACHE_DIR", str(model_cache))
    monkeypatch.delenv("ENYAL_SOCKET", raising=False)
    monkeypatch.delenv("ENYAL_MODEL_DIR", raising=False)
    monkeypatch.delenv("ENYAL_MODEL_BUILD", raising=False)
    return h


@pytest.fixture(scope="session")
def embedder(model_cache: Path) -> Any:
    """The model as the daemon runs it: its 8-bit build, and its fp32 build for long texts."""
    from enyal_daemon.embedder import build8
    from enyal_daemon.embedder.model_files import locate

    e = build8.load(locate(Path("/nonexistent")), model_cache)
    assert e.files.runtime is not None, "the 8-bit build was not made (see the log)"
    assert e.files.long_runtime is not None, "the fp32 build was not made (see the log)"
    return e


@pytest.fixture
def memory(home: Path, embedder: Any) -> Iterator[Any]:
    """The engine on a fresh database, in this process: for the verbs' own tests."""
    from enyal_daemon.service.core.engine import Engine

    m = Engine(home / "enyal.db", embedder)
    yield m
    m.close()


@dataclass
class DaemonProc:
    proc: subprocess.Popen[bytes]
    paths: enyal_paths.Paths
    clock: MovedClock | None = None  # started with clocked=True: its time, to move

    def connect(self) -> transport.Connection:
        return transport.connect(self.paths, autostart=False)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        conn = self.connect()
        try:
            return conn.call(method, params or {})
        finally:
            conn.close()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        return daemons.stop(self.proc, sig, timeout)


def start_daemon(
    env: dict[str, str] | None = None, timeout: float = 60, clocked: bool = False
) -> DaemonProc:
    """A daemon on `env` (this process's by default), its stderr piped. clocked: on a
    clock the test moves (DaemonProc.clock) instead of sleeping; its file sits beside
    the home."""
    environ = dict(os.environ if env is None else env)
    paths = enyal_paths.resolve(environ)
    beside = paths.data_dir.with_name(f"{paths.data_dir.name}.clock")  # not in the home
    clock = MovedClock(beside) if clocked else None
    proc = daemons.spawn(environ, stderr=subprocess.PIPE, clock=clock and clock.path)

    def why() -> str:
        err = proc.stderr.read().decode() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        return err

    daemons.wait_until_answering(proc, paths, timeout, why)
    return DaemonProc(proc, paths, clock)


def _daemon(clocked: bool) -> Iterator[DaemonProc]:
    d = start_daemon(clocked=clocked)
    yield d
    if d.alive():
        d.stop()
    if d.proc.stderr:
        d.proc.stderr.close()


@pytest.fixture
def daemon(home: Path) -> Iterator[DaemonProc]:
    yield from _daemon(clocked=False)


@pytest.fixture
def clocked_daemon(home: Path) -> Iterator[DaemonProc]:
    """As `daemon`, on a clock the test moves (its .clock) instead of sleeping."""
    yield from _daemon(clocked=True)


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        import json

        return json.loads(self.out)


def run_cli(
    *args: str,
    input: str | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> CliResult:
    p = subprocess.run(
        [str(BIN / "enyal"), *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )
    return CliResult(p.returncode, p.stdout, p.stderr)


def stop_daemon_of_home() -> None:
    """Stop a daemon that a client auto-started for the current ENYAL_HOME."""
    paths = enyal_paths.resolve()
    sock = transport.try_connect(paths.socket)
    if sock is None:
        return
    sock.close()
    conn = transport.connect(paths, autostart=False)
    try:
        conn.call("shutdown", {})
    finally:
        conn.close()
    deadline = time.monotonic() + 30
    while paths.pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture
def autostarted(home: Path) -> Iterator[None]:
    """For tests whose first client call starts a daemon: stop it afterwards."""
    yield
    stop_daemon_of_home()


def wait_for(predicate: Callable[[], bool], timeout: float = 30, what: str = "condition") -> None:
    """Poll instead of sleeping a fixed time: as fast as the condition allows."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (it holds .git) for tests that scope memories to a project."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def d(tmp_path: Path) -> Iterator[Any]:
    """A daemon of its own in this test's home (a RunningDaemon); it must log no traceback."""
    from daemon_support import running  # it imports this module: import it late

    with running(tmp_path / "home") as daemon:
        yield daemon
        assert "Traceback" not in daemon.log.text(), daemon.log.text()


@pytest.fixture
def clocked_d(tmp_path: Path) -> Iterator[Any]:
    """As `d`, on a clock the test moves (its .clock) instead of sleeping."""
    from daemon_support import running

    with running(tmp_path / "home", clocked=True) as daemon:
        yield daemon
        assert "Traceback" not in daemon.log.text(), daemon.log.text()


@pytest.fixture(scope="session")
def tok() -> Any:
    """The model's tokenizer, whole texts counted (no window, no padding), as budgets are."""
    from tokenizers import Tokenizer

    from enyal_daemon.embedder.model_files import locate

    t = Tokenizer.from_file(str(locate(Path("/nonexistent")).tokenizer))
    t.no_truncation()
    t.no_padding()
    return t


def tokens(tok: Any, text: str) -> int:
    """Tokens of `text` without [CLS]/[SEP]: what a budget counts."""
    return len(tok.encode(text, add_special_tokens=False).ids)


def an_entry(content: str, **fields: Any) -> Any:
    """A p.Entry as an export line or an older release holds it: every field a test does
    not name at its usual value (a global fact, confidence 1, never read, no tags)."""
    from enyal_daemon.store import entries
    from enyal_protocol import wire as p

    defaults: dict[str, Any] = {
        "id": "entry",
        "content_type": "fact",
        "scope_level": "global",
        "scope_path": None,
        "confidence": 1.0,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "accessed_at": None,
        "access_count": 0,
        "source_type": None,
        "source_ref": None,
        "tags": [],
        "metadata": {},
        "is_deprecated": False,
        "content_hash": entries.content_hash(content),
    }
    return p.Entry(content=content, **(defaults | fields))


def raw_db(db: Path) -> apsw.Connection:
    """A plain connection to a store file, sqlite-vec loaded, foreign keys on: for tests
    that read tables directly or build a store as an older Enyal left it."""
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = apsw.Connection(str(db))
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def old_store(db: Path, version: int) -> apsw.Connection:
    """A new store of schema `version` (store/migrations.py), as that release made it."""
    from enyal_daemon.store import migrations

    conn = raw_db(db)
    assert migrations.migrate(conn, upto=version) == version
    return conn


@pytest.fixture(scope="module")
def pg_hub() -> Iterator[Any]:
    """A throwaway PostgreSQL for the module (scripts/harnesslib/pg_cluster.py), on its
    socket and a loopback port, with the hub's admin setup done (owner enyal_hub; members
    alice, bob and carol) and PGPASSFILE set for this process and its children. Skips
    when no initdb exists, unless ENYAL_REQUIRE_PG=1 (CI: scripts/test installs it)."""
    from harnesslib.pg_cluster import PgCluster, pg_bin

    if pg_bin() is None:
        reason = "no PostgreSQL initdb (Debian: apt-get install postgresql)"
        if os.environ.get("ENYAL_REQUIRE_PG") == "1":
            pytest.fail(f"ENYAL_REQUIRE_PG=1 but {reason}")
        pytest.skip(reason)
    cluster = PgCluster(tcp=True)
    try:
        cluster.start()
        cluster.hub_setup()
        with pytest.MonkeyPatch.context() as mp:
            for key, value in cluster.env().items():
                mp.setenv(key, value)
            yield cluster
    finally:
        cluster.close()

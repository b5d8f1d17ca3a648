"""Connections the daemon can bear (issue 25): a cap below the open-file limit, with the
database's descriptors kept aside; a clear refusal over it; a log that a storm of one
message cannot fill; and a connection that never sends neither holds a slot nor keeps
an idling daemon alive."""

from __future__ import annotations

import json
import logging
import math
import resource
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

from conftest import DaemonProc, wait_for
from daemon_support import StderrDrain, isolated_env
from enyal_client import transport
from enyal_daemon.server.daemon import HANDSHAKE_SECONDS
from enyal_daemon.server.limits import reserve
from enyal_daemon.server.logs import BURST, WINDOW_SECONDS, RateLimit
from enyal_protocol import paths as enyal_paths
from enyal_protocol import wire as p

FD_LIMIT = 256


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def start(home: Path, *args: str, fd_limit: bool = False) -> tuple[DaemonProc, StderrDrain]:
    env = isolated_env(home)
    proc = subprocess.Popen(
        [sys.executable, "-m", "enyal_daemon", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_low_fd_limit if fd_limit else None,
    )
    d = DaemonProc(proc, enyal_paths.resolve(env))
    drain = StderrDrain(d)
    wait_for(lambda: _listening(d.paths.socket) or not d.alive(), 120, "the daemon's socket")
    assert d.alive(), drain.join()
    return d, drain


def _listening(path: Path) -> bool:
    """Whether a socket listens at `path` (the kernel's table; __SO_ACCEPTCON in its
    flags), looked up without connecting: a probe connection would take one of the slots
    these tests count. Not whether the file exists: it appears at bind(), a moment before
    listen(), and a connect in that moment is refused (it failed so once, under two
    workers starting daemons at once)."""
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[7] == str(path) and int(fields[3], 16) & 0x10000:
            return True
    return False


def finish(d: DaemonProc, drain: StderrDrain) -> str:
    """Stop the daemon (if still running) and return its whole log."""
    assert d.stop() == 0
    log = drain.join()
    if d.proc.stderr:
        d.proc.stderr.close()
    return log


def test_connections_past_the_cap_are_refused_and_the_open_ones_keep_writing(
    tmp_path: Path,
) -> None:
    d, drain = start(tmp_path / "home", fd_limit=True)
    cap = FD_LIMIT - reserve()  # the default 256 does not fit beside the reserve
    kept = transport.connect(d.paths, autostart=False)
    silent: list[socket.socket] = []
    try:
        kept.call("remember", {"content": "The CI runs on every push.", "scope": "global"})
        started = time.monotonic()
        for _ in range(cap + 60):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(d.paths.socket))
            silent.append(s)
        # The refused get their reason at once; the served ones stay silent (the daemon
        # closes them only after HANDSHAKE_SECONDS, which this all takes less than).
        refused: list[dict[str, object]] = []
        waiting = list(silent)

        def take(timeout: float) -> None:
            ready, _, _ = select.select(waiting, [], [], timeout)
            for s in ready:
                waiting.remove(s)
                refused.append(json.loads(s.recv(65536).split(b"\n")[0] or b"{}"))

        expected = 60 + 1  # `kept` holds one of the cap's slots
        while len(refused) < expected and time.monotonic() - started < HANDSHAKE_SECONDS - 2:
            take(0.2)
        take(0.5)  # a refusal too many would show by now
        assert time.monotonic() - started < HANDSHAKE_SECONDS, "too slow to tell served apart"
        assert len(refused) == expected, len(refused)
        for answer in refused:  # each one the reason, none a mere close
            error = answer.get("error")
            assert isinstance(error, dict) and error["code"] == p.TOO_LARGE, answer
            assert error["data"] == {"reason": "connections", "limit": cap}
            assert f"already serves {cap} connections" in error["message"]
        # Connections at the cap take no descriptor SQLite needs: writes go on.
        for i in range(20):
            kept.call("remember", {"content": f"Deploy note {i}: all green.", "scope": "global"})
        assert kept.call("stats", {})["total"] == 21
    finally:
        for s in silent:
            s.close()
        kept.close()
    totals: list[int] = []

    def room_again() -> bool:  # once the daemon has seen the silent ones close
        try:
            totals.append(d.call("stats")["total"])
        except transport.RpcError as exc:
            assert exc.data == {"reason": "connections", "limit": cap}, exc
            return False
        return True

    wait_for(room_again, 30, "room for a new connection")
    assert totals == [21]
    log = finish(d, drain)
    windows = math.ceil((time.monotonic() - started) / WINDOW_SECONDS)
    assert log.count("refused a connection") <= BURST * windows, log[-3000:]  # of 61+
    assert "Traceback" not in log and "unable to open" not in log, log[-3000:]


def test_a_client_over_the_cap_gets_the_reason_not_a_broken_pipe(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home).mkdir()
    (home / "config.toml").write_text("[daemon]\nmax_connections = 1\n")
    d, drain = start(home)
    first = transport.connect(d.paths, autostart=False)
    try:
        first.call("stats", {})
        r = subprocess.run(
            [str(Path(sys.executable).parent / "enyal"), "stats"],
            env=isolated_env(home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 1, r
        assert "already serves 1 connections" in r.stderr, r.stderr
    finally:
        first.close()
    finish(d, drain)


def test_a_connection_that_never_sends_does_not_keep_an_idle_daemon_alive(
    tmp_path: Path,
) -> None:
    d, drain = start(tmp_path / "home", "--idle-timeout", "1")
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(str(d.paths.socket))
    try:
        wait_for(lambda: not d.alive(), HANDSHAKE_SECONDS + 30, "the idle daemon to exit")
        assert silent.recv(1) == b""  # closed by the daemon, not by us
    finally:
        silent.close()
    assert f"closed a connection that sent nothing in {HANDSHAKE_SECONDS:g}s" in finish(d, drain)


def test_the_log_says_one_message_a_few_times_then_how_many_were_held_back() -> None:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("enyal.test.ratelimit")
    logger.propagate = False
    handler = Keep()
    limit = RateLimit(burst=3, window=0.3)
    handler.addFilter(limit)
    logger.addHandler(handler)
    try:
        for i in range(1000):
            logger.warning("accept failed: %d", i)
        logger.warning("another message")
        assert records == [
            "accept failed: 0",
            "accept failed: 1",
            "accept failed: 2",
            "another message",
        ]
        started = time.monotonic()
        wait_for(lambda: time.monotonic() - started > 0.35, what="the window to pass")
        logger.warning("accept failed: %d", 1000)
        assert (
            records[-1]
            == "accept failed: 1000 [997 more like this in the last 0.3 s were not logged]"
        )
    finally:
        logger.removeHandler(handler)

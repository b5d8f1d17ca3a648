"""Socket activation and readiness, the way systemd does them, with real processes.

The daemon gets a listening socket as fd 3 with LISTEN_FDS/LISTEN_PID (set in the
child itself just before exec, as systemd does), and reports READY=1 /
STOPPING=1 as datagrams on NOTIFY_SOCKET. One test uses systemd's own
systemd-socket-activate (Debian package: systemd) for the hand-off.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import wait_for
from enyal_daemon.server import activation
from enyal_protocol import paths as enyal_paths
from enyal_protocol.paths import ensure_private_dir
from service_support import env_for, enyal

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="systemd is Linux-only")


@pytest.fixture
def listener(home: Path) -> Iterator[socket.socket]:
    """What the socket unit would create: a listening socket at the clients' path."""
    path = enyal_paths.resolve().socket
    ensure_private_dir(path.parent)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.listen(16)
    yield s
    s.close()


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(str(tmp_path / "notify"))
    s.settimeout(90)
    yield s
    s.close()


# What systemd does between fork and exec: the socket to fd 3, LISTEN_PID = the pid
# that is about to exec (exec keeps it), LISTEN_FDS = 1.
_EXEC_ACTIVATED = """
import os, sys
fd = int(sys.argv[1])
os.dup2(fd, 3)
os.close(fd)
os.environ.update(LISTEN_PID=str(os.getpid()), LISTEN_FDS="1", LISTEN_FDNAMES="enyal.socket")
os.execv(sys.executable, [sys.executable, "-m", "enyal_daemon", *sys.argv[2:]])
"""


def activate(listen: socket.socket, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """Start the daemon as a socket-activated service: `listen` as its fd 3."""
    fd = listen.fileno()
    return subprocess.Popen(
        [sys.executable, "-c", _EXEC_ACTIVATED, str(fd), *args],
        env=env,
        pass_fds=(fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def messages_until(sock: socket.socket, wanted: str) -> list[str]:
    got: list[str] = []
    while not any(wanted in m.split("\n") for m in got):
        got.append(sock.recv(4096).decode())
    return got


def frame(method: str, req_id: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": {}, "id": req_id}).encode()


# --- the pure-Python protocol pieces ---------------------------------------------------


def test_listen_env_for_another_process_is_ignored_and_cleared() -> None:
    env = {"LISTEN_PID": str(os.getpid() + 1), "LISTEN_FDS": "1", "LISTEN_FDNAMES": "x"}
    assert activation.systemd_socket(env) is None
    assert env == {}  # never inherited by anything we start
    assert activation.systemd_socket({}) is None


def test_notify_reaches_a_path_and_an_abstract_socket(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind(str(tmp_path / "n"))
        assert activation.notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "n")})
        assert s.recv(100) == b"READY=1"
    name = f"enyal-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind("\0" + name)
        assert activation.notify("STOPPING=1", {"NOTIFY_SOCKET": "@" + name})
        assert s.recv(100) == b"STOPPING=1"
    assert not activation.notify("READY=1", {})  # not under systemd: nothing to do


# --- a real daemon on an inherited socket ------------------------------------------------


def test_daemon_serves_an_inherited_socket_and_reports_ready_and_stopping(
    home: Path, listener: socket.socket, notify_socket: socket.socket
) -> None:
    env = env_for(home, NOTIFY_SOCKET=notify_socket.getsockname())
    proc = activate(listener, env)
    try:
        ready = messages_until(notify_socket, "READY=1")
        assert f"MAINPID={proc.pid}" in ready[-1]
        st = enyal("status", "--json", env=env_for(home))
        assert st.code == 0, st.err
        assert st.json()["pid"] == proc.pid  # served by the activated daemon, none spawned
        assert st.json()["socket"] == listener.getsockname()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        assert "STOPPING=1" in messages_until(notify_socket, "STOPPING=1")[-1]
    finally:
        if proc.poll() is None:
            proc.kill()
        assert proc.stderr is not None
        log = proc.stderr.read().decode()
        proc.stderr.close()
    assert "Traceback" not in log, log
    # The socket belongs to the service manager: still there, still accepting.
    assert Path(listener.getsockname()).exists()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
        c.connect(listener.getsockname())


def test_a_client_queued_while_no_daemon_runs_is_served_and_idle_exit_keeps_the_socket(
    home: Path, listener: socket.socket
) -> None:
    # A client connects while nothing runs: the kernel queues it on the manager's socket.
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(90)
    client.connect(listener.getsockname())
    client.sendall(frame("status") + b"\n")
    # The manager starts the daemon; the idle timeout comes from the config (env here),
    # which is the default for a socket-activated daemon.
    proc = activate(listener, env_for(home, ENYAL_IDLE_TIMEOUT="1"))
    try:
        reply = json.loads(client.makefile("rb").readline())
        assert reply["result"]["pid"] == proc.pid
        client.close()
        assert proc.wait(60) == 0  # idle for a second: exits cleanly, by itself
    finally:
        if proc.poll() is None:
            proc.kill()
        assert proc.stderr is not None
        log = proc.stderr.read().decode()
        proc.stderr.close()
    assert "idle" in log
    paths = enyal_paths.resolve()
    assert Path(listener.getsockname()).exists()  # not unlinked: the manager still listens
    assert not paths.pid_file.exists()
    # ...and the next activation serves the next client.
    proc = activate(listener, env_for(home, ENYAL_IDLE_TIMEOUT="1"))
    try:
        st = enyal("status", "--json", env=env_for(home))
        assert st.code == 0, st.err
        assert st.json()["pid"] == proc.pid
    finally:
        proc.terminate()
        proc.wait(60)
        if proc.stderr:
            proc.stderr.close()


def test_a_daemon_run_by_hand_leaves_the_managers_socket_alone(
    home: Path, listener: socket.socket
) -> None:
    r = enyal("daemon", env=env_for(home), timeout=120)
    assert r.code == 75, r.err
    assert "already listens" in r.err and "enyal service status" in r.err
    assert Path(listener.getsockname()).exists()


def test_systemd_socket_activate_hands_over_its_socket(
    home: Path, notify_socket: socket.socket
) -> None:
    tool = shutil.which("systemd-socket-activate")
    if tool is None:
        pytest.fail("systemd-socket-activate is missing: install the Debian package `systemd`")
    path = enyal_paths.resolve().socket
    ensure_private_dir(path.parent)
    # The tool execs the daemon in its own process on the first connection, with only
    # the variables named by -E.
    proc = subprocess.Popen(
        [
            tool,
            "-l",
            str(path),
            "-E",
            f"ENYAL_HOME={home}",
            "-E",
            f"NOTIFY_SOCKET={notify_socket.getsockname()}",
            sys.executable,
            "-m",
            "enyal_daemon",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(path.exists, 30, "the tool's socket")
        st = enyal("status", "--json", env=env_for(home))
        assert st.code == 0, st.err
        assert st.json()["pid"] == proc.pid
        assert any("READY=1" in m for m in messages_until(notify_socket, "READY=1"))
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stderr:
            proc.stderr.close()


def test_a_passed_fd_that_is_not_a_socket_is_a_clear_error(home: Path, tmp_path: Path) -> None:
    with (tmp_path / "not-a-socket").open("w") as f:
        fd = f.fileno()
        proc = subprocess.Popen(
            [sys.executable, "-c", _EXEC_ACTIVATED, str(fd)],
            env=env_for(home),
            pass_fds=(fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "passed fd 3, but it is not a socket" in err and "Traceback" not in err

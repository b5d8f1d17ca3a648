"""One daemon per database, whatever runtime folder it starts from (issue 9): two shells
with different XDG_RUNTIME_DIR share ~/.local/share/enyal but look for different sockets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import wait_for
from enyal_client import transport
from enyal_protocol import ownership, paths
from enyal_protocol.exits import EXIT_ALREADY_RUNNING


def env_with_runtime(tmp: Path, runtime: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENYAL_", "XDG_"))}
    env.update(
        HOME=str(tmp / "user"),
        XDG_DATA_HOME=str(tmp / "user" / "data"),
        XDG_STATE_HOME=str(tmp / "user" / "state"),
        XDG_CONFIG_HOME=str(tmp / "user" / "config"),
        XDG_RUNTIME_DIR=str(tmp / runtime),
    )
    (tmp / runtime).mkdir(mode=0o700, exist_ok=True)
    return env


def resolved(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> paths.Paths:
    """The paths a process with this environment uses (platformdirs reads os.environ)."""
    with monkeypatch.context() as m:
        for k in [k for k in os.environ if k.startswith(("ENYAL_", "XDG_"))]:
            m.delenv(k)
        for k, v in env.items():
            m.setenv(k, v)
        return paths.resolve()


def test_a_second_daemon_on_the_same_database_exits_naming_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_a, env_b = env_with_runtime(tmp_path, "rt-a"), env_with_runtime(tmp_path, "rt-b")
    paths_a, paths_b = resolved(env_a, monkeypatch), resolved(env_b, monkeypatch)
    assert paths_a.db == paths_b.db and paths_a.socket != paths_b.socket
    first = subprocess.Popen(
        [sys.executable, "-m", "enyal_daemon"],
        env=env_a,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(paths_a.socket.exists, 60, "the first daemon")
        owner = ownership.current_owner(paths_b)
        assert owner is not None and owner.pid == first.pid
        assert owner.socket == str(paths_a.socket)
        second = subprocess.run(
            [sys.executable, "-m", "enyal_daemon"],
            env=env_b,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == EXIT_ALREADY_RUNNING
        assert f"pid {first.pid}" in second.stderr and str(paths_a.socket) in second.stderr
        assert not paths_b.socket.exists()
        conn = transport.connect(paths_a, autostart=False)
        try:
            assert conn.call("status", {})["pid"] == first.pid
        finally:
            conn.close()
        # A client of the other runtime folder finds the daemon that owns the database.
        cli = subprocess.run(
            [str(Path(sys.executable).parent / "enyal"), "status", "--json"],
            env=env_b,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 0, cli.stderr
        assert json.loads(cli.stdout)["pid"] == first.pid
    finally:
        first.terminate()
        first.wait(timeout=60)
    assert ownership.current_owner(paths_b) is None  # released on exit

"""`enyal doctor`: each check on a real home, healthy and broken, with its fix."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from enyal_protocol import paths as enyal_paths
from enyal_protocol.paths import SOCKET_PATH_MAX, ensure_private_dir
from service_support import env_for, enyal

NAMES = [
    "config",
    "python",
    "sqlite",
    "extension loading",
    "python sqlite3",
    "fts5",
    "model",
    "socket path",
    "permissions",
    "daemon",
    "secrets",
    "service",
    "writable",
    "database",
    "hub",
    "hooks",
]


def doctor(env: dict[str, str]) -> tuple[int, dict[str, dict[str, Any]]]:
    r = enyal("doctor", "--json", env=env)
    checks = {c["name"]: c for c in r.json()["checks"]}
    return r.code, checks


def test_a_fresh_home_is_healthy_and_every_check_reports(home: Path) -> None:
    code, checks = doctor(env_for(home))
    assert list(checks) == NAMES
    assert code == 0, checks
    assert {c["status"] for c in checks.values()} == {"ok"}
    assert checks["extension loading"]["detail"].startswith("allowed; sqlite-vec v")
    assert "all-MiniLM-L6-v2/onnx-int8" in checks["model"]["detail"]
    assert "not running; the next client starts it" in checks["daemon"]["detail"]
    r = enyal("doctor", env=env_for(home))
    assert r.code == 0 and r.out.splitlines()[-1] == f"{len(NAMES)} ok, 0 warnings, 0 failures"


def test_this_pythons_sqlite3_extension_support_is_detected_with_the_fix(home: Path) -> None:
    _, checks = doctor(env_for(home))
    c = checks["python sqlite3"]
    conn = sqlite3.connect(":memory:")
    can_load = hasattr(conn, "enable_load_extension")
    conn.close()
    if can_load:
        assert c["detail"].startswith("can load extensions")
    else:  # e.g. pyenv and python.org builds: detected, and the fix is spelled out
        assert "cannot load extensions" in c["detail"]
        assert "--enable-loadable-sqlite-extensions" in c["fix"]


@pytest.mark.usefixtures("autostarted")
def test_a_running_daemon_is_reported_with_its_pid_and_version(home: Path) -> None:
    pid = enyal("status", "--json", env=env_for(home)).json()["pid"]
    code, checks = doctor(env_for(home))
    assert code == 0
    assert checks["daemon"]["detail"] == f"pid {pid}, enyal 0.1.0"
    assert checks["permissions"]["status"] == "ok"  # the daemon creates its files 0600
    assert "integrity ok, model all-MiniLM-L6-v2/onnx-int8" in checks["database"]["detail"]


def test_broken_setups_fail_with_their_fixes(home: Path, tmp_path: Path) -> None:
    paths = enyal_paths.resolve()
    # A runtime dir others can enter, a database that is not one, a typo in config.toml.
    ensure_private_dir(paths.runtime_dir)
    paths.runtime_dir.chmod(0o755)
    paths.db.write_bytes(b"this is not a database" * 100)
    paths.db.chmod(0o644)
    (home / "config.toml").write_text("[daemon]\nidle_timeot = 3\n")
    code, checks = doctor(env_for(home))
    assert code == 1
    assert checks["config"]["status"] == "fail" and "idle_timeot" in checks["config"]["detail"]
    perm = checks["permissions"]
    assert perm["status"] == "fail"
    assert f"chmod 700 {paths.runtime_dir}" in perm["fix"]
    assert f"chmod 600 {paths.db}" in perm["fix"]  # readable by others: memories are private
    assert checks["database"]["status"] == "fail"
    assert "not a database" in checks["database"]["detail"]
    assert checks["database"]["fix"]


def test_a_database_of_another_model_fails_with_reindex_as_the_fix(home: Path) -> None:
    from enyal_daemon.store import db, meta

    conn = db.connect(enyal_paths.resolve().db, writer=True)
    with conn:
        meta.put(conn, "model_id", "some-other-model/v9")
    conn.close()
    code, checks = doctor(env_for(home))
    assert code == 1
    c = checks["database"]
    assert c["status"] == "fail"
    assert "embedded with some-other-model/v9" in c["detail"]
    assert "enyal reindex" in c["fix"]


def test_a_socket_path_too_long_for_sun_path_fails(home: Path, tmp_path: Path) -> None:
    deep = tmp_path / ("d" * (SOCKET_PATH_MAX - len(os.fsencode(tmp_path)))) / "enyal.sock"
    code, checks = doctor(env_for(home, ENYAL_SOCKET=str(deep)))
    assert code == 1
    c = checks["socket path"]
    assert c["status"] == "fail" and "ENYAL_SOCKET" in c["fix"]


def test_a_deep_runtime_dir_falls_back_to_a_short_socket_path(tmp_path: Path) -> None:
    deep_home = tmp_path / ("h" * 100)
    _, checks = doctor(env_for(deep_home))
    c = checks["socket path"]
    assert c["status"] == "ok" and "too deep, so a short path is used" in c["detail"]


def test_permissions_of_a_healthy_daemon_home_are_private(home: Path) -> None:
    # What the daemon itself creates passes: a 0700 runtime dir and a 0600 socket.
    paths = enyal_paths.resolve()
    ensure_private_dir(paths.runtime_dir)
    assert stat.S_IMODE(paths.runtime_dir.stat().st_mode) == 0o700
    _, checks = doctor(env_for(home))
    assert checks["permissions"]["status"] == "ok"

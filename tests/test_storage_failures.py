"""Storage that fails (issue 9): a full disk and a read-only database, on a real small
tmpfs. Writes get their own error (-32009) saying why and where; reads go on; the daemon
stops cleanly and restarts while the disk is full, and writes again once there is room.

Mounting needs root (or CAP_SYS_ADMIN); elsewhere these tests skip, saying so."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import start_daemon
from daemon_support import census, integrity, isolated_env
from enyal_client.transport import RpcError
from enyal_protocol import wire as p


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir(parents=True)
    run = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({run.stderr.strip() or 'not root'})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of the file system. Unbuffered: a buffered file's last partial
    chunk stays in its buffer and its close raises ENOSPC again, outside the suppress
    (so the test failed whenever the free space was not a multiple of the chunk)."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * (1 << 16))
    return filler


def storage_error(call: Any) -> dict[str, Any]:
    with pytest.raises(RpcError) as err:
        call()
    assert err.value.code == p.STORAGE_UNAVAILABLE, err.value
    return {"message": err.value.message, "data": err.value.data}


def remember(d: Any, text: str) -> str:
    return str(d.call("remember", {"content": text, "scope": "global"})["id"])


def use_up(d: Any, twins: list[str]) -> list[str]:
    """Writes until the smallest the test asks for are refused: what the database's files
    still hold room for (the WAL started again from its beginning after a checkpoint, the
    free part of the file's last chunk: store/db.py, DB_CHUNK) is used up. Long remembers
    first; after each refusal, once a checkpoint had its chance (it runs CHECKPOINT_PAUSE
    after a commit at most, and may restart the WAL), a short remember, then a hard forget
    of one of `twins` (short memories stored before the disk filled, as the test's own
    is): room for either means more to use up (CI found each fitting where a larger write
    had just been refused). The ids of those that fit and are still there; `twins` loses
    those forgotten."""
    from enyal_daemon.store.writer import CHECKPOINT_PAUSE

    fit: list[str] = []
    for i in range(2000):
        text = f"Filler {i}: " + " ".join(f"word{i}x{j}" for j in range(1500))
        try:
            fit.append(remember(d, text))
            continue
        except RpcError as exc:
            assert exc.code == p.STORAGE_UNAVAILABLE, exc
        time.sleep(2 * CHECKPOINT_PAUSE)
        try:
            fit.append(remember(d, f"Short filler {i}."))
            continue
        except RpcError as exc:
            assert exc.code == p.STORAGE_UNAVAILABLE, exc
        if not twins:
            return fit
        try:
            d.call("forget", {"id": twins[-1], "hard": True})
        except RpcError as exc:
            assert exc.code == p.STORAGE_UNAVAILABLE, exc
            return fit
        twins.pop()
    raise AssertionError("2,000 long remembers on a full disk, none refused")


def test_a_full_disk_fails_writes_clearly_and_recovers_by_itself(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "16m") as disk:
        home = disk / "home"
        env = isolated_env(home)
        d = start_daemon(env=env)
        try:
            kept = remember(d, "The staging database is stage-db-2.")
            twins = [remember(d, f"Lint note {n}: ruff runs in CI.") for n in range(4)]
            filler = fill(disk)
            fit = use_up(d, twins)
            err = storage_error(lambda: remember(d, "Deploys happen on Tuesdays."))
            assert err["message"].startswith("disk full:") and str(home) in err["message"]
            assert err["data"]["reason"] == "full"
            storage_error(lambda: d.call("forget", {"id": kept, "hard": True}))
            hits = d.call("recall", {"query": "staging database", "min_confidence": 0})
            assert hits["results"][0]["id"] == kept  # reads go on (the fillers after it)
            assert d.stop() == 0  # SIGTERM while full: a clean stop
            if d.proc.stderr:
                d.proc.stderr.close()
            d = start_daemon(env=env)  # and a restart while still full
            assert d.call("get", {"id": kept})["content"] == "The staging database is stage-db-2."
            filler.unlink()  # room again: no restart needed
            later = remember(d, "Deploys happen on Tuesdays.")
            for gone in [kept, *twins, *fit]:
                d.call("forget", {"id": gone, "hard": True})
            assert d.call("stats")["total"] == 1 and d.call("get", {"id": later})
        finally:
            if d.alive():
                d.stop()
            if d.proc.stderr:
                d.proc.stderr.close()
        assert integrity(home / "enyal.db") == ["ok"]
        census(home / "enyal.db").assert_consistent()


def _stored_then_read_only(tmp_path: Path, disk: Path) -> tuple[dict[str, str], str]:
    """The environment of a home whose data lives on `disk`, one memory stored there by a
    daemon since stopped, and `disk` then remounted read-only: (env, the memory's id)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENYAL_", "XDG_"))}
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env.update(
        ENYAL_SOCKET=str(runtime / "enyal.sock"),
        ENYAL_CACHE_DIR=os.environ["ENYAL_CACHE_DIR"],
        XDG_RUNTIME_DIR=str(runtime),
        XDG_DATA_HOME=str(disk / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    d = start_daemon(env=env)
    kept = remember(d, "Logs are written as JSON lines.")
    assert d.stop() == 0
    if d.proc.stderr:
        d.proc.stderr.close()
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    return env, kept


def test_a_read_only_database_serves_reads_and_refuses_writes(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "16m") as disk:
        env, kept = _stored_then_read_only(tmp_path, disk)
        d = start_daemon(env=env)
        try:
            hits = d.call("recall", {"query": "log format", "min_confidence": 0})
            assert [h["id"] for h in hits["results"]] == [kept]
            err = storage_error(lambda: remember(d, "Metrics go to Prometheus."))
            assert "read-only" in err["message"] and err["data"]["reason"] == "read-only"
            line = json.dumps({"content": "Traces go to Tempo.", "scope_level": "global"})
            err = storage_error(lambda: d.call("import", {"lines": [line]}))
            assert err["data"]["reason"] == "read-only"  # the batch, not a failed line
            assert d.call("stats")["total"] == 1
            doctor = subprocess.run(
                [str(Path(sys.executable).parent / "enyal"), "doctor", "--json"],
                env=env,
                capture_output=True,
                text=True,
            )
            checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
            writable = checks["writable"]
            assert writable["status"] == "warn" and "read-only" in writable["detail"]
            assert "write permission" in writable["fix"]
            assert checks["database"]["status"] == "ok"  # no advice to move the file aside
        finally:
            d.stop()
            if d.proc.stderr:
                d.proc.stderr.close()
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=False)


def test_writes_come_back_once_read_only_storage_is_writable_again(tmp_path: Path) -> None:
    """Started on a read-only file system, the daemon serves reads; once it is remounted
    read-write, writes work again without a restart, and reads see them."""
    with tmpfs(tmp_path / "disk", "16m") as disk:
        env, kept = _stored_then_read_only(tmp_path, disk)
        d = start_daemon(env=env)
        try:
            err = storage_error(lambda: remember(d, "Metrics go to Prometheus."))
            assert err["data"]["reason"] == "read-only"
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
            later = remember(d, "Metrics go to Prometheus.")  # no restart
            assert d.call("get", {"id": later})["content"] == "Metrics go to Prometheus."
            hits = d.call("recall", {"query": "metrics", "min_confidence": 0})
            assert later in [h["id"] for h in hits["results"]]
            assert d.call("stats")["total"] == 2
            d.call("forget", {"id": kept, "hard": True})
            assert d.call("stats")["total"] == 1
            assert d.stop() == 0
        finally:
            if d.alive():
                d.stop()
            if d.proc.stderr:
                d.proc.stderr.close()
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=False)
        db_file = disk / "data" / "enyal" / "enyal.db"
        assert integrity(db_file) == ["ok"]
        census(db_file).assert_consistent()

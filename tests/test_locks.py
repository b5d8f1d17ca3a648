"""locks.py: the pidfile's lock is the one the daemon, `reindex` and a bulk load all take,
so none of them writes a home's database while another does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.errors import AlreadyRunning, Conflict
from enyal_daemon.locks import lock_pidfile, pidfile_held, release_pidfile
from enyal_daemon.tools import bulk


def test_a_held_pidfile_refuses_a_second_holder_and_names_the_first(tmp_path: Path) -> None:
    pid = tmp_path / "run" / "enyal.pid"
    with pidfile_held(pid):
        assert pid.read_text().strip().isdigit()
        with pytest.raises(AlreadyRunning, match=rf"pid {pid.read_text().strip()}"):
            lock_pidfile(pid)
    assert not pid.exists()  # released: the file goes with the lock
    release_pidfile(pid, lock_pidfile(pid))  # and anyone may take it again


def test_a_bulk_load_refuses_while_the_pidfile_is_held(tmp_path: Path, embedder: Any) -> None:
    pid, db = tmp_path / "run" / "enyal.pid", tmp_path / "enyal.db"
    held = lock_pidfile(pid)
    try:
        with pytest.raises(Conflict, match="stop it before a bulk load"):
            bulk.load(db, [], embedder.files, pid_file=pid)
        assert not db.exists()  # refused before anything was written
    finally:
        release_pidfile(pid, held)
    assert bulk.load(db, [], embedder.files, pid_file=pid) == 0
    assert db.exists() and not pid.exists()

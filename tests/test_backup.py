"""`backup`: a consistent online copy while writes go on (issue 9)."""

from __future__ import annotations

import threading
from pathlib import Path

import apsw
import pytest

from conftest import DaemonProc
from daemon_support import census, integrity
from enyal_client.transport import RpcError
from enyal_protocol import wire as p


def test_a_backup_under_concurrent_writes_is_consistent(daemon: DaemonProc, tmp_path: Path) -> None:
    for i in range(20):
        daemon.call(
            "remember", {"content": f"Service {i} listens on port {8000 + i}.", "scope": "global"}
        )
    stop = threading.Event()
    written: list[str] = []

    def writer() -> None:
        conn = daemon.connect()
        try:
            i = 0
            while not stop.is_set():
                text = f"Worker note {i}: the queue depth limit is {i * 7}."
                written.append(conn.call("remember", {"content": text, "scope": "global"})["id"])
                i += 1
        finally:
            conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        copies = []
        for n in range(3):
            target = tmp_path / f"backup-{n}.db"
            result = daemon.call("backup", {"path": str(target)})
            assert result["path"] == str(target) and result["bytes"] == target.stat().st_size
            copies.append((target, result["entries"]))
    finally:
        stop.set()
        thread.join()
    assert len(written) > 0  # the writes really ran beside the backups
    for target, entries in copies:
        assert integrity(target) == ["ok"]
        census(target).assert_consistent()
        conn = apsw.Connection(str(target))
        try:
            assert conn.execute("SELECT count(*) FROM context_entries").fetchone()[0] == entries
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        finally:
            conn.close()
        assert 20 <= entries <= 20 + len(written)
        assert target.stat().st_mode & 0o077 == 0


def test_backup_refuses_to_overwrite_or_to_copy_onto_the_database(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    target = tmp_path / "b.db"
    target.write_text("precious")
    with pytest.raises(RpcError) as err:
        daemon.call("backup", {"path": str(target)})
    assert err.value.code == p.CONFLICT and target.read_text() == "precious"
    daemon.call("backup", {"path": str(target), "overwrite": True})
    assert integrity(target) == ["ok"]
    with pytest.raises(RpcError) as err:
        daemon.call("backup", {"path": str(daemon.paths.db), "overwrite": True})
    assert err.value.code == p.INVALID_VALUE
    with pytest.raises(RpcError) as err:
        daemon.call("backup", {"path": "relative.db"})  # no cwd to resolve it against
    assert err.value.code == p.INVALID_VALUE
    daemon.call("backup", {"path": "rel.db", "cwd": str(tmp_path)})
    assert (tmp_path / "rel.db").exists()

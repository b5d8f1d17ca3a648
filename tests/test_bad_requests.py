"""Requests a hostile machine makes possible (issue 25.6): paths longer than the file system
holds, dates at the edge of the calendar, a database another process holds locked. Each
gets a clear error with its own code, from a real daemon, and nothing secret reaches its
log (the `d` fixture also holds the log to no traceback)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import raw_db
from daemon_support import RunningDaemon
from enyal_client.transport import RpcError
from enyal_protocol import wire as p

GHP = "ghp_" + "R7vQ2xL9mK4pT8wZ3nB6cY1dF5gH0jS2aE7u"  # a made-up GitHub token
# Every component fits NAME_MAX, the whole does not fit PATH_MAX (4096 on Linux).
DEEP = f"/tmp/{GHP}/" + "/".join(["c" * 200] * 25)
LONG_NAME = "/tmp/" + "b" * 300  # one component over NAME_MAX (255)


def shapes(path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every param that takes a path, given `path`."""
    return [
        ("remember", {"content": "x", "scope": "project", "cwd": path}),
        ("remember", {"content": "x", "scope": "file", "scope_path": path}),
        ("recall", {"query": "x", "cwd": path, "scope": "project"}),
        ("recall", {"query": "x", "scope": "file", "scope_path": path}),
        ("recall_by_scope", {"query": "x", "file_path": path}),
        ("recall_by_scope", {"query": "x", "file_path": "a.py", "cwd": path}),
        ("recall_batch", {"queries": ["x"], "scope": "project", "cwd": path}),
        ("list", {"scope": "project", "cwd": path}),
        ("consolidate", {"scope": "project", "cwd": path}),
        ("backup", {"path": path}),
        ("backup", {"path": "copy.db", "cwd": path}),
        ("task_add", {"content": "x", "cwd": path}),
        ("task_list", {"scope": "project", "cwd": path}),
        ("log_append", {"text": "x", "cwd": path}),
        ("log_show", {"cwd": path}),
        ("brief", {"cwd": path}),
        ("brief", {"path": path}),
        ("subscribe", {"scope": "project", "cwd": path}),
        ("index", {"paths": [path]}),
        ("index", {"paths": ["notes.md"], "cwd": path}),
    ]


def code_of(d: RunningDaemon, method: str, params: dict[str, Any]) -> int:
    with pytest.raises(RpcError) as err:
        d.call(method, params)
    return err.value.code


@pytest.mark.parametrize("path", [DEEP, LONG_NAME], ids=["over PATH_MAX", "over NAME_MAX"])
def test_a_path_the_file_system_cannot_hold_is_a_bad_path(d: RunningDaemon, path: str) -> None:
    before = d.call("stats", {})["total"]
    got = {(m, str(prm)[:60]): code_of(d, m, prm) for m, prm in shapes(path)}
    # index's schema caps each path at 4096 characters: decoding refuses it first, by name.
    capped = {k for k in got if k[0] == "index" and "paths': ['/" in k[1] and len(path) > 4096}
    assert {k: c for k, c in got.items() if k not in capped and c != p.BAD_PATH} == {}
    assert {got[k] for k in capped} <= {p.INVALID_PARAMS}
    assert d.call("stats", {})["total"] == before, "nothing was written"
    assert GHP not in d.log.text()
    assert GHP not in (d.paths.log_file.read_text() if d.paths.log_file.exists() else "")


DATES = ["9999-12-31", "9999-12-31T23:59:59Z", "0001-01-01", "0001-01-01T00:00:00+14:00"]


@pytest.mark.parametrize("when", DATES)
def test_a_date_at_the_edge_of_the_calendar_is_invalid(d: RunningDaemon, when: str) -> None:
    for method, params in [
        ("recall", {"query": "x", "as_of": when}),
        ("recall", {"query": "x", "asked_at": when}),
        ("recall_batch", {"queries": ["x"], "asked_at": when}),
        ("list", {"created_after": when}),
        ("list", {"updated_before": when}),
    ]:
        assert code_of(d, method, params) == p.INVALID_VALUE, (method, params)


def test_an_outside_write_lock_is_busy_within_a_bound(d: RunningDaemon, project: Path) -> None:
    d.call("remember", {"content": "Written before the lock", "scope": "global"})
    other = raw_db(d.paths.db)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        started = time.monotonic()
        with pytest.raises(RpcError) as err:
            d.call("log_append", {"text": "while locked", "cwd": str(project)})
        waited = time.monotonic() - started
        assert err.value.code == p.BUSY, err.value.message
        assert waited < 15, waited  # the lock wait (5 s) and the request's own time
        # Reads are not held up by it.
        assert d.call("recall", {"query": "written before"})["results"]
    finally:
        other.execute("ROLLBACK")
        other.close()
    d.call("log_append", {"text": "after the lock", "cwd": str(project)})
    assert "Traceback" not in d.log.text()


def test_the_daemon_log_redacts_what_it_writes(tmp_path: Path) -> None:
    """An error the daemon did not foresee is logged with its traceback, secrets redacted."""
    from enyal_daemon.server import logs

    log_file = tmp_path / "enyal.log"
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.setup(log_file)
        try:
            raise OSError(36, "File name too long", f"/tmp/{GHP}/x")
        except OSError:
            logging.getLogger("enyal_daemon.test").exception("remember failed with %s", GHP)
        for handler in root.handlers:
            handler.flush()
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:], level = saved
        root.setLevel(level)
    text = log_file.read_text()
    assert "File name too long" in text and "Traceback" in text
    assert GHP not in text and "[REDACTED:" in text

"""A reply lost after the write committed (issue 25.9): the client sends the request once
more, and the daemon must not run it twice. Between the client and the real daemon sits
a real Unix-socket proxy that forwards every byte but drops the connection instead of
passing on the first reply to a chosen method."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from conftest import DaemonProc
from enyal_client import transport
from enyal_client.pool import Pool
from enyal_protocol import wire as p

# The proxy scripts/torture drops replies with: one proxy for both.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from torturelib.requests import DroppingProxy


@contextlib.contextmanager
def proxy(daemon: DaemonProc, tmp_path: Path, method: str) -> Iterator[DroppingProxy]:
    px = DroppingProxy(tmp_path / "proxy.sock", daemon.paths.socket, method)
    try:
        yield px
    finally:
        px.close()


def logged_lines(daemon: DaemonProc, project: Path) -> list[str]:
    return [line[8:] for line in daemon.call("log_show", {"cwd": str(project)})["lines"]]


def test_a_resent_log_append_lands_once(daemon: DaemonProc, project: Path, tmp_path: Path) -> None:
    with proxy(daemon, tmp_path, "log_append") as px:
        conn = transport.Connection(px.connect(), reopen=px.connect)
        try:
            res = conn.call("log_append", {"text": "Shipped the parser", "cwd": str(project)})
        finally:
            conn.close()
    assert px.dropped == 1, "the proxy lost the first reply"
    assert res["line"].endswith(" Shipped the parser")
    assert logged_lines(daemon, project) == ["Shipped the parser"]


def test_the_mcp_shims_resend_lands_once(daemon: DaemonProc, project: Path, tmp_path: Path) -> None:
    with proxy(daemon, tmp_path, "log_append") as px:
        link = Pool(lambda: transport.Connection(px.connect()))
        try:
            link.call_raw("log_append", p.LogAppendParams(text="Merged the fix", cwd=str(project)))
        finally:
            link.close()
    assert px.dropped == 1
    assert logged_lines(daemon, project) == ["Merged the fix"]


def test_a_read_is_resent_without_a_key_and_a_write_with_one() -> None:
    """Reads may simply run again; everything else carries the key that makes a resend
    answer the first run's result (the method table says which is which)."""
    assert p.METHODS["recall"].idempotent and p.METHODS["log_show"].idempotent
    assert not p.METHODS["log_append"].idempotent and not p.METHODS["brief"].idempotent

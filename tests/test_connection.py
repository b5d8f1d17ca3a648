"""The one client connection (issue 26.4): a request's response is told apart from the
notifications a subscription brings in between, which are kept, not lost or mistaken for
the answer; a connection opens at its first request, so making one starts no daemon."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from daemon_support import RunningDaemon, running
from enyal_client import transport
from enyal_protocol import paths as enyal_paths
from enyal_protocol import wire as p


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("connection") / "home") as d:
        yield d


def remember(d: RunningDaemon, text: str) -> str:
    return str(d.call("remember", {"content": text, "scope": "global"})["id"])


def changed_ids(notes: list[tuple[str, bytes]]) -> list[str]:
    assert {method for method, _ in notes} == {p.CHANGED}, notes
    return [msgspec.json.decode(raw, type=p.Change).id for _, raw in notes]


def test_a_response_after_notifications_is_its_own_and_the_notifications_are_kept(
    shared: RunningDaemon,
) -> None:
    conn = transport.connect(shared.paths, autostart=False)
    try:
        conn.call("subscribe", {})
        made = [remember(shared, f"heard between requests {i}") for i in range(2)]
        # Both changes were sent to this connection before the answer to this request.
        assert conn.call("status", {})["pid"] == shared.proc.proc.pid
        heard = list(itertools.islice(conn.notifications(), 2))
    finally:
        conn.close()
    assert changed_ids(heard) == made


def test_notifications_heard_while_waiting_go_to_the_callback(shared: RunningDaemon) -> None:
    conn = transport.connect(shared.paths, autostart=False)
    heard: list[tuple[str, bytes]] = []
    conn.on_notification = lambda method, raw: heard.append((method, raw))
    try:
        conn.call("subscribe", {})
        made = remember(shared, "heard by the callback")
        conn.call("status", {})
    finally:
        conn.close()
    assert changed_ids(heard) == [made]


@pytest.mark.usefixtures("autostarted")  # stops a daemon this started, if it ever does
def test_making_a_connection_starts_no_daemon_until_it_is_used(home: Path) -> None:
    conn = transport.connect(enyal_paths.resolve(), autostart=True)
    conn.close()
    assert not home.exists() or list(home.rglob("*")) == []

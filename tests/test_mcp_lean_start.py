"""`enyal-mcp` answers a session's first messages before it loads the server (issue 30:
spawn → first recall ≤ 60 ms): initialize, notifications/initialized, ping and a plain
enyal_recall go through mcp/lean_start.py without msgspec, and the first other message
hands the stream to the server. What the lean path writes must be what the server writes
for the same messages, byte for byte: each session here runs twice against one daemon,
once as a client starts enyal-mcp (no options: the lean path first) and once with an
option, which makes the server answer everything (the only difference between the two).

Recency moves with the clock between two runs, so the recalls ask asked_at a fixed time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon_support import launch_env, project_home
from enyal_client.mcp import lean_start, tools, versions
from enyal_client.mcp.facts import DATA_NOTE

ASKED_AT = "2031-05-04T12:00:00Z"
QUERY = "how are invoices rounded?"
LEAN = "import sys\nfrom enyal_client.mcp.shim import main\nsys.exit(main(sys.argv[1:]))"
# What a session the lean path answers whole must never load: the server's imports.
NOT_ON_THE_LEAN_PATH = {"msgspec", "enyal_protocol.wire", "enyal_client.mcp.server"}
NOT_ON_THE_LEAN_PATH |= {"enyal_client.mcp.stdio", "logging", "argparse", "threading"}
ENVELOPE = {
    versions.PROTOCOL_VERSION_KEY: "2026-07-28",
    versions.CLIENT_CAPABILITIES_KEY: {},
}
HELLO = {"capabilities": {}, "clientInfo": {"name": "lean-test", "version": "0"}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(req_id: int | str, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": req_id, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


def recall(req_id: int | str, meta: dict[str, Any] | None = None, **arguments: Any) -> bytes:
    arguments = {"query": QUERY, "asked_at": ASKED_AT} | arguments
    params = {"name": "enyal_recall", "arguments": arguments}
    return request(req_id, "tools/call", params if meta is None else params | {"_meta": meta})


def opening(version: str) -> list[bytes]:
    hello = request(1, "initialize", {**HELLO, "protocolVersion": version})
    return [hello, json.dumps(INITIALIZED).encode()]


class Shim:
    def __init__(self, env: dict[str, str], project: Path) -> None:
        self.env, self.project = env, project

    def session(self, frames: list[bytes], *options: str) -> tuple[list[bytes], set[str]]:
        """Every stdout line of an enyal-mcp fed `frames`, and what it imported. Stdin is
        closed once each request is answered: at EOF the server drops calls not yet
        started (server.py close), which would make its answers depend on timing."""
        # stderr to a file: -X importtime fills a pipe nobody reads until the end.
        log = tempfile.TemporaryFile()  # noqa: SIM115  # closed below, after the process
        proc = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-c", LEAN, *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=self.env,
            cwd=self.project,
        )
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin

        def feed() -> None:
            stdin.write(b"".join(f + b"\n" for f in frames))
            stdin.flush()

        feeding = threading.Thread(target=feed)
        feeding.start()
        wanted = len(frames) - sum(b"notifications/" in f for f in frames)
        lines = [proc.stdout.readline().rstrip(b"\n") for _ in range(wanted)]
        feeding.join()
        proc.communicate(timeout=120)
        log.seek(0)
        err = log.read().decode()
        log.close()
        assert proc.returncode == 0, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
        assert all(lines), (lines, err[-3000:])
        took = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if "|" in line}
        return lines, took

    def both(self, frames: list[bytes]) -> tuple[list[bytes], set[str]]:
        """The lean session's lines, checked against the server's, and its imports. The
        server answers tool calls on a pool, so its order may differ; the lines may not."""
        lean, took = self.session(frames)
        full, _ = self.session(frames, "--log-level", "WARNING")
        assert sorted(lean) == sorted(full)
        return lean, took


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Iterator[Shim]:
    env, project = project_home(tmp_path_factory.mktemp("mcp-lean"), model_cache)
    d = launch_env(env)
    for content in (
        "Invoices are rounded half-even: «€ 0,005 → 0,00», as the tax office asks.",
        "Invoices go out on the first working day of the month.",
        'The tax report quotes "gross" amounts with a backslash \\ and a tab\tinside.',
    ):
        d.call("remember", {"content": content, "cwd": str(project)})
    try:
        yield Shim(env, project)
    finally:
        d.stop()
    assert "Traceback" not in d.log.text(), d.log.text()


@pytest.mark.parametrize("version", ["2025-03-26", "2025-11-25", "1999-01-01"])
def test_the_first_messages_are_answered_as_the_server_answers_them(
    shim: Shim, version: str
) -> None:
    frames = opening(version)
    frames += [recall(2), recall("three", limit=1), request(4, "ping"), recall(5, query="tax")]
    lines, took = shim.both(frames)
    assert len(lines) == 5
    assert not took & NOT_ON_THE_LEAN_PATH, sorted(took & NOT_ON_THE_LEAN_PATH)
    assert "enyal_client.mcp.lean_start" in took
    first = json.loads(lines[1])["result"]
    text = first["content"][0]["text"]
    assert text.startswith(DATA_NOTE) and "half-even" in text
    assert ("structuredContent" in first) == (version != "2025-03-26")


def test_a_2026_07_28_session_opens_lean_too(shim: Shim) -> None:
    """server/discover and recalls with the per-request envelope (what the official SDK
    sends by default): answered as the server answers them, each result finished with
    its resultType and serverInfo; then a ping of the handshake era on the same stream."""
    frames = [request(1, "server/discover", {"_meta": ENVELOPE}), recall(2, meta=ENVELOPE)]
    frames += [recall(3, meta=ENVELOPE, limit=1, scope="all"), request(4, "ping")]
    lines, took = shim.both(frames)
    assert len(lines) == 4
    assert not took & NOT_ON_THE_LEAN_PATH, sorted(took & NOT_ON_THE_LEAN_PATH)
    found = json.loads(lines[1])["result"]
    assert found["resultType"] == "complete" and "half-even" in found["content"][0]["text"]


@pytest.mark.parametrize(
    "frames",
    [
        # 2026-07-28 envelopes the server refuses or methods it has not: its errors
        [request(1, "server/discover", {}), recall(2, meta=ENVELOPE)],
        [request(1, "server/discover", {"_meta": {**ENVELOPE, "x": 1}}), recall(2, meta={})],
        [recall(1, meta={versions.PROTOCOL_VERSION_KEY: "2026-07-28"}), recall(2, meta=ENVELOPE)],
        [recall(1, meta={**ENVELOPE, versions.PROTOCOL_VERSION_KEY: "2099-01-01"})],
        [request(1, "ping", {"_meta": ENVELOPE}), request(2, "tools/list", {"_meta": ENVELOPE})],
        [request(1, "initialize", {**HELLO, "protocolVersion": "2025-11-25", "_meta": ENVELOPE})],
    ],
)
def test_what_the_lean_path_leaves_of_2026_07_28_the_server_answers(
    shim: Shim, frames: list[bytes]
) -> None:
    lines, took = shim.both(frames)
    assert "enyal_client.mcp.server" in took, "the server answered"
    assert all("result" in r or "error" in r for r in map(json.loads, lines))


@pytest.mark.parametrize(
    "frames",
    [
        # a message the lean path leaves, right after initialize: the tool list
        [request(2, "tools/list"), recall(3)],
        # after a lean recall: an argument it does not send, then the rest is the server's
        [recall(2), recall(3, content_type="fact"), recall(4)],
        # values the daemon refuses: the server's error, under its id
        [recall(2, limit=0), recall(3, query=""), recall(4, asked_at="someday")],
        # values of another type (a bool is no limit), or not an object
        [recall(2, limit=True), recall(3, limit="5"), request(4, "tools/call", {"name": 7})],
        # a hidden field, a tool the lean path does not call, a null id
        [recall(2, cwd="/"), request(3, "tools/call", {"name": "enyal_stats"})],
        [b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', recall(3)],
        # not JSON; a lone surrogate (JSON allows it, UTF-8 cannot carry it); a batch
        [b'{"jsonrpc": "2.0", "id": 2, "method": ', recall(3, query="rounded \\ud83d")],
        [b'{"jsonrpc": "2.0", "m', recall(3)],  # cut in a string: scripts/torture's crash
        [b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', recall(3)],
        # a 2026-07-28 request in the middle, and a notification of another kind
        [
            request(2, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "x"}}),
            b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}',
            recall(3),
        ],
    ],
)
def test_what_the_lean_path_leaves_the_server_answers(shim: Shim, frames: list[bytes]) -> None:
    lines, took = shim.both(opening("2025-11-25") + frames)
    assert "enyal_client.mcp.server" in took, "the server answered"
    answered = [json.loads(line) for line in lines]
    assert answered[0]["result"]["protocolVersion"] == "2025-11-25"
    assert all("result" in r or "error" in r for r in answered)


def test_a_request_before_initialize_and_an_oversize_frame_are_the_servers(shim: Shim) -> None:
    huge = recall(2, query="x" * (2 * 1024 * 1024))
    lines, took = shim.both([recall(1), *opening("2025-06-18")[:1], huge, recall(3)])
    replies = [json.loads(line) for line in lines]
    assert [r["id"] for r in replies] == [1, 1, 2, 3]
    assert "error" in replies[0] and "error" in replies[2]
    assert "enyal_client.mcp.server" in took


def test_no_daemon_running_the_server_starts_one(
    tmp_path: Path, home: Path, autostarted: None
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    lines, took = Shim(dict(os.environ), project).session([*opening("2025-11-25"), recall(2)])
    result = json.loads(lines[1])["result"]
    assert not result.get("isError") and result["structuredContent"]["results"] == []
    assert "enyal_client.mcp.server" in took


def test_eof_after_initialize_loads_nothing_more(shim: Shim) -> None:
    lines, took = shim.session(opening("2025-11-25"))
    assert json.loads(lines[0])["result"]["serverInfo"]["name"] == "enyal"
    assert not took & NOT_ON_THE_LEAN_PATH


def test_the_lean_arguments_are_the_recall_tools() -> None:
    """What the lean path sends as it comes must be the tool's own arguments, each with the
    JSON type its schema gives: a field the tool does not offer goes to the server."""
    schema = next(t for t in tools.definitions("2025-11-25") if t.name == lean_start.RECALL_TOOL)
    offered = schema.input_schema["properties"]
    json_type = {str: "string", int: "integer"}
    for name, kind in lean_start.LEAN_ARGUMENTS.items():
        assert name in offered
        alternatives = offered[name].get("anyOf", [offered[name]])
        kinds = {a.get("type") for a in alternatives}
        kinds |= {json_type[type(v)] for a in alternatives for v in a.get("enum", [])}
        assert json_type[kind] in kinds, (name, alternatives)
    assert tools.BY_NAME[lean_start.RECALL_TOOL].method == "recall"

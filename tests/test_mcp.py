"""The enyal-mcp shim, end to end.

The official MCP SDK is the client and spawns the real `enyal-mcp` executable
over stdio; the shim starts a real daemon for the test's ENYAL_HOME on its
first tool call. The SDK runs in its default mode ("auto": probe with
server/discover, so it speaks 2026-07-28 to us) and in its legacy mode (the
initialize handshake, 2025-11-25). A raw test drives the shim over pipes by
hand for what the SDK hides: discover without a client, cancellation,
malformed frames, version negotiation and the exit on EOF.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from conftest import stop_daemon_of_home
from enyal_client.mcp.facts import DATA_NOTE
from enyal_protocol import paths as enyal_paths
from enyal_protocol import wire as p

MCP_BIN = Path(sys.executable).parent / "enyal-mcp"
TOOL_NAMES = {
    "enyal_remember",
    "enyal_recall",
    "enyal_recall_by_scope",
    "enyal_get",
    "enyal_update",
    "enyal_forget",
    "enyal_restore",
    "enyal_confirm",
    "enyal_consolidate",
    "enyal_index",
    "enyal_recall_batch",
    "enyal_list",
    "enyal_stats",
    "enyal_link",
    "enyal_unlink",
    "enyal_edges",
    "enyal_traverse",
    "enyal_impact",
    "enyal_history",
    "enyal_health",
    "enyal_review",
    "enyal_analytics",
    "enyal_task_add",
    "enyal_task_list",
    "enyal_task_update",
    "enyal_brief",
}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# mode -> the protocol version the SDK ends up speaking with us
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


@pytest.fixture
def stderr_log(tmp_path: Path) -> Iterator[TextIO]:
    with (tmp_path / "enyal-mcp.stderr").open("w+") as f:
        yield f


class Session:
    """An SDK client on the shim, and every non-message its stdout produced."""

    def __init__(self, client: Client, garbage: list[Exception]) -> None:
        self.client = client
        self.garbage = garbage

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """A successful call's structured content, checked against its text twin."""
        result = await self.client.call_tool(name, arguments or {})
        assert not result.is_error, result.content
        (block,) = result.content
        assert isinstance(block, types.TextContent)
        text = block.text
        if text.startswith(DATA_NOTE):  # recalled memories are framed as data
            text = text[len(DATA_NOTE) :]
        assert json.loads(text) == result.structured_content
        return result.structured_content


@asynccontextmanager
async def shim(mode: str, cwd: Path, stderr: TextIO) -> AsyncIterator[Session]:
    params = StdioServerParameters(
        command=str(MCP_BIN), args=["--log-level", "INFO"], env=dict(os.environ), cwd=cwd
    )
    garbage: list[Exception] = []

    async def on_message(message: Any) -> None:
        # The SDK hands over any stdout line that is not a JSON-RPC message as an exception.
        if isinstance(message, Exception):
            garbage.append(message)

    async with Client(
        stdio_client(params, errlog=stderr), mode=mode, message_handler=on_message
    ) as client:
        yield Session(client, garbage)


def run(fn: Any, *args: Any) -> Any:
    return anyio.run(fn, *args)


# --- with the SDK -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_lists_tools_from_the_protocol_structs(
    mode: str, project: Path, stderr_log: TextIO
) -> None:
    async def body() -> list[types.Tool]:
        async with shim(mode, project, stderr_log) as s:
            assert s.client.protocol_version == MODES[mode]
            assert s.client.server_info is not None and s.client.server_info.name == "enyal"
            assert "enyal_recall" in (s.client.instructions or "")
            listed = (await s.client.list_tools()).tools
            assert not s.garbage
            return listed

    listed = run(body)
    assert {t.name for t in listed} == TOOL_NAMES
    for tool in listed:
        text = json.dumps(tool.input_schema) + json.dumps(tool.output_schema)
        assert "$ref" not in text, f"{tool.name}: schemas must be self-contained"
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert "cwd" not in tool.input_schema["properties"], "the shim fills cwd itself"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description and len(tool.description) > 80
        assert tool.annotations is not None
    tools = {t.name: t for t in listed}
    remember = tools["enyal_remember"].input_schema["properties"]
    assert set(remember["content_type"]["enum"]) == set(p.CONTENT_TYPES)
    assert set(remember["scope"]["enum"]) == set(p.SCOPE_LEVELS)
    assert remember["confidence"]["minimum"] == 0 and remember["confidence"]["maximum"] == 1
    assert tools["enyal_remember"].input_schema["required"] == ["content"]
    limit = tools["enyal_recall"].input_schema["properties"]["limit"]
    assert (limit["type"], limit["minimum"], limit["maximum"]) == ("integer", 1, 100)
    forget_out = tools["enyal_forget"].output_schema
    assert forget_out is not None
    assert set(forget_out["properties"]["action"]["enum"]) == {"deprecated", "deleted"}
    assert tools["enyal_recall"].annotations.read_only_hint
    assert tools["enyal_forget"].annotations.destructive_hint
    restore_in = tools["enyal_restore"].input_schema
    assert set(restore_in["properties"]) == {"id", "version"} and restore_in["required"] == ["id"]
    # Listing tools needs no daemon, so none was started.
    assert not enyal_paths.resolve().socket.exists()


@pytest.mark.parametrize("mode", MODES)
def test_calls_every_tool(mode: str, project: Path, stderr_log: TextIO, autostarted: None) -> None:
    app = project / "src" / "app.py"

    async def body() -> None:
        async with shim(mode, project, stderr_log) as s:
            made = await s.call(
                "enyal_remember",
                {
                    "content": "The build uses ruff for linting, with a line length of 100.",
                    "content_type": "convention",
                    "tags": ["tooling"],
                },
            )
            assert made["action"] == "created"
            assert made["entry"]["scope_level"] == "project"
            assert made["entry"]["scope_path"] == str(project), "scoped by the shim's cwd"
            lint_id = made["id"]
            in_file = await s.call(
                "enyal_remember",
                {
                    "content": "app.py prints a greeting at import time on purpose.",
                    "scope": "file",
                    "scope_path": "src/app.py",
                },
            )
            assert in_file["entry"]["scope_path"] == str(app)

            found = await s.call("enyal_recall", {"query": "which linter does the build use"})
            assert found["results"][0]["id"] == lint_id
            assert found["results"][0]["written_by"] == "agent"  # filled by the shim
            raw = await s.client.call_tool("enyal_recall", {"query": "linter"})
            assert isinstance(raw.content[0], types.TextContent)
            assert raw.content[0].text.startswith(DATA_NOTE)
            tagged = await s.call("enyal_recall", {"query": "linting", "tags": ["tooling"]})
            assert [h["id"] for h in tagged["results"]] == [lint_id]

            scoped = await s.call(
                "enyal_recall_by_scope", {"query": "greeting", "file_path": str(app), "limit": 5}
            )
            assert scoped["results"][0]["id"] == in_file["id"]
            assert [sc["level"] for sc in scoped["scopes"]] == [
                "file",
                "project",
                "workspace",
                "global",
            ]

            got = await s.call("enyal_get", {"id": lint_id})
            assert got["content"].startswith("The build uses ruff")
            changed = await s.call(
                "enyal_update",
                {"id": lint_id, "content": "The build uses ruff, line length 100.", "tags": []},
            )
            assert (changed["content"], changed["tags"]) == (
                "The build uses ruff, line length 100.",
                [],
            )
            both = await s.call("enyal_recall_batch", {"queries": ["linter", "greeting"]})
            assert [r["results"][0]["id"] for r in both["results"]] == [lint_id, in_file["id"]]
            listed = await s.call("enyal_list", {"sort": "created", "order": "asc", "limit": 1})
            assert [e["id"] for e in listed["entries"]] == [lint_id] and listed["next"]
            confirmed = await s.call("enyal_confirm", {"id": lint_id})
            assert confirmed["confirm_count"] == 1 and confirmed["confirmed_at"] is not None
            scratch = await s.call(
                "enyal_remember",
                {"content": "The flaky test is test_upload.", "importance": 5, "ttl": "2h"},
            )
            assert scratch["entry"]["importance"] == 5 and scratch["entry"]["expires_at"]
            await s.call("enyal_forget", {"id": scratch["id"], "hard": True})
            assert await s.call("enyal_forget", {"id": lint_id}) == {
                "id": lint_id,
                "action": "deprecated",
            }
            assert (await s.call("enyal_get", {"id": lint_id}))["is_deprecated"] is True
            back = await s.call("enyal_restore", {"id": lint_id})  # enyal_forget undone
            assert back["is_deprecated"] is False and back["changed"] is True
            assert (await s.call("enyal_restore", {"id": lint_id}))["changed"] is False
            first = await s.call("enyal_restore", {"id": lint_id, "version": 1})
            assert first["content"].startswith("The build uses ruff for linting")
            await s.call("enyal_forget", {"id": lint_id})
            stats = await s.call("enyal_stats")
            assert (stats["total"], stats["active"], stats["deprecated"]) == (2, 1, 1)

            missing = await s.client.call_tool("enyal_get", {"id": "no-such-id"})
            assert missing.is_error
            (block,) = missing.content
            assert isinstance(block, types.TextContent)
            assert "not found" in block.text and "no-such-id" in block.text
            assert not s.garbage

    run(body)
    assert "connected to the daemon" in Path(stderr_log.name).read_text(), "logs go to stderr"


# Arguments a tool's schema refuses, each with what its message must name.
BAD_ARGUMENTS: list[tuple[str, dict[str, Any], str]] = [
    ("enyal_recall", {"query": "x", "limit": 500}, "$.limit"),
    ("enyal_recall", {}, "query"),
    ("enyal_remember", {"content": "x", "scope": "galaxy"}, "$.scope"),
    ("enyal_remember", {"content": "x", "cwd": "/elsewhere"}, "cwd"),
    ("enyal_get", {"id": "x", "extra": 1}, "extra"),
    # Said in plain words too, with the bound, for the agent to correct its call.
    ("enyal_remember", {"content": "x", "ttl": "99999999999d"}, "at most 36500 days"),
    ("enyal_recall", {"query": "x", "limit": 500}, "limit must be 1–100"),
    ("enyal_consolidate", {"threshold": 0.5}, "threshold"),
]


@pytest.mark.parametrize("mode", MODES)
def test_refused_arguments_are_tool_errors_the_model_reads(
    mode: str, project: Path, stderr_log: TextIO
) -> None:
    """From MCP 2025-11-25 (SEP-1303, both eras here) arguments the schema refuses come back
    as an isError result: a client shows those to the model, which corrects its call; a
    protocol error it would never see. A tool that does not exist stays a protocol error."""

    async def body() -> None:
        async with shim(mode, project, stderr_log) as s:
            for name, arguments, needle in BAD_ARGUMENTS:
                refused = await s.client.call_tool(name, arguments)
                assert refused.is_error, (name, arguments)
                (block,) = refused.content
                assert isinstance(block, types.TextContent)
                assert f"invalid arguments for {name}" in block.text, block.text
                assert needle in block.text, block.text
            with pytest.raises(MCPError) as info:
                await s.client.call_tool("enyal_nope", {})
            assert info.value.code == p.INVALID_PARAMS
            assert "unknown tool" in info.value.message
            if mode == "legacy":
                await s.client.session.send_ping()  # still answered after the errors

    run(body)
    assert not enyal_paths.resolve().socket.exists(), "refused before reaching the daemon"


def test_refused_arguments_stay_protocol_errors_before_2025_11_25(
    project: Path, stderr_log: TextIO
) -> None:
    """A client of an earlier revision was promised -32602 for them (2025-06-18's tools page)."""
    raw = RawShim(project, stderr_log)
    try:
        hello = {"capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        answer = raw.ask(1, "initialize", {**hello, "protocolVersion": "2025-06-18"})
        assert answer["result"]["protocolVersion"] == "2025-06-18"
        for i, (name, arguments, needle) in enumerate(BAD_ARGUMENTS, start=2):
            error = raw.ask(i, "tools/call", {"name": name, "arguments": arguments})["error"]
            assert error["code"] == p.INVALID_PARAMS and needle in error["message"], error
    finally:
        raw.reap()
    assert not enyal_paths.resolve().socket.exists(), "refused before reaching the daemon"


def test_graph_and_validity_tools(project: Path, stderr_log: TextIO, autostarted: None) -> None:
    async def body() -> None:
        async with shim("legacy", project, stderr_log) as s:
            old = (await s.call("enyal_remember", {"content": "CI runs on Jenkins."}))["id"]
            new = await s.call(
                "enyal_remember",
                {"content": "CI runs on GitHub Actions now.", "supersedes": [old]},
            )
            deploy = (await s.call("enyal_remember", {"content": "Deploys need a green CI."}))["id"]
            edge = await s.call(
                "enyal_link",
                {"source_id": deploy, "target_id": new["id"], "edge_type": "depends_on"},
            )
            assert edge["edge_type"] == "depends_on"
            edges = await s.call("enyal_edges", {"id": new["id"], "direction": "incoming"})
            assert {e["source_id"] for e in edges["edges"]} == {deploy}
            walked = await s.call("enyal_traverse", {"id": deploy, "depth": 2})
            assert [n["entry"]["id"] for n in walked["nodes"]] == [new["id"], old]
            impact = await s.call("enyal_impact", {"id": new["id"]})
            assert [e["id"] for e in impact["direct"]] == [deploy]
            history = await s.call("enyal_history", {"id": old})
            assert [e["id"] for e in history["superseded_by"]] == [new["id"]]
            recalled = await s.call("enyal_recall", {"query": "where does CI run?"})
            assert old not in [h["id"] for h in recalled["results"]]
            health = await s.call("enyal_health")
            assert health["superseded_count"] == 1 and health["active_entries"] == 3
            review = await s.call("enyal_review", {"kind": "orphan"})
            assert review["orphan"] == []
            usage = await s.call("enyal_analytics", {"event_type": "link"})
            assert usage["summary"]["by_type"] == {"link": 1}
            gone = await s.call(
                "enyal_unlink",
                {"source_id": deploy, "target_id": new["id"], "edge_type": "depends_on"},
            )
            assert gone["id"] == edge["id"]
            dup = await s.client.call_tool(
                "enyal_link", {"source_id": new["id"], "target_id": old, "edge_type": "supersedes"}
            )
            assert dup.is_error  # a business failure (conflict), not a protocol fault

    run(body)


def test_consolidate_is_a_dry_run_unless_asked(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    dupes = (
        "The project uses pytest for all tests.",
        "The project uses pytest for all of its tests.",
    )

    async def body() -> None:
        async with shim("auto", project, stderr_log) as s:
            tools = {t.name: t for t in (await s.client.list_tools()).tools}
            schema = tools["enyal_consolidate"].input_schema["properties"]
            assert (schema["threshold"]["minimum"], schema["threshold"]["maximum"]) == (0.8, 0.999)
            assert schema["dry_run"]["default"] is True
            ids = [
                (await s.call("enyal_remember", {"content": text, "dedup": "off"}))["id"]
                for text in dupes
            ]
            dry = await s.call("enyal_consolidate", {})
            assert dry["dry_run"] is True and dry["merged"] == 1
            assert (await s.call("enyal_get", {"id": ids[1]}))["is_deprecated"] is False
            done = await s.call("enyal_consolidate", {"dry_run": False, "scope": "project"})
            assert done["dry_run"] is False and done["merged"] == 1
            (cluster,) = done["clusters"]
            merged = cluster["merged"][0]
            assert (await s.call("enyal_get", {"id": merged}))["is_deprecated"] is True
            history = await s.call("enyal_history", {"id": cluster["survivor"]})
            assert history["versions"][0]["merged_from"] == [merged]
            low = await s.client.call_tool("enyal_consolidate", {"threshold": 0.5})
            assert low.is_error, "below the schema's minimum"

    run(body)


def test_index_resolves_paths_from_the_agents_directory(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    (project / "AGENTS.md").write_text("# Build\n\nBuild with `make all` from the root.\n")

    async def body() -> None:
        async with shim("auto", project, stderr_log) as s:
            r = await s.call("enyal_index", {"paths": ["AGENTS.md"]})
            assert (r["files_seen"], r["chunks_added"]) == (1, 1)
            found = await s.call("enyal_recall", {"query": "how do I build it", "limit": 1})
            hit = found["results"][0]
            assert hit["source_ref"] == f"{project / 'AGENTS.md'}#build"
            assert hit["read_only"] is True
            refused = await s.client.call_tool(
                "enyal_update", {"id": hit["id"], "content": "Build with ninja."}
            )
            assert refused.is_error

    run(body)


def test_reconnects_when_the_daemon_restarts(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    async def body() -> None:
        async with shim("auto", project, stderr_log) as s:
            await s.call("enyal_remember", {"content": "Deployments happen on Tuesdays."})
            stop_daemon_of_home()
            # The shim's pooled connection is now dead; the call must reconnect (starting a
            # new daemon) instead of failing.
            stats = await s.call("enyal_stats")
            assert stats["total"] == 1

    run(body)
    assert "reconnecting to the daemon for stats" in Path(stderr_log.name).read_text()


# --- by hand over pipes --------------------------------------------------------------------


class RawShim:
    """enyal-mcp as a bare subprocess: JSON lines in, every stdout line collected."""

    def __init__(self, cwd: Path, stderr: TextIO) -> None:
        self.proc = subprocess.Popen(
            [str(MCP_BIN)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd
        )
        self.lines: list[bytes] = []
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self._inbox.put(json.loads(line))
        self._inbox.put(None)

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def request(self, req_id: int, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": req_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def receive(self, timeout: float = 10) -> dict[str, Any]:
        msg = self._inbox.get(timeout=timeout)
        assert msg is not None, "the shim closed stdout"
        return msg

    def ask(self, req_id: int, method: str, params: dict[str, Any] | None = None) -> Any:
        self.request(req_id, method, params)
        reply = self.receive()
        assert reply["id"] == req_id
        return reply

    def close_stdin_and_wait(self, timeout: float = 30) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout)
        self._reader.join(timeout)
        return code

    def reap(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def test_raw_protocol_over_pipes(project: Path, stderr_log: TextIO, autostarted: None) -> None:
    shim = RawShim(project, stderr_log)
    try:
        # server/discover is answered at once, without any handshake.
        started = time.monotonic()
        found = shim.ask(1, "server/discover", {"_meta": ENVELOPE})["result"]
        assert time.monotonic() - started < 2
        assert found["supportedVersions"] == ["2026-07-28"]
        assert found["resultType"] == "complete"
        assert found["capabilities"]["tools"] == {"listChanged": False}
        assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "enyal"
        assert {"ttlMs", "cacheScope"} <= found.keys()
        # A probe without the envelope, or naming a version we lack, is refused with an
        # error (never silence), so a dual-era client falls back at once.
        assert shim.ask(2, "server/discover", {})["error"]["code"] == p.INVALID_PARAMS
        future = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
        refused = shim.ask(3, "server/discover", {"_meta": future})["error"]
        assert refused["code"] == -32022
        assert "2025-11-25" in refused["data"]["supported"]

        # Handshake-era requests wait for initialize; ping never does.
        assert shim.ask(4, "tools/list")["error"]["code"] == p.INVALID_REQUEST
        assert shim.ask(5, "ping")["result"] == {}
        hello = {"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
        odd = shim.ask(6, "initialize", {**hello, "protocolVersion": "1999-01-01"})["result"]
        assert odd["protocolVersion"] == "2025-11-25", "unknown version: offer our latest"
        old = shim.ask(7, "initialize", {**hello, "protocolVersion": "2025-03-26"})["result"]
        assert old["protocolVersion"] == "2025-03-26", "a version we speak is echoed"
        shim.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = shim.ask(8, "tools/list")["result"]["tools"]
        assert {t["name"] for t in listed} == TOOL_NAMES
        assert all("outputSchema" not in t and "annotations" in t for t in listed), (
            "2025-03-26 has tool annotations but no structured output"
        )

        # Frames that are not good requests.
        shim.send(b'{"jsonrpc": "2.0", "id": 9, "method": ')
        broken = shim.receive()
        assert (broken["id"], broken["error"]["code"]) == (None, p.PARSE_ERROR)
        assert shim.ask(10, "completion/complete")["error"]["code"] == p.METHOD_NOT_FOUND
        removed = shim.ask(11, "ping", {"_meta": ENVELOPE})["error"]
        assert removed["code"] == p.METHOD_NOT_FOUND, "2026-07-28 has no ping"
        shim.send({"jsonrpc": "2.0", "id": None, "method": "ping"})
        assert shim.receive()["error"]["code"] == p.INVALID_REQUEST, "MCP ids are never null"

        # Calls run concurrently: the first starts the daemon, which takes a while, and a
        # ping sent meanwhile is answered first. A cancelled call is never answered.
        shim.request(20, "tools/call", {"name": "enyal_stats"})
        shim.request(21, "tools/call", {"name": "enyal_stats"})
        cancel = {"requestId": 21, "reason": "changed my mind"}
        shim.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
        assert shim.ask(22, "ping")["result"] == {}
        stats = shim.receive(timeout=60)
        assert stats["id"] == 20
        assert "structuredContent" not in stats["result"], "2025-03-26 predates it"
        assert json.loads(stats["result"]["content"][0]["text"])["total"] == 0

        # EOF on stdin: calls in flight finish, then the shim exits 0.
        assert shim.close_stdin_and_wait() == 0
    finally:
        shim.reap()
    replies = [json.loads(line) for line in shim.lines]
    assert 21 not in [r["id"] for r in replies]
    for reply in replies:  # stdout carried JSON-RPC responses and nothing else
        assert reply["jsonrpc"] == "2.0" and "id" in reply
        assert ("result" in reply) != ("error" in reply)


def test_the_shim_stays_thin() -> None:
    heavy = ["numpy", "onnxruntime", "tokenizers", "apsw", "sqlite3", "mcp", "enyal_daemon"]
    probe = (
        "import sys, enyal_client.mcp.stdio; "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_the_server_freezes_what_start_up_built() -> None:
    """Once the server is loaded, what start-up built is out of the cyclic GC's sight
    (gc.freeze), so a full collection during a call walks only what calls kept."""
    import gc
    import io

    from enyal_client.mcp import stdio

    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        assert stdio.run([], io.BytesIO(b""), io.BytesIO(), None) == 0
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


def test_deep_oversize_and_non_utf8_frames_are_answered_and_the_shim_serves_on(
    project: Path, stderr_log: TextIO
) -> None:
    shim = RawShim(project, stderr_log)
    try:
        deep = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + b"[" * 5000
        shim.send(deep + b"]" * 5000 + b"}}")
        assert shim.receive()["error"]["code"] == p.INVALID_REQUEST
        huge = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "a"}})
        shim.send(huge.encode().replace(b'"a"', b'"' + b"a" * (p.MAX_FRAME_BYTES + 10) + b'"'))
        assert shim.receive()["error"]["code"] == p.TOO_LARGE
        shim.send(b'{"jsonrpc": "2.0", "id": 4, "method": "pi\xffng"}')  # not UTF-8
        assert shim.receive()["error"]["code"] == p.PARSE_ERROR
        assert shim.ask(3, "ping")["result"] == {}  # still serving, and in step
        assert shim.close_stdin_and_wait() == 0
    finally:
        shim.reap()


def test_a_socket_that_is_not_ours_is_a_clear_tool_error(
    project: Path, stderr_log: TextIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENYAL_SOCKET naming a regular file (or another user's socket: tests/test_socket_folder.py):
    the tool call fails saying why, nothing is started, and the file is left alone."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    monkeypatch.setenv("ENYAL_SOCKET", str(notes))
    shim = RawShim(project, stderr_log)
    try:
        hello = {"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
        shim.ask(1, "initialize", {**hello, "protocolVersion": "2025-11-25"})
        shim.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        args = {"query": "deploy"}
        reply = shim.ask(2, "tools/call", {"name": "enyal_recall", "arguments": args})
        text = json.dumps(reply)
        assert f"{notes} is not a socket" in text and "ENYAL_SOCKET" in text, reply
    finally:
        assert shim.close_stdin_and_wait() == 0
        shim.reap()
    assert notes.read_text() == "my notes\n"


def test_an_oversize_tool_call_is_answered_under_its_own_id(
    project: Path, stderr_log: TextIO
) -> None:
    """Issue 25.8: a frame over the limit is refused under the id it carries, so the client
    stops waiting at once; an "id" nested in the arguments, or inside a string, is not it."""
    shim = RawShim(project, stderr_log)
    big = "a" * (p.MAX_FRAME_BYTES + 10)
    try:
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "enyal_remember", "arguments": {"id": 99, "content": big}},
        }
        shim.send(call)
        reply = shim.receive()
        assert (reply["id"], reply["error"]["code"]) == (7, p.TOO_LARGE)
        # A string id, after a nested object holding an "id" of its own.
        shim.send(
            b'{"jsonrpc": "2.0", "params": {"arguments": {"note": "\\"id\\": 5", "id": 6}}, '
            b'"id": "call-8", "method": "tools/call", "x": "' + big.encode() + b'"}'
        )
        reply = shim.receive()
        assert (reply["id"], reply["error"]["code"]) == ("call-8", p.TOO_LARGE)
        # No readable id before the limit: null, as before.
        shim.send(b'{"jsonrpc": "2.0", "x": "' + big.encode() + b'", "id": 9}')
        assert shim.receive()["id"] is None
        assert shim.ask(10, "ping")["result"] == {}
    finally:
        shim.reap()

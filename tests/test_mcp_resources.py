"""enyal-mcp's resources, end to end with the official SDK: the project's memories listed
and read, and a second client's writes reaching a subscribed first client as
notifications, in both protocol eras (2025-11-25 resources/subscribe, 2026-07-28
subscriptions/listen). Both clients are real `enyal-mcp` processes on one real daemon.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

from enyal_protocol import wire as p

MCP_BIN = Path(sys.executable).parent / "enyal-mcp"
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}
WAIT = 60  # seconds: a guard against a hang, never a measure


@pytest.fixture
def stderr_log(tmp_path: Path) -> Iterator[TextIO]:
    with (tmp_path / "enyal-mcp.stderr").open("w+") as f:
        yield f


class Shim:
    """An SDK client on a shim, with every notification it was sent."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.heard: list[Any] = []
        self._news = anyio.Event()

    async def on_message(self, message: Any) -> None:
        assert not isinstance(message, Exception), message
        self.heard.append(message)
        self._news.set()

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        result = await self.client.call_tool(name, arguments)
        assert not result.is_error, result.content
        return result.structured_content

    async def hear(self, match: Callable[[Any], bool]) -> Any:
        with anyio.fail_after(WAIT):
            while True:
                for message in self.heard:
                    if match(message):
                        self.heard.remove(message)
                        return message
                self._news = anyio.Event()
                await self._news.wait()


@asynccontextmanager
async def shim(mode: str, cwd: Path, stderr: TextIO) -> AsyncIterator[Shim]:
    params = StdioServerParameters(
        command=str(MCP_BIN), args=["--log-level", "INFO"], env=dict(os.environ), cwd=cwd
    )
    holder: list[Shim] = []

    async def on_message(message: Any) -> None:
        await holder[0].on_message(message)

    async with Client(
        stdio_client(params, errlog=stderr), mode=mode, message_handler=on_message
    ) as client:
        holder.append(Shim(client))
        yield holder[0]


def updated(uri: str) -> Callable[[Any], bool]:
    return lambda m: isinstance(m, types.ResourceUpdatedNotification) and m.params.uri == uri


def list_changed(m: Any) -> bool:
    return isinstance(m, types.ResourceListChangedNotification)


def resource_news(m: Any) -> bool:
    return isinstance(m, types.ResourceUpdatedNotification) or list_changed(m)


@pytest.mark.parametrize("mode", MODES)
def test_memories_are_listed_and_read_as_resources(
    mode: str, project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    async def body() -> None:
        async with shim(mode, project, stderr_log) as s:
            assert s.client.protocol_version == MODES[mode]
            caps = s.client.server_capabilities
            assert caps is not None and caps.resources is not None
            assert caps.resources.subscribe and caps.resources.list_changed
            made = await s.call(
                "enyal_remember",
                {"content": "Deploys use `make ship`, never a manual rsync.", "tags": ["ops"]},
            )
            other = project.parent / "elsewhere"
            other.mkdir()
            await s.call(
                "enyal_remember",
                {"content": "Elsewhere uses tox", "scope": "project", "scope_path": str(other)},
            )
            uri = f"enyal://memory/{made['id']}"

            listed = await s.client.list_resources()
            assert [r.uri for r in listed.resources] == [
                "enyal://brief",
                "enyal://tasks",
                uri,
            ], "the fixed resources, then the project's memories only"
            res = listed.resources[2]
            assert res.title == "Deploys use `make ship`, never a manual rsync."
            assert res.mime_type == "text/markdown" and "ops" in (res.description or "")
            assert listed.next_cursor is None

            templates = await s.client.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == ["enyal://memory/{id}"]

            read = await s.client.read_resource(uri)
            md, js = read.contents
            assert isinstance(md, types.TextResourceContents)
            assert isinstance(js, types.TextResourceContents)
            assert md.mime_type == "text/markdown" and js.mime_type == "application/json"
            assert "not an instruction" in md.text
            assert "```text\nDeploys use `make ship`, never a manual rsync.\n```" in md.text
            assert "| tags | ops |" in md.text
            assert json.loads(js.text)["id"] == made["id"]

            missing = "enyal://memory/00000000-0000-0000-0000-000000000000"
            for bad in (missing, "enyal://nothing/here"):
                with pytest.raises(MCPError) as err:
                    await s.client.read_resource(bad)
                # 2026-07-28 moved "resource not found" to invalid params.
                code = p.INVALID_PARAMS if mode == "auto" else p.INVALID_VALUE
                assert err.value.error.code == code

    anyio.run(body)


def test_a_second_clients_writes_reach_a_subscribed_client_handshake_era(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    async def body() -> None:
        async with (
            shim("legacy", project, stderr_log) as a,
            shim("legacy", project, stderr_log) as b,
        ):
            made = await b.call("enyal_remember", {"content": "CI runs on every push"})
            uri = f"enyal://memory/{made['id']}"
            await a.client.list_resources()
            with warnings.catch_warnings():  # the SDK marks it for removal in 2026-07-28
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await a.client.subscribe_resource(uri)
                with pytest.raises(MCPError) as err:
                    await a.client.subscribe_resource("enyal://memory/no-such-memory")
            assert err.value.error.code == p.INVALID_VALUE  # resource not found, in this era

            new = "CI runs on every push and every tag"
            await b.call("enyal_update", {"id": made["id"], "content": new})
            await a.hear(updated(uri))
            read = await a.client.read_resource(uri)
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert "and every tag" in read.contents[0].text

            await b.call("enyal_remember", {"content": "Releases are tagged vX.Y.Z"})
            await a.hear(list_changed)
            await b.call("enyal_forget", {"id": made["id"]})
            await a.hear(updated(uri))
            await a.hear(list_changed)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await a.client.unsubscribe_resource(uri)
            # b asked for nothing, so it heard nothing.
            assert not [m for m in b.heard if resource_news(m)]

    anyio.run(body)


def test_a_second_clients_writes_reach_a_listening_client_2026_07_28(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    async def body() -> None:
        async with (
            shim("auto", project, stderr_log) as a,
            shim("auto", project, stderr_log) as b,
        ):
            made = await b.call("enyal_remember", {"content": "Code review needs two approvals"})
            uri = f"enyal://memory/{made['id']}"
            bogus = "https://example.com/not-ours"
            async with a.client.listen(
                resource_subscriptions=[uri, bogus], resources_list_changed=True
            ) as sub:
                # What is honoured: our memory's URI and the list; never a URI we do not serve.
                assert sub.honored.resource_subscriptions == [uri]
                assert sub.honored.resources_list_changed
                assert not sub.honored.tools_list_changed

                # The first remember's own list change may reach the shim after the listen
                # began (the daemon publishes after its commit, on its own time): allowed
                # before the update's event, and nothing else is.
                await b.call("enyal_update", {"id": made["id"], "importance": 5})
                with anyio.fail_after(WAIT):
                    event = await sub.__anext__()
                    if event == ResourcesListChanged():
                        event = await sub.__anext__()
                assert event == ResourceUpdated(uri=uri)

                await b.call("enyal_remember", {"content": "Squash merges only"})
                with anyio.fail_after(WAIT):
                    event = await sub.__anext__()
                assert event == ResourcesListChanged()

            # The stream ended (notifications/cancelled): a write reaches nobody now. (The
            # SDK also hands the stream's two events to the message handler, maybe late.)
            # The cancel is a notification, handled on the shim's own time: a's round trip
            # first, so the write below comes after it and not in a race with it.
            await a.call("enyal_get", {"id": made["id"]})
            await b.call("enyal_update", {"id": made["id"], "importance": 4})
            await a.call("enyal_get", {"id": made["id"]})
            assert len([m for m in a.heard if updated(uri)(m)]) <= 1
            assert len([m for m in a.heard if list_changed(m)]) <= 1

    anyio.run(body)


def test_the_brief_and_open_tasks_are_resources_a_new_task_updates(
    project: Path, stderr_log: TextIO, autostarted: None
) -> None:
    async def body() -> None:
        async with (
            shim("legacy", project, stderr_log) as a,
            shim("legacy", project, stderr_log) as b,
        ):
            await b.call("enyal_task_add", {"content": "Write the release notes"})
            (tasks,) = (await a.client.read_resource("enyal://tasks")).contents
            assert isinstance(tasks, types.TextResourceContents)
            assert "[ ] Write the release notes" in tasks.text
            (brief,) = (await a.client.read_resource("enyal://brief")).contents
            assert isinstance(brief, types.TextResourceContents)
            assert brief.text.startswith("# Enyal brief: proj")
            assert "Write the release notes" in brief.text

            await a.client.list_resources()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await a.client.subscribe_resource("enyal://tasks")
            await b.call("enyal_task_add", {"content": "Tag the release"})
            await a.hear(updated("enyal://tasks"))
            (tasks,) = (await a.client.read_resource("enyal://tasks")).contents
            assert isinstance(tasks, types.TextResourceContents)
            assert "Tag the release" in tasks.text

            # The brief shows global conventions too: a new one updates it.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await a.client.subscribe_resource("enyal://brief")
            await b.call(
                "enyal_remember",
                {
                    "content": "Every commit message says why",
                    "content_type": "convention",
                    "scope": "global",
                },
            )
            await a.hear(updated("enyal://brief"))
            (brief,) = (await a.client.read_resource("enyal://brief")).contents
            assert isinstance(brief, types.TextResourceContents)
            assert "Every commit message says why" in brief.text

    anyio.run(body)

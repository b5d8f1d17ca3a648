"""enyal_hook: the tool Claude Code's `type: "mcp_tool"` hooks call, so an event is
answered over this shim's warm daemon connection instead of by a new process.

Claude Code (2.1.197, read from its hook runner) calls `tools/call` with the hook's
`input`, each string's `${path}` filled from the hook's JSON (an object is filled in as
JSON text, a missing path as ""), joins the result's text blocks and parses them as a
command hook's stdout; an isError result is a non-blocking error. So the text here is
exactly what `enyal hook EVENT` prints, from the same code (enyal_protocol/hooks).

Not in tools/list: Claude Code calls a hook's tool by name on the connected client
(no lookup in the listed tools), and a listed tool would cost every session's context
its definition and offer the agent a tool that is not for it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from enyal_protocol import config
from enyal_protocol.hooks.answer import COMMON_FIELDS, EVENT, FIELDS, answer
from enyal_protocol.hooks.caller import HookInputError

from ..params import call
from ..pool import Pool
from ..transport import ClientError, RpcError
from .messages import CallToolResult, TextContent

log = logging.getLogger(__name__)
NAME = "enyal_hook"
# Objects in the hook input, which reach the tool as JSON text.
OBJECTS = frozenset({"tool_input", "tool_response"})
ARGS = sorted({*COMMON_FIELDS, *(f for fields in FIELDS.values() for f in fields)})


class _Linked:
    """The hook logic's Caller over the shim's pool (its connections kept open), through
    the call helper every client shares (params checked before they are sent)."""

    def __init__(self, link: Pool) -> None:
        self._link = link

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return call(self._link, method, params, dict[str, Any])


class InvalidArguments(Exception):
    pass


def hook_input(arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The event and the hook's input, rebuilt from the tool's arguments."""
    event = arguments.get("event")
    if event not in FIELDS:
        raise InvalidArguments(f"event must be one of {', '.join(sorted(FIELDS))}")
    data: dict[str, Any] = {}
    for name, value in arguments.items():
        if name == "event":
            continue
        if name not in ARGS or not isinstance(value, str):
            raise InvalidArguments(f"{name} is not a string field of a hook's input")
        if name in OBJECTS and value.startswith("{"):
            try:
                data[name] = json.loads(value)
                continue
            except json.JSONDecodeError:
                pass
        data[name] = value
    return str(event), data


def run(link: Pool, event: str, data: dict[str, Any]) -> CallToolResult:
    try:
        out = answer(_Linked(link), event, data)
    except (RpcError, HookInputError, config.ConfigError) as exc:
        return _failed(f"enyal_hook {EVENT[event]} failed: {exc}")
    except (ClientError, OSError) as exc:
        log.warning("enyal_hook: no daemon: %s", exc)
        return _failed(f"enyal_hook failed: the Enyal daemon is unavailable: {exc}")
    return CallToolResult(content=[TextContent(text=json.dumps(out, ensure_ascii=False))])


def _failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=message)], is_error=True)

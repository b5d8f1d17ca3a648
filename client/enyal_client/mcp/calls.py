"""Running one tool call against the daemon and shaping what the agent sees.

Failures the agent can act on (no such entry, a value the daemon refuses, no
daemon at all) come back as an isError tool result with a plain message, so
the model reads them and corrects course; they are not protocol errors.
"""

from __future__ import annotations

import logging

import msgspec

from enyal_protocol import wire as p

from ..pool import Pool
from ..transport import ClientError, RpcError
from . import facts
from .messages import CallToolResult, TextContent
from .tools import ToolSpec

log = logging.getLogger(__name__)

# Methods whose results carry stored memories back to the model, framed as data.
RECALLING = frozenset(name for name, method in p.METHODS.items() if method.returns_memories)


def run(link: Pool, spec: ToolSpec, params: p.Params, structured: bool) -> CallToolResult:
    try:
        raw = link.call_raw(spec.method, params)
    except RpcError as exc:
        kind = p.ERROR_NAMES.get(exc.code, f"error {exc.code}")
        return failed(f"{spec.name} failed ({kind}): {exc.message}")
    except (ClientError, OSError) as exc:
        log.warning("%s: no daemon: %s", spec.name, exc)
        return failed(f"{spec.name} failed: the Enyal daemon is unavailable: {exc}")
    # The text block repeats the JSON for clients that show only text content.
    text = raw.decode()
    if spec.text_field is not None:
        text = str(msgspec.json.decode(raw)[spec.text_field])
    return CallToolResult(
        content=[TextContent(text=facts.DATA_NOTE + text if spec.method in RECALLING else text)],
        structured_content=msgspec.Raw(raw) if structured else msgspec.UNSET,
    )


def failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=message)], is_error=True)

"""`enyal-mcp`'s first messages, answered before msgspec and the server are loaded (issue 30:
spawn → first recall ≤ 60 ms; the server's imports alone were ~40 ms of 123: msgspec,
the wire's Structs, the tool table's schemas, logging, threads). As `enyal recall`'s lean
path (commands/lean_recall.py) does for the CLI.

What this path answers, a message at a time on the reading thread, with the standard
library's JSON accelerator (enyal_protocol/lean_json.py) and the hooks' connection
(hook_rpc.py):
- `initialize` (the handshake era), answered as server.py answers it, from facts.py;
- `notifications/initialized`, which needs nothing;
- `ping` (the handshake era's);
- `server/discover` (2026-07-28's opening);
- `tools/call` of enyal_recall, in either era, with arguments among LEAN_ARGUMENTS, each
  of its plain JSON type, to a daemon already on our socket: the result as calls.py
  shapes it (and a 2026-07-28 result as server.py's Era finishes it).

The first message it does not answer, in any way (any other method or argument, a
2026-07-28 envelope the server would refuse, a frame that is not plain JSON, an
oversize one, a daemon that refuses a value or is not running, any failure), is
handed to the server with the version initialize settled, and the server reads the
rest of the stream: it then meets and answers that message itself, so each error is
said in one place. A recall handed over after the daemon answered is asked twice,
which is harmless: recall changes nothing when it fails. tests/test_mcp_lean_start.py
holds each answer to the server's, byte for byte."""

from __future__ import annotations

import os

from enyal_protocol import __version__, lean_json
from enyal_protocol.framing import MAX_FRAME_BYTES

from ..hook_rpc import HookConnection
from ..reach import ClientError
from . import facts, versions

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from typing import IO, Any

    from .wire import LineReader

RECALL_TOOL = "enyal_recall"
# The recall arguments this path sends as they come, with the JSON type each must have
# (bool is not an int here, as it is not to the protocol's Structs); the daemon checks
# their values, and a value it refuses goes to the server, which says why.
LEAN_ARGUMENTS: dict[str, type] = {
    "query": str,
    "limit": int,
    "scope": str,
    "asked_at": str,
    "budget_tokens": int,
}


class Handover:
    """Where the server takes over: the version initialize settled (None before it), and
    the stream to read from, starting with the line this path did not answer."""

    def __init__(self, negotiated: str | None, stream: LineReader) -> None:
        self.negotiated = negotiated
        self.stream = stream


class _Replay:
    """The stdin the server reads: the line this path read and did not answer, then the
    rest, so that the server's reader (wire.lines) sees the stream as it came."""

    def __init__(self, first: bytes, rest: IO[bytes]) -> None:
        self._first: bytes | None = first
        self._rest = rest

    def readline(self, limit: int = -1, /) -> bytes:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._rest.readline(limit)


class _NotHere(Exception):
    """A message this path leaves to the server."""


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> Handover | None:
    """Answer the session's first messages; None when stdin ends first, else the handover."""
    negotiated: str | None = None
    daemon: HookConnection | None = None
    try:
        while line := stdin.readline(MAX_FRAME_BYTES + 1):
            try:
                if len(line) > MAX_FRAME_BYTES or not line.endswith(b"\n"):
                    raise _NotHere  # oversize, or the last line cut short: wire.lines's
                msg = _message(line)
                method, req_id = msg["method"], msg.get("id")
                modern = _modern(msg.get("params", {}))
                if req_id is None:
                    if method != "notifications/initialized":
                        raise _NotHere
                    continue
                if method == "initialize" and modern is None:
                    result, negotiated = _initialize(msg)
                elif method == "ping" and modern is None:
                    result = "{}"
                elif method == "server/discover" and modern is not None:
                    result = _discover()
                elif method == "tools/call" and (modern or negotiated) is not None:
                    daemon = daemon or HookConnection(autostart=False)
                    result = _recall(daemon, msg, modern or negotiated or "")
                else:
                    raise _NotHere
                frame = _response(req_id, result if modern is None else _finished(result))
            except (_NotHere, ValueError, RecursionError):
                # ValueError: not JSON (lean_json), or a lone surrogate JSON allows and
                # UTF-8 cannot carry (the server mends it: mcp/wire.py); RecursionError:
                # nested deeper than we read. The server says what each is.
                return Handover(negotiated, _Replay(line, stdin))
            try:
                stdout.write(frame)
                stdout.flush()
            except (OSError, ValueError):  # the client stopped reading: as the Writer, stop
                return None
        return None
    finally:
        if daemon is not None:
            daemon.close()


def _message(line: bytes) -> dict[str, Any]:
    """A request or notification, as plain JSON, or _NotHere."""
    msg = lean_json.loads(line)
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        raise _NotHere
    method, req_id, params = msg.get("method"), msg.get("id"), msg.get("params", {})
    if not isinstance(method, str) or not isinstance(params, dict):
        raise _NotHere
    if req_id is not None and (isinstance(req_id, bool) or not isinstance(req_id, int | str)):
        raise _NotHere
    if ("id" in msg and req_id is None) or "result" in msg or "error" in msg:
        raise _NotHere  # a null id, or a response: the server says what it does with them
    return msg


def _modern(params: dict[str, Any]) -> str | None:
    """The 2026-07-28 version a request's envelope names (versions.modern_version), None for
    a handshake-era request; _NotHere for an envelope the server refuses, and says why."""
    if not versions.is_modern(params):
        return None
    meta = params["_meta"]
    version = meta[versions.PROTOCOL_VERSION_KEY]
    if versions.CLIENT_CAPABILITIES_KEY not in meta or version not in versions.MODERN_VERSIONS:
        raise _NotHere
    return str(version)


def _server_info() -> dict[str, str]:
    """server.py's SERVER_INFO, as its Implementation Struct writes it."""
    return {"name": facts.NAME, "version": __version__, "title": facts.TITLE}


def _finished(result: str) -> str:
    """What every 2026-07-28 result carries (server.py Era.finish), written first, as the
    result Structs' base (messages.Result) puts its fields first."""
    envelope = (
        f'"resultType":"complete","_meta":{_dumps({versions.SERVER_INFO_KEY: _server_info()})}'
    )
    return f"{{{envelope}}}" if result == "{}" else f"{{{envelope},{result[1:]}"


def _discover() -> str:
    """server/discover's result before _finished (server.py _discover): the cache hints of
    messages.CacheableResult first, then its own fields."""
    result = {
        "ttlMs": facts.TOOLS_TTL_MS,
        "cacheScope": "public",
        "supportedVersions": list(versions.MODERN_VERSIONS),
        "capabilities": facts.CAPABILITIES,
        "instructions": facts.INSTRUCTIONS,
    }
    return _dumps(result)


def _initialize(msg: dict[str, Any]) -> tuple[str, str]:
    """initialize's result as JSON text (server.py _initialize), and the version it settles."""
    requested = msg.get("params", {}).get("protocolVersion")
    if not isinstance(requested, str):
        raise _NotHere
    version = versions.negotiate_handshake(requested)
    result = {
        "protocolVersion": version,
        "capabilities": facts.CAPABILITIES,
        "serverInfo": _server_info(),
        "instructions": facts.INSTRUCTIONS,
    }
    return _dumps(result), version


def _recall(daemon: HookConnection, msg: dict[str, Any], version: str) -> str:
    """tools/call enyal_recall's result as JSON text (calls.py run), or _NotHere."""
    params = msg.get("params", {})
    arguments = params.get("arguments", {})
    if params.get("name") != RECALL_TOOL or not isinstance(arguments, dict):
        raise _NotHere
    for name, value in arguments.items():
        kind = LEAN_ARGUMENTS.get(name)
        if kind is None or isinstance(value, bool) or not isinstance(value, kind):
            raise _NotHere
    try:
        _, raw = daemon.call_with_text("recall", arguments | {"cwd": os.getcwd()})
    except (ClientError, OSError):  # no daemon on our socket, a refusal, a cwd deleted
        raise _NotHere from None
    content = _dumps([{"type": "text", "text": facts.DATA_NOTE + raw}])
    if versions.at_least(version, versions.STRUCTURED_OUTPUT):
        return f'{{"content":{content},"structuredContent":{raw}}}'
    return f'{{"content":{content}}}'


def _response(req_id: int | str, result: str) -> bytes:
    """The JSON-RPC response line, as the server's Writer writes it (compact, UTF-8)."""
    return f'{{"jsonrpc":"2.0","id":{_dumps(req_id)},"result":{result}}}\n'.encode()


def _dumps(value: Any) -> str:
    return lean_json.dumps(value, ensure_ascii=False, separators=(",", ":"))

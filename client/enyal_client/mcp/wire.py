"""JSON-RPC 2.0 on stdio, as MCP frames it: one JSON message a line, each way.

Parsing turns every bad frame into a Fault (what to answer); writing keeps
whole lines whole, because responses come from several threads at once.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from typing import IO, Any, NamedTuple, Protocol

import msgspec
from msgspec import UNSET, Struct, UnsetType

from enyal_protocol import wire as p
from enyal_protocol.well_formed import well_formed

log = logging.getLogger(__name__)

PARSE_ERROR = p.PARSE_ERROR
INVALID_REQUEST = p.INVALID_REQUEST
METHOD_NOT_FOUND = p.METHOD_NOT_FOUND
INVALID_PARAMS = p.INVALID_PARAMS
INTERNAL_ERROR = p.INTERNAL_ERROR
UNSUPPORTED_PROTOCOL_VERSION = -32022  # MCP 2026-07-28

RequestId = int | str


class Fault(Exception):
    """A protocol fault, answered with a JSON-RPC error object (never a tool result)."""

    def __init__(
        self, code: int, message: str, data: Any = None, *, request_id: RequestId | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.request_id = request_id


class Message(Struct, kw_only=True):
    jsonrpc: str
    method: str | UnsetType = UNSET
    # No None: MCP forbids null ids, and a missing id is what makes a notification.
    id: RequestId | UnsetType = UNSET
    params: dict[str, Any] | None = None
    # Only a response carries these; we send no requests, so responses are dropped.
    result: Any = UNSET
    error: Any = UNSET

    @property
    def is_notification(self) -> bool:
        return isinstance(self.id, UnsetType)


_any_decoder = msgspec.json.Decoder()


def _usable_id(value: Any) -> RequestId | None:
    if isinstance(value, bool):  # bool is an int to Python, never an id to JSON-RPC
        return None
    return value if isinstance(value, int | str) else None


TOO_DEEP = "JSON nested too deeply"


def _with_surrogates(line: bytes, exc: msgspec.DecodeError) -> Any:
    """A message msgspec refused for a lone surrogate escaped in it (JSON allows one;
    Claude Code's JSON.stringify writes one for half an emoji in a prompt), read with
    the surrogate replaced: refused, its id unread, the client would wait for an answer."""
    if "surrogate" not in str(exc):
        raise Fault(PARSE_ERROR, f"malformed JSON: {exc}") from None
    try:
        obj = json.loads(line)
    except ValueError:
        raise Fault(PARSE_ERROR, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise Fault(INVALID_REQUEST, TOO_DEEP) from None
    envelope = {k: obj.get(k) for k in ("id", "method")} if isinstance(obj, dict) else None
    if envelope is None or well_formed(envelope) != envelope:
        # Only text inside params is mended: an id answered as another id (or a method
        # read as another) would answer a request nobody sent.
        raise Fault(PARSE_ERROR, f"malformed JSON: {exc}")
    return well_formed(obj)


def parse(line: bytes) -> Message:
    try:
        obj = _any_decoder.decode(line)
    except msgspec.DecodeError as exc:
        obj = _with_surrogates(line, exc)
    except UnicodeDecodeError as exc:  # msgspec raises this, not DecodeError, for bad UTF-8
        raise Fault(PARSE_ERROR, f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    except RecursionError:  # valid JSON, but deeper than msgspec decodes: as the daemon says
        raise Fault(INVALID_REQUEST, TOO_DEEP) from None
    if isinstance(obj, list):
        raise Fault(INVALID_REQUEST, "JSON-RPC batches are not supported (MCP 2025-06-18 on)")
    if not isinstance(obj, dict):
        raise Fault(INVALID_REQUEST, "a JSON-RPC message must be an object")
    req_id = _usable_id(obj.get("id"))
    try:
        msg = msgspec.convert(obj, Message)
    except msgspec.ValidationError as exc:
        raise Fault(
            INVALID_REQUEST, f"not a JSON-RPC 2.0 message: {exc}", request_id=req_id
        ) from None
    except RecursionError:
        raise Fault(INVALID_REQUEST, TOO_DEEP, request_id=req_id) from None
    if msg.jsonrpc != "2.0":
        raise Fault(INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id=req_id)
    if all(isinstance(v, UnsetType) for v in (msg.method, msg.result, msg.error)):
        raise Fault(INVALID_REQUEST, "a message needs a method", request_id=req_id)
    return msg


class Oversized(NamedTuple):
    """A line over the limit, dropped; `request_id` is its id if the start of it says one."""

    request_id: RequestId | None


ID_SCAN_BYTES = 64 * 1024  # how much of an oversize line is read for its id
# One JSON token: a whole string, a structural character, or a bare value (number, literal).
_TOKEN = re.compile(rb'\s*("(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+)')


def head_id(head: bytes) -> RequestId | None:
    """The top-level "id" of a message cut off after `head`, if it comes in `head`: what an
    oversize frame is answered under (MCP clients send id before params). Members nested
    in params and text inside strings are skipped by following depth token by token."""
    depth, pos, key, after_key = 0, 0, b"", False
    while match := _TOKEN.match(head, pos):
        token, pos = match.group(1), match.end()
        if after_key:
            after_key = False
            if token == b":" and key == b'"id"':
                value = _TOKEN.match(head, pos)
                if value is None or value.end() == len(head):  # cut off: not a whole value
                    return None
                try:
                    return _usable_id(_any_decoder.decode(value.group(1)))
                except msgspec.DecodeError:
                    return None
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and token.startswith(b'"'):
            key, after_key = token, True
    return None


class LineReader(Protocol):
    """What lines() reads: stdin, or stdin behind the line lean_start.py read first."""

    def readline(self, limit: int = -1, /) -> bytes: ...


def lines(stream: LineReader, limit: int = p.MAX_FRAME_BYTES) -> Iterator[bytes | Oversized]:
    """The stream's lines, each at most `limit` bytes; a longer line's bytes are read and
    dropped, so one huge frame neither fills memory nor ends the session (the daemon's
    socket closes such a connection; stdio has just the one), and it stands as Oversized."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or (line.endswith(b"\n") and len(line) == limit + 1):
            yield line
            continue
        found = head_id(line[:ID_SCAN_BYTES])
        while not line.endswith(b"\n"):
            line = stream.readline(limit + 1)
            if not line:
                break
        yield Oversized(found)


class _Response(Struct):
    # UNSET fields are left out; id stays even when null, as JSON-RPC requires.
    jsonrpc: str = "2.0"
    id: RequestId | None = None
    result: Any = UNSET
    error: p.ErrorObject | UnsetType = UNSET


class _Notification(Struct):
    jsonrpc: str = "2.0"
    method: str = ""
    params: Any = UNSET


class Writer:
    """The one way onto stdout. After the client stops reading, writes are dropped."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._encoder = msgspec.json.Encoder()
        self.closed = False

    def result(self, req_id: RequestId, result: Any) -> None:
        self._send(_Response(id=req_id, result=result))

    def error(self, req_id: RequestId | None, code: int, message: str, data: Any = None) -> None:
        self._send(_Response(id=req_id, error=p.ErrorObject(code=code, message=message, data=data)))

    def fault(self, req_id: RequestId | None, fault: Fault) -> None:
        self.error(req_id, fault.code, fault.message, fault.data)

    def notify(self, method: str, params: Any = UNSET) -> None:
        self._send(_Notification(method=method, params=params))

    def _send(self, message: _Response | _Notification) -> None:
        frame = self._encoder.encode(message) + b"\n"
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(frame)
                self._stream.flush()
            except (OSError, ValueError) as exc:  # ValueError: stdout was closed
                log.warning("the client stopped reading our stdout (%s)", exc)
                self.closed = True

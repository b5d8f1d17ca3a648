"""The daemon's loopback endpoint for Claude Code's `type: "http"` hooks ([hooks] http =
true; off by default, and then no port is opened).

Why in the daemon: it is the one part always running while hooks fire (the MCP shim is
one process per session, each would want the port), and a hook answered here costs no
process and no socket round trip: the hook logic (enyal_protocol/hooks, the same code
`enyal hook` and the shim's enyal_hook run) calls the methods through this daemon's
Dispatcher in process, so each call is checked and refused exactly as on the socket.

What Claude Code sends (2.1.197, read from its hook runner): a POST of the hook's input
JSON with Content-Type application/json and the hook's `headers`, a `$VAR`/`${VAR}` in
a header filled from its environment only when the hook lists VAR in `allowedEnvVars`;
no redirect is followed. A 2xx with an empty body is success with nothing to add, a 2xx
with a JSON object is read as a command hook's stdout, and anything else is a
non-blocking error. So a refusal here never blocks the user.

Who may ask, the checks `enyal ui` makes (client/enyal_client/ui/server.py):
  bound    127.0.0.1 only;
  Host     exactly 127.0.0.1:PORT or localhost:PORT, which a page on another name that
           rebinds its DNS to 127.0.0.1 cannot send;
  Origin   none: Claude Code sends none, and a browser always does on a cross-site POST;
  token    `Authorization: Bearer <token>` (enyal_protocol/hooks/token.py), the scheme in
           any case (RFC 9110), the token compared exactly, in constant time.
One request per connection, a bounded head and body, a deadline for each.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec

from enyal_protocol import config
from enyal_protocol import wire as p
from enyal_protocol.hooks.answer import FIELDS, answer, answered_alone
from enyal_protocol.hooks.caller import HookInputError

from ..errors import HttpRefused
from ..service.core import traffic
from .dispatch import Dispatcher

log = logging.getLogger(__name__)
PATH = "/hook/"
MAX_HEAD = 16 * 1024
READ_SECONDS = 10.0
# Hooks run beside the request pool, never on it: a hook runs the methods it calls on
# its own thread (Dispatcher.handle_here), and would otherwise hold a worker of that pool
# from a socket's request while the loop waits on it.
HOOK_THREADS = 2
_encoder = msgspec.json.Encoder()
_response = msgspec.json.Decoder(p.Response)
_ids = itertools.count(1)
REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}
REASONS |= {405: "Method Not Allowed", 413: "Content Too Large", 502: "Bad Gateway"}


def bearer(authorization: str) -> str:
    """The token of an `Authorization: Bearer <token>` value, "" for any other scheme.
    The scheme is matched case-insensitively (RFC 9110 §11.1: `bearer`, `BEARER`), the
    token is not: the caller compares it exactly."""
    scheme, _, token = authorization.partition(" ")
    return token.lstrip(" ") if scheme.lower() == "bearer" else ""


class InProcess:
    """The hook logic's Caller: each call a JSON-RPC frame through the Dispatcher, run on
    the hook's own thread (Dispatcher.handle_here: no hop to the loop and back)."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self._dispatcher = dispatcher

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
        frame = self._dispatcher.handle_here(_encoder.encode(request))
        assert frame is not None  # a request with an id is always answered
        reply = _response.decode(frame)
        if not isinstance(reply.error, msgspec.UnsetType):
            raise HttpRefused(502, f"{method}: {reply.error.message}")
        assert not isinstance(reply.result, msgspec.UnsetType)
        return msgspec.json.decode(reply.result, type=dict[str, Any])


class HookEndpoint:
    def __init__(self, port: int, token: str, dispatcher: Dispatcher) -> None:
        self.port = port
        self._token = token.encode()
        self._dispatcher = dispatcher
        self._hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self._pool = ThreadPoolExecutor(HOOK_THREADS, thread_name_prefix="enyal-hook")

    async def start(
        self, track: Callable[[Awaitable[bool]], Awaitable[None]]
    ) -> asyncio.base_events.Server:
        return await asyncio.start_server(
            lambda r, w: track(self.serve(r, w)), "127.0.0.1", self.port, limit=MAX_HEAD
        )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request, one answer; True when it was a request (activity for the idle
        watch). A connection is its one request: counted from its accept until its answer
        is written (traffic.answering, as the socket's requests are), across the hook's
        calls and the answer's write, which background work would otherwise resume
        between."""
        with traffic.answering():
            return await self._serve(reader, writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        status, body = 200, b""
        try:
            try:
                verb, data = await asyncio.wait_for(self._read(reader), READ_SECONDS)
            except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                raise HttpRefused(400, "an incomplete, slow or oversized request") from None
            body = await self._answer(verb, data)
        except HttpRefused as exc:
            status, body = exc.status, json.dumps({"error": str(exc)}).encode()
        except ConnectionError:
            return True
        except Exception as exc:  # the daemon never dies on a request
            log.exception("hook endpoint failed")
            status, body = 502, json.dumps({"error": f"failed: {exc}"}).encode()
        head = (
            f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        try:
            writer.write(head.encode() + body)
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()
        return True

    async def _read(self, reader: asyncio.StreamReader) -> tuple[str, dict[str, Any]]:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        line, *fields = head.split("\r\n")
        parts = line.split(" ")
        if len(parts) != 3:
            raise HttpRefused(400, "not an HTTP request")
        method, target, _ = parts
        headers: dict[str, list[str]] = {}
        for field in fields:
            name, sep, value = field.partition(":")
            if sep:
                headers.setdefault(name.strip().lower(), []).append(value.strip())
        hosts = headers.get("host", [])
        if len(hosts) != 1 or hosts[0] not in self._hosts:
            raise HttpRefused(403, "wrong Host: ask 127.0.0.1 or localhost on this port")
        if "origin" in headers:
            raise HttpRefused(403, "a request with an Origin (a web page) is refused")
        auth = headers.get("authorization", [""])
        given = bearer(auth[0]).encode() if len(auth) == 1 else b""
        if not hmac.compare_digest(given, self._token):
            raise HttpRefused(403, "no valid token: Authorization: Bearer $ENYAL_HOOK_TOKEN")
        if method != "POST":
            raise HttpRefused(405, "hooks are POSTed")
        verb = target.removeprefix(PATH)
        if not target.startswith(PATH) or verb not in FIELDS:
            raise HttpRefused(404, f"no such hook; the hooks are {PATH}{{{','.join(FIELDS)}}}")
        try:
            size = int(headers.get("content-length", ["0"])[0])
        except ValueError:
            raise HttpRefused(400, "Content-Length is not a number") from None
        if not 0 <= size <= p.MAX_FRAME_BYTES:
            raise HttpRefused(413, f"a hook's input is at most {p.MAX_FRAME_BYTES} bytes")
        try:
            data = json.loads(await reader.readexactly(size))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HttpRefused(400, f"the hook input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HttpRefused(400, "the hook input is not a JSON object")
        return verb, data

    async def _answer(self, verb: str, data: dict[str, Any]) -> bytes:
        caller = InProcess(self._dispatcher)

        def run() -> dict[str, Any]:
            try:
                return answer(caller, verb, data)
            except (HookInputError, config.ConfigError) as exc:
                raise HttpRefused(400, str(exc)) from None

        if answered_alone(verb, data):  # `{}` with no daemon call: on the loop, no hop
            out = run()
        else:
            out = await asyncio.get_running_loop().run_in_executor(self._pool, run)
        return json.dumps(out, ensure_ascii=False).encode()

"""JSON-RPC 2.0: bytes of one frame in, bytes of one response out (or none).

A frame holding an array is a batch: its requests run one after another, in order (a
later one sees what an earlier one wrote), and their answers go back as one array in the
same order, notifications left out; nothing at all when every request was one. At most
MAX_BATCH_REQUESTS (enyal_protocol/framing.py). The spec lets a server run them at once;
one after another, a batch holds one of its connection's slots and one request thread at
a time, however long it is.

Decoding is typed end to end: the envelope with one reused Decoder, the params
with the Struct the method table names. Every failure becomes an error object
here, in one place; nothing a client sends can raise out of this module.

Most methods are verbs run on the request pool. A few belong to the connection
(subscribe, unsubscribe): they get its Session and run on the loop, as they only
register a queue.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p

from ..errors import EnyalError, InvalidParams, VersionMismatch
from ..service.core import traffic
from .replies import Replies
from .session import Session

log = logging.getLogger(__name__)

Handler = Callable[[Any], Any]
SessionHandler = Callable[[Session, Any], Any]

# The connection's own methods: Session's, called on the loop.
SESSION_HANDLERS: dict[str, SessionHandler] = {
    "subscribe": Session.subscribe,
    "unsubscribe": Session.unsubscribe,
}

_request_decoder = msgspec.json.Decoder(p.Request)
_encoder = msgspec.json.Encoder()
_params_decoders = {name: msgspec.json.Decoder(m.params) for name, m in p.METHODS.items()}
_batch_decoder = msgspec.json.Decoder(list[msgspec.Raw])
_TOO_DEEP = "JSON nested too deeply"


def _same_release(expect: p.Expect) -> bool:
    return expect.version == __version__ and expect.protocol == p.PROTOCOL_VERSION


def _same_db(expect: p.Expect, db: str | None) -> bool:
    """Whether the client means the database this daemon serves (both made absolute; a
    symlinked path to the same file is the same database)."""
    if db is None or isinstance(expect.db, msgspec.UnsetType) or expect.db == db:
        return True
    return os.path.realpath(expect.db) == db


def error_frame(req_id: p.RequestId, code: int, message: str, data: Any = None) -> bytes:
    err = p.ErrorObject(code=code, message=message, data=data)
    return _encoder.encode(p.Response(id=req_id, error=err)) + b"\n"


def result_frame(req_id: p.RequestId, result: Any) -> bytes:
    return (
        _encoder.encode(p.Response(id=req_id, result=msgspec.Raw(_encoder.encode(result)))) + b"\n"
    )


def _settled(handler: Handler, params: Any) -> Any:
    """The handler's answer, and any write it announced and left unsettled (it failed
    before its commit) settled: bookkeeping must not go on waiting for it."""
    try:
        return handler(params)
    finally:
        traffic.settle()


class Dispatcher:
    def __init__(
        self, handlers: dict[str, Handler], executor: Executor, db: Path | None = None
    ) -> None:
        """`db`: the database served, for clients that say which one they expect."""
        self._db = os.path.realpath(db) if db is not None else None
        missing = set(p.METHODS) - set(handlers) - set(SESSION_HANDLERS)
        if missing:
            raise RuntimeError(f"no handler for {sorted(missing)}")
        self._handlers = handlers
        self._executor = executor
        self._replies = Replies()

    async def _run(self, handler: Handler, params: Any) -> Any:
        with traffic.serving():  # from its arrival: a hub's catch-up steps aside meanwhile
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, _settled, handler, params
            )

    async def handle(self, frame: bytes, session: Session | None = None) -> bytes | None:
        """One frame -> one response frame, or None when nothing is answered (a
        notification, or a batch of them). `session`: the connection it came on (without
        one, the connection's own methods are unknown)."""
        batch = _batch(frame)
        if batch is None:
            return await self._handle_one(frame, session)
        if isinstance(batch, bytes):
            return batch
        answers = [await self._handle_one(item, session) for item in batch]
        return _joined([a for a in answers if a is not None])

    async def _handle_one(self, frame: bytes, session: Session | None) -> bytes | None:
        call = self._parse(frame, session)
        if not isinstance(call, _Call):
            return call
        try:
            if call.on_session is not None and session is not None:
                result = call.on_session(session, call.params)
            else:
                assert call.handler is not None
                run = functools.partial(self._run, call.handler, call.params)
                if call.key is not None:
                    result = await self._replies.once(call.method, call.key, run)
                else:
                    result = await run()
        except Exception as exc:
            return _failed(call, exc)
        return _answered(call, result)

    def handle_here(self, frame: bytes) -> bytes | None:
        """`handle` for a caller already on a thread of its own, off the loop (the hook
        endpoint's, server/hook_http.py): the same checks, and the verb run on this
        thread, not handed to the loop, then the request pool, and back (four thread
        hops a call, issue 29). No connection, so no connection's methods; a keyed
        request runs as any other (a key guards a resend over a socket, and an
        in-process call is never resent)."""
        call = self._parse(frame, None)
        if not isinstance(call, _Call):
            return call
        assert call.handler is not None
        try:
            with traffic.serving():
                result = _settled(call.handler, call.params)
        except Exception as exc:
            return _failed(call, exc)
        return _answered(call, result)

    def _parse(self, frame: bytes, session: Session | None) -> bytes | _Call | None:
        """The call a frame asks for, or the frame answering it at once (an error, or
        None for a notification that gets none)."""
        if (not_utf8 := _not_utf8(frame)) is not None:
            return not_utf8
        try:
            req = _request_decoder.decode(frame)
        except msgspec.ValidationError as exc:
            return error_frame(None, p.INVALID_REQUEST, f"not a JSON-RPC 2.0 request: {exc}")
        except msgspec.DecodeError as exc:
            return error_frame(None, p.PARSE_ERROR, f"malformed JSON: {exc}")
        except RecursionError:  # msgspec's nesting limit: valid JSON, but too deep to decode
            return error_frame(None, p.INVALID_REQUEST, _TOO_DEEP)
        req_id: p.RequestId = None if req.id is msgspec.UNSET else req.id
        notification = req.id is msgspec.UNSET
        if req.jsonrpc != "2.0":
            return error_frame(req_id, p.INVALID_REQUEST, 'jsonrpc must be "2.0"')
        if req.enyal_expect is not msgspec.UNSET and not _same_db(req.enyal_expect, self._db):
            if notification:
                return None
            other = VersionMismatch(
                f"this daemon (pid {os.getpid()}) serves the database {self._db}, not "
                f"{req.enyal_expect.db}; nothing was run",
                {
                    "version": __version__,
                    "protocol": p.PROTOCOL_VERSION,
                    "pid": os.getpid(),
                    "db": self._db,
                },
            )
            return error_frame(req_id, other.code, other.message, other.data)
        if req.enyal_expect is not msgspec.UNSET and not _same_release(req.enyal_expect):
            if notification:
                return None
            mismatch = VersionMismatch(
                f"the daemon runs enyal {__version__} (protocol {p.PROTOCOL_VERSION}), not "
                f"{req.enyal_expect.version} (protocol {req.enyal_expect.protocol}); "
                "run `enyal daemon restart` to start the installed version",
                {"version": __version__, "protocol": p.PROTOCOL_VERSION, "pid": os.getpid()},
            )
            return error_frame(req_id, mismatch.code, mismatch.message, mismatch.data)
        decoder = _params_decoders.get(req.method)
        handler = self._handlers.get(req.method)
        on_session = SESSION_HANDLERS.get(req.method) if session is not None else None
        if decoder is None or (handler is None and on_session is None):
            if notification:
                return None
            return error_frame(req_id, p.METHOD_NOT_FOUND, f"unknown method {req.method!r}")
        try:
            raw = b"{}" if req.params is msgspec.UNSET else bytes(req.params)
            params = decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError) as exc:
            if notification:  # JSON-RPC 2.0: a notification is never answered, not even an error
                return None
            message = _TOO_DEEP if isinstance(exc, RecursionError) else str(exc)
            bad = InvalidParams(f"invalid params for {req.method}: {message}")
            return error_frame(req_id, bad.code, bad.message, bad.data)
        keyed = not p.METHODS[req.method].idempotent and not notification
        key = None if isinstance(req.enyal_key, msgspec.UnsetType) or not keyed else req.enyal_key
        return _Call(req_id, notification, req.method, handler, on_session, params, key)


def _not_utf8(frame: bytes) -> bytes | None:
    """The parse error answering a frame that is not UTF-8, or None."""
    try:
        frame.decode("utf-8")
    except UnicodeDecodeError as exc:
        return error_frame(
            None, p.PARSE_ERROR, f"frame is not valid UTF-8: {exc.reason} at byte {exc.start}"
        )
    return None


def _batch(frame: bytes) -> list[bytes] | bytes | None:
    """A batch's requests, each as its own frame; or the one error answering the whole
    frame (not JSON, an empty array, too many requests); None when the frame is not an
    array (one request, or something `_parse` refuses on its own)."""
    if frame.lstrip()[:1] != b"[":
        return None
    if (not_utf8 := _not_utf8(frame)) is not None:
        return not_utf8
    try:
        items = _batch_decoder.decode(frame)
    except msgspec.DecodeError as exc:  # (ValidationError is one: an array is always a list)
        return error_frame(None, p.PARSE_ERROR, f"malformed JSON: {exc}")
    except RecursionError:
        return error_frame(None, p.INVALID_REQUEST, _TOO_DEEP)
    if not items:
        return error_frame(None, p.INVALID_REQUEST, "an empty batch: send at least one request")
    if len(items) > p.MAX_BATCH_REQUESTS:
        return error_frame(
            None,
            p.INVALID_REQUEST,
            f"a batch of {len(items)} requests; at most {p.MAX_BATCH_REQUESTS}: nothing was run",
        )
    # Each item is parsed as a single request: an array within the batch is refused
    # there (-32600), as the spec asks, not taken as a batch of its own.
    return [bytes(item) for item in items]


def _joined(answers: list[bytes]) -> bytes | None:
    """A batch's answers (each a frame with its newline) as one array frame; None when
    there are none to send."""
    if not answers:
        return None
    return b"[" + b",".join(a.rstrip(b"\n") for a in answers) + b"]\n"


class _Call(NamedTuple):
    """A request that passed every check, to run."""

    req_id: p.RequestId
    notification: bool
    method: str
    handler: Handler | None
    on_session: SessionHandler | None
    params: Any
    key: str | None  # its enyal_key, when it must run once per key (server/replies.py)


def _failed(call: _Call, exc: Exception) -> bytes | None:
    if isinstance(exc, EnyalError):
        return (
            None if call.notification else error_frame(call.req_id, exc.code, exc.message, exc.data)
        )
    log.exception("%s failed", call.method, exc_info=exc)
    if call.notification:
        return None
    return error_frame(call.req_id, p.INTERNAL_ERROR, f"{call.method} failed: {exc}")


def _answered(call: _Call, result: Any) -> bytes | None:
    if call.notification:
        return None
    try:
        return result_frame(call.req_id, result)
    except Exception as exc:  # never leave a request unanswered (e.g. a too-deep value)
        log.exception("encoding the result of %s failed", call.method)
        return error_frame(call.req_id, p.INTERNAL_ERROR, f"{call.method} failed: {exc}")

"""The MCP server proper: the lifecycle, routing by method and era, concurrent tool calls,
resources and their change notifications.

Every line the client sends goes through handle() on the reading thread.
What needs no daemon is answered there at once (a hook event whose input says it is
answered `{}`, as a PreToolUse of Glob, included: no hand-off to a worker and back);
tool calls and the resource requests that reach the daemon run on a small pool, so a
ping, a cancellation or server/discover is answered while a call waits on the daemon
(which may be starting).

Resources change under the client: the shim listens to the daemon (live.py) once
a client cares, and forwards what it hears. Each era asks in its own way: the
handshake era with resources/subscribe (per URI; resources/list_changed goes to a
client that listed or subscribed), 2026-07-28 with subscriptions/listen (a
long-lived request, acknowledged first, every notification tagged with its id,
ended by notifications/cancelled or, gracefully, by a response when we stop).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import msgspec
from msgspec import UnsetType

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.hooks.answer import answered_alone

from ..pool import Pool
from ..transport import ClientError, RpcError
from . import calls, facts, hook_tool, resources, tools, versions
from .live import DaemonWatch
from .messages import (
    DiscoverResult,
    EmptyResult,
    GetPromptResult,
    Implementation,
    InitializeResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    Result,
    TextContent,
)
from .wire import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Fault,
    RequestId,
    Writer,
    parse,
)

log = logging.getLogger(__name__)

SERVER_INFO = Implementation(name=facts.NAME, title=facts.TITLE, version=__version__)
BRIEF_PROMPT = "enyal_brief"
BRIEF_DESCRIPTION = (
    "What to know before starting work in this project: open tasks, conventions and "
    "decisions, what changed since the last brief, memories to review, recent log lines."
)
# Memories change under the client; the notifications say when, so nothing is cached.
RESOURCES_TTL_MS = 0
CALL_WORKERS = 4
HANDSHAKE_ONLY = frozenset({"ping", "resources/subscribe", "resources/unsubscribe"})
MODERN_ONLY = frozenset({"subscriptions/listen"})
UPDATED = "notifications/resources/updated"
LIST_CHANGED = "notifications/resources/list_changed"

R = TypeVar("R", bound=Result)


@dataclass(frozen=True)
class Era:
    version: str
    modern: bool

    def finish(self, result: R) -> R:
        """Add what every 2026-07-28 result carries; handshake-era results go as they are."""
        if not self.modern:
            return result
        return msgspec.structs.replace(
            result, result_type="complete", meta={versions.SERVER_INFO_KEY: SERVER_INFO}
        )

    def cached(self, result: R, ttl_ms: int, scope: Literal["public", "private"]) -> R:
        """The cache hint a 2026-07-28 list or read carries; the handshake era has none."""
        if not self.modern:
            return result
        return msgspec.structs.replace(result, ttl_ms=ttl_ms, cache_scope=scope)


@dataclass
class _Call:
    cancelled: bool = False
    future: Future[None] | None = None


@dataclass
class _Listen:
    """A 2026-07-28 subscriptions/listen stream: what it asked for (and we honour)."""

    uris: set[str]
    list_changed: bool


Handler = Callable[[RequestId, Era, dict[str, Any]], Result | None]


class Server:
    def __init__(
        self,
        writer: Writer,
        link: Pool,
        workers: int = CALL_WORKERS,
        negotiated: str | None = None,
    ) -> None:
        """`negotiated`: the version an initialize answered before this server (lean_start.py)
        settled."""
        self._writer = writer
        self._link = link
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="enyal-mcp-call")
        self._calls: dict[RequestId, _Call] = {}
        self._lock = threading.Lock()
        self._negotiated = negotiated  # the handshake version, once initialize is answered
        self._handlers: dict[str, Handler] = {
            "ping": self._ping,
            "server/discover": self._discover,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "prompts/list": self._prompts_list,
            "prompts/get": self._prompts_get,
            "resources/list": self._resources_list,
            "resources/templates/list": self._templates_list,
            "resources/read": self._resources_read,
            "resources/subscribe": self._resources_subscribe,
            "resources/unsubscribe": self._resources_unsubscribe,
            "subscriptions/listen": self._listen,
        }
        # Who hears of changes (guarded by _lock): handshake-era URIs and list watchers,
        # and 2026-07-28 listen streams by their request id.
        self._legacy_uris: set[str] = set()
        self._legacy_lists = False
        self._listens: dict[RequestId, _Listen] = {}
        self._watch: DaemonWatch | None = None
        self._watch_lock = threading.Lock()

    @property
    def client_gone(self) -> bool:
        return self._writer.closed

    def handle(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            msg = parse(line)
        except Fault as fault:
            self._writer.fault(fault.request_id, fault)
            return
        if isinstance(msg.method, UnsetType):
            log.debug("ignoring a response: this server sends no requests")
            return
        params = msg.params or {}
        if isinstance(msg.id, UnsetType):
            self._notification(msg.method, params)
            return
        try:
            result = self._request(msg.id, msg.method, params)
        except Fault as fault:
            self._writer.fault(msg.id, fault)
        except Exception as exc:
            log.exception("%s failed", msg.method)
            self._writer.error(msg.id, INTERNAL_ERROR, f"{msg.method} failed: {exc}")
        else:
            if result is not None:
                self._writer.result(msg.id, result)

    def close(self) -> None:
        """Let calls already running finish (their responses may still be read); drop the rest.
        Open listen streams end gracefully: each gets its response."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            listens, self._listens = list(self._listens), {}
        for listen_id in listens:
            meta = {versions.SUBSCRIPTION_ID_KEY: listen_id, versions.SERVER_INFO_KEY: SERVER_INFO}
            self._writer.result(listen_id, {"resultType": "complete", "_meta": meta})
        if self._watch is not None:
            self._watch.close()
        self._link.close()

    # --- routing -------------------------------------------------------------------------

    def _request(self, req_id: RequestId, method: str, params: dict[str, Any]) -> Result | None:
        if method == "initialize":  # always the handshake era, even if a client adds _meta
            return self._initialize(params)
        handler = self._handlers.get(method)
        if handler is None:
            raise Fault(METHOD_NOT_FOUND, f"unknown method {method!r}")
        era = self._era(method, params)
        if era.modern and method in HANDSHAKE_ONLY:
            raise Fault(METHOD_NOT_FOUND, f"{method} does not exist in MCP 2026-07-28")
        if not era.modern and method in MODERN_ONLY:
            raise Fault(
                METHOD_NOT_FOUND,
                f"{method} is MCP 2026-07-28; in {era.version} use resources/subscribe",
            )
        result = handler(req_id, era, params)
        return None if result is None else era.finish(result)

    def _era(self, method: str, params: dict[str, Any]) -> Era:
        if versions.is_modern(params) or method == "server/discover":
            return Era(versions.modern_version(params), modern=True)
        if self._negotiated is None and method != "ping":
            raise Fault(
                INVALID_REQUEST,
                f"{method} before initialize: send initialize first, or carry the "
                "2026-07-28 per-request _meta",
            )
        return Era(self._negotiated or versions.LATEST_HANDSHAKE, modern=False)

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            self._cancel(params.get("requestId"), params.get("reason"))
        elif method == "notifications/initialized":
            log.debug("client initialized")
        else:
            log.debug("ignoring notification %s", method)

    # --- the lifecycle ---------------------------------------------------------------------

    def _initialize(self, params: dict[str, Any]) -> InitializeResult:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise Fault(INVALID_PARAMS, "initialize needs protocolVersion, a string")
        self._negotiated = versions.negotiate_handshake(requested)
        log.info("client asked for MCP %s; speaking %s", requested, self._negotiated)
        return InitializeResult(
            protocol_version=self._negotiated,
            capabilities=facts.CAPABILITIES,
            server_info=SERVER_INFO,
            instructions=facts.INSTRUCTIONS,
        )

    def _ping(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        return EmptyResult()

    def _discover(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        return DiscoverResult(
            supported_versions=list(versions.MODERN_VERSIONS),
            capabilities=facts.CAPABILITIES,
            instructions=facts.INSTRUCTIONS,
            ttl_ms=facts.TOOLS_TTL_MS,
            cache_scope="public",
        )

    # --- tools -------------------------------------------------------------------------------

    def _tools_list(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        listed = ListToolsResult(tools=list(tools.definitions(era.version)))
        return era.cached(listed, facts.TOOLS_TTL_MS, "public")

    def _tools_call(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result | None:
        name = params.get("name")
        if not isinstance(name, str):
            raise Fault(INVALID_PARAMS, "tools/call needs name, a string")
        spec = tools.BY_NAME.get(name)
        if spec is None and name != hook_tool.NAME:
            known = ", ".join(t.name for t in tools.TOOLS)
            raise Fault(INVALID_PARAMS, f"unknown tool {name!r} (the tools are {known})")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise Fault(INVALID_PARAMS, f"arguments of {name} must be an object")
        if spec is None:  # a hook event: its logic is enyal_protocol/hooks, not a method
            try:
                event, data = hook_tool.hook_input(arguments)
            except hook_tool.InvalidArguments as exc:
                return _refused(era, name, exc)
            if answered_alone(event, data):  # `{}` with no daemon call: here, at once
                return hook_tool.run(self._link, event, data)
            self._submit(req_id, era, name, lambda _: hook_tool.run(self._link, event, data))
            return None
        try:
            bound = tools.bind(spec, arguments)
        except tools.InvalidArguments as exc:
            return _refused(era, name, exc)
        structured = versions.at_least(era.version, versions.STRUCTURED_OUTPUT)
        self._submit(
            req_id, era, spec.name, lambda _: calls.run(self._link, spec, bound, structured)
        )
        return None

    def _submit(
        self, req_id: RequestId, era: Era, label: str, work: Callable[[_Call], Result | None]
    ) -> None:
        """Answer on the pool: `work` may wait on the daemon. A Fault it raises is the answer;
        None means no response (yet)."""
        call = _Call()
        with self._lock:
            if req_id in self._calls or req_id in self._listens:
                raise Fault(INVALID_REQUEST, f"request id {req_id!r} is already in flight")
            self._calls[req_id] = call
        call.future = self._pool.submit(self._run, req_id, era, label, work, call)

    def _run(
        self,
        req_id: RequestId,
        era: Era,
        label: str,
        work: Callable[[_Call], Result | None],
        call: _Call,
    ) -> None:
        fault: Fault | None = None
        result = None
        try:
            result = work(call)
            if result is not None:
                result = era.finish(result)
        except Fault as exc:
            fault = exc
        except Exception as exc:
            log.exception("%s failed", label)
            fault = Fault(INTERNAL_ERROR, f"{label} failed: {exc}")
        with self._lock:
            current = self._calls.pop(req_id, None)
        if current is None or current.cancelled:
            log.info("%s (request %r) was cancelled; its outcome is dropped", label, req_id)
        elif fault is not None:
            self._writer.fault(req_id, fault)
        elif result is not None:
            self._writer.result(req_id, result)

    # --- prompts -----------------------------------------------------------------------------

    def _prompts_list(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        titled = versions.at_least(era.version, versions.STRUCTURED_OUTPUT)
        prompt = Prompt(
            name=BRIEF_PROMPT,
            title="Project brief" if titled else msgspec.UNSET,
            description=BRIEF_DESCRIPTION,
            arguments=[
                PromptArgument(
                    name="budget_tokens",
                    description="At most this many tokens (a whole number; default 1500).",
                )
            ],
        )
        return era.cached(ListPromptsResult(prompts=[prompt]), facts.TOOLS_TTL_MS, "public")

    def _prompts_get(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        name = params.get("name")
        if name != BRIEF_PROMPT:
            raise Fault(INVALID_PARAMS, f"unknown prompt {name!r} (the prompt is {BRIEF_PROMPT})")
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict) or set(arguments) - {"budget_tokens"}:
            raise Fault(INVALID_PARAMS, f"{BRIEF_PROMPT} takes one argument, budget_tokens")
        fields: dict[str, Any] = {"cwd": tools.SHIM_FILLED["cwd"]()}
        if arguments.get("budget_tokens") not in (None, ""):
            try:
                fields["budget_tokens"] = int(str(arguments["budget_tokens"]))
            except ValueError:
                raise Fault(INVALID_PARAMS, "budget_tokens must be a whole number") from None
        try:
            brief = msgspec.convert(fields, p.BriefParams)
        except msgspec.ValidationError as exc:
            raise Fault(INVALID_PARAMS, f"invalid arguments for {BRIEF_PROMPT}: {exc}") from None
        self._pool.submit(self._run_prompt, req_id, era, brief)
        return None

    def _run_prompt(self, req_id: RequestId, era: Era, params: p.BriefParams) -> None:
        try:
            raw = self._link.call_raw("brief", params)
            markdown = msgspec.json.decode(raw, type=p.BriefResult).markdown
        except RpcError as exc:
            self._writer.error(req_id, INVALID_PARAMS, f"brief failed: {exc.message}")
            return
        except (ClientError, OSError) as exc:
            self._writer.error(req_id, INTERNAL_ERROR, f"the Enyal daemon is unavailable: {exc}")
            return
        except Exception as exc:
            log.exception("prompts/get failed")
            self._writer.error(req_id, INTERNAL_ERROR, f"prompts/get failed: {exc}")
            return
        message = PromptMessage(role="user", content=TextContent(text=markdown))
        self._writer.result(
            req_id, era.finish(GetPromptResult(description=BRIEF_DESCRIPTION, messages=[message]))
        )

    def _cancel(self, request_id: Any, reason: Any) -> None:
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            return
        log.info("client cancelled request %r: %s", request_id, reason or "no reason given")
        with self._lock:
            if self._listens.pop(request_id, None) is not None:
                return  # a listen stream ends; the spec sends it no response
            call = self._calls.get(request_id)
            if call is None:  # already answered, or never ours: the spec says ignore it
                return
            call.cancelled = True
            if call.future is not None and call.future.cancel():
                del self._calls[request_id]  # it never started, so no worker will pop it

    # --- resources ---------------------------------------------------------------------------

    def _not_found(self, era: Era, uri: str) -> Fault:
        # 2026-07-28 moved "resource not found" from -32002 to invalid params.
        code = INVALID_PARAMS if era.modern else p.INVALID_VALUE
        return Fault(code, "Resource not found", {"uri": uri})

    def _daemon_fault(self, what: str, exc: Exception) -> Fault:
        if isinstance(exc, RpcError):
            kind = p.ERROR_NAMES.get(exc.code, f"error {exc.code}")
            return Fault(INTERNAL_ERROR, f"{what} failed ({kind}): {exc.message}")
        return Fault(INTERNAL_ERROR, f"{what} failed: the Enyal daemon is unavailable: {exc}")

    @contextmanager
    def _resource_faults(self, era: Era, uri: str, what: str) -> Iterator[None]:
        """The daemon's answers about one resource as MCP errors: a memory it does not
        have is "resource not found"; any other failure, the daemon's fault."""
        try:
            yield
        except resources.NoSuchResource:
            raise self._not_found(era, uri) from None
        except RpcError as exc:
            if exc.code in (p.NOT_FOUND, p.INVALID_VALUE):
                raise self._not_found(era, uri) from None
            raise self._daemon_fault(what, exc) from None
        except (ClientError, OSError) as exc:
            raise self._daemon_fault(what, exc) from None

    def _resources_list(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            raise Fault(INVALID_PARAMS, "cursor must be a string")

        def work(_: _Call) -> Result:
            if not era.modern:  # a handshake-era client that lists hears the list change
                try:
                    self._ensure_watch()
                    with self._lock:
                        self._legacy_lists = True
                except (ClientError, OSError) as exc:
                    log.warning("cannot listen to the daemon: %s", exc)
            try:
                found, nxt = resources.page(self._link, cursor)
            except RpcError as exc:
                if exc.code == p.INVALID_VALUE:  # a cursor the daemon never handed out
                    raise Fault(INVALID_PARAMS, f"invalid cursor: {exc.message}") from None
                raise self._daemon_fault("resources/list", exc) from None
            except (ClientError, OSError) as exc:
                raise self._daemon_fault("resources/list", exc) from None
            result = ListResourcesResult(resources=found)
            if nxt is not None:
                result = msgspec.structs.replace(result, next_cursor=nxt)
            return era.cached(result, RESOURCES_TTL_MS, "private")

        self._submit(req_id, era, "resources/list", work)

    def _templates_list(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        return era.cached(
            ListResourceTemplatesResult(resource_templates=resources.TEMPLATES),
            facts.TOOLS_TTL_MS,
            "public",
        )

    def _uri(self, params: dict[str, Any]) -> str:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise Fault(INVALID_PARAMS, "uri must be a non-empty string")
        return uri

    def _resources_read(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        uri = self._uri(params)

        def work(_: _Call) -> Result:
            with self._resource_faults(era, uri, "resources/read"):
                contents = resources.read(self._link, uri)
            result = ReadResourceResult(contents=contents)
            return era.cached(result, RESOURCES_TTL_MS, "private")

        self._submit(req_id, era, "resources/read", work)

    def _resources_subscribe(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        uri = self._uri(params)

        def work(_: _Call) -> Result:
            with self._resource_faults(era, uri, "resources/subscribe"):
                if not resources.exists(self._link, uri):
                    raise resources.NoSuchResource(uri)
                self._ensure_watch()
            with self._lock:
                self._legacy_uris.add(uri)
                self._legacy_lists = True
            return EmptyResult()

        self._submit(req_id, era, "resources/subscribe", work)

    def _resources_unsubscribe(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        uri = self._uri(params)
        with self._lock:
            self._legacy_uris.discard(uri)
        return EmptyResult()

    def _listen(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise Fault(INVALID_PARAMS, "subscriptions/listen needs notifications, an object")
        uris = wanted.get("resourceSubscriptions") or []
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise Fault(INVALID_PARAMS, "resourceSubscriptions must be a list of URIs")
        list_changed = wanted.get("resourcesListChanged") is True
        # What we honour: resource URIs we serve and the resource list; our tool list and
        # (absent) prompts never change, so those are left out of the acknowledgment.
        honoured_uris = list(dict.fromkeys(u for u in uris if resources.known(u)))
        honoured: dict[str, Any] = {}
        if list_changed:
            honoured["resourcesListChanged"] = True
        if honoured_uris:
            honoured["resourceSubscriptions"] = honoured_uris

        def work(call: _Call) -> None:
            if honoured:
                try:
                    self._ensure_watch()
                except (ClientError, OSError) as exc:
                    raise self._daemon_fault("subscriptions/listen", exc) from None
            meta = {versions.SUBSCRIPTION_ID_KEY: req_id}
            with self._lock:  # acknowledged before any notification of it can be sent
                if call.cancelled:
                    return
                self._writer.notify(
                    "notifications/subscriptions/acknowledged",
                    {"_meta": meta, "notifications": honoured},
                )
                self._listens[req_id] = _Listen(set(honoured_uris), list_changed)

        self._submit(req_id, era, "subscriptions/listen", work)

    # --- forwarding the daemon's changes -------------------------------------------------------

    def _ensure_watch(self) -> None:
        with self._watch_lock:
            if self._watch is None:
                watch = DaemonWatch(self._on_change, self._on_resync, os.getcwd())
                watch.start()
                self._watch = watch

    def _on_change(self, change: p.Change, project: bool) -> None:
        listed = project and change.kind in resources.LIST_KINDS
        self._emit(resources.touched(change, project), listed)

    def _on_resync(self) -> None:
        """Changes were missed: everything a client watches may have changed."""
        self._emit(None, True)

    def _emit(self, uris: set[str] | None, listed: bool) -> None:
        """`uris`: the resources changed (None: all of them); `listed`: the list changed."""
        with self._lock:
            legacy = self._legacy_uris if uris is None else self._legacy_uris & uris
            legacy_list = listed and self._legacy_lists
            modern = [
                (
                    lid,
                    sorted(ls.uris if uris is None else ls.uris & uris),
                    listed and ls.list_changed,
                )
                for lid, ls in self._listens.items()
            ]
            legacy = set(legacy)
        for uri in sorted(legacy):
            self._writer.notify(UPDATED, {"uri": uri})
        if legacy_list:
            self._writer.notify(LIST_CHANGED)
        for lid, changed, list_changed in modern:
            meta = {versions.SUBSCRIPTION_ID_KEY: lid}
            for uri in changed:
                self._writer.notify(UPDATED, {"_meta": meta, "uri": uri})
            if list_changed:
                self._writer.notify(LIST_CHANGED, {"_meta": meta})


def _refused(era: Era, name: str, exc: Exception) -> Result:
    """The answer to a call whose arguments the tool's schema refuses (the tool exists and
    the request is well formed: those faults stay protocol errors)."""
    message = f"invalid arguments for {name}: {exc}"
    if not versions.at_least(era.version, versions.ARGUMENT_ERRORS_AS_RESULTS):
        raise Fault(INVALID_PARAMS, message)
    return calls.failed(message)

"""The MCP server proper: the lifecycle, routing by method and era, concurrent tool calls.

Every line the client sends goes through handle() on the reading thread.
Everything but tools/call is answered there at once; tool calls run on a small
pool so a ping, a cancellation or server/discover is answered while a call
waits on the daemon (which may be starting).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from msgspec import UnsetType

from enyal_protocol import __version__
from enyal_protocol import wire as p

from ..transport import ClientError, RpcError
from . import calls, tools, versions
from .daemon_link import DaemonLink
from .messages import (
    DiscoverResult,
    EmptyResult,
    GetPromptResult,
    Implementation,
    InitializeResult,
    ListPromptsResult,
    ListToolsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
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

SERVER_INFO = Implementation(name="enyal", title="Enyal", version=__version__)
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}, "prompts": {"listChanged": False}}
BRIEF_PROMPT = "enyal_brief"
BRIEF_DESCRIPTION = (
    "What to know before starting work in this project: open tasks, conventions and "
    "decisions, what changed since the last brief, memories to review, recent log lines."
)
INSTRUCTIONS = (
    "Enyal is your memory across sessions. Before answering questions about this project, "
    "its conventions, past decisions or the user's preferences, search it with enyal_recall "
    "(enyal_recall_by_scope when working on one file). When you learn something a later "
    "session should know (a fact, preference, decision, convention or pattern), store it with "
    "enyal_remember as one self-contained statement. Correct memories that prove wrong with "
    "enyal_update or enyal_forget."
)
# The tool list is fixed for the life of the process and holds nothing private.
TOOLS_TTL_MS = 3_600_000
CALL_WORKERS = 4

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


@dataclass
class _Call:
    cancelled: bool = False
    future: Future[None] | None = None


Handler = Callable[[RequestId, Era, dict[str, Any]], Result | None]


class Server:
    def __init__(self, writer: Writer, link: DaemonLink, workers: int = CALL_WORKERS) -> None:
        self._writer = writer
        self._link = link
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="enyal-mcp-call")
        self._calls: dict[RequestId, _Call] = {}
        self._lock = threading.Lock()
        self._negotiated: str | None = None  # the handshake version, once initialize is answered
        self._handlers: dict[str, Handler] = {
            "ping": self._ping,
            "server/discover": self._discover,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "prompts/list": self._prompts_list,
            "prompts/get": self._prompts_get,
        }

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
        """Let calls already running finish (their responses may still be read); drop the rest."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._link.close()

    # --- routing -------------------------------------------------------------------------

    def _request(self, req_id: RequestId, method: str, params: dict[str, Any]) -> Result | None:
        if method == "initialize":  # always the handshake era, even if a client adds _meta
            return self._initialize(params)
        handler = self._handlers.get(method)
        if handler is None:
            raise Fault(METHOD_NOT_FOUND, f"unknown method {method!r}")
        era = self._era(method, params)
        result = handler(req_id, era, params)
        return None if result is None else era.finish(result)

    def _era(self, method: str, params: dict[str, Any]) -> Era:
        if versions.is_modern(params) or method == "server/discover":
            version = versions.modern_version(params)
            if method == "ping":
                raise Fault(METHOD_NOT_FOUND, "ping does not exist in MCP 2026-07-28")
            return Era(version, modern=True)
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
            capabilities=CAPABILITIES,
            server_info=SERVER_INFO,
            instructions=INSTRUCTIONS,
        )

    def _ping(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        return EmptyResult()

    def _discover(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        return DiscoverResult(
            supported_versions=list(versions.MODERN_VERSIONS),
            capabilities=CAPABILITIES,
            instructions=INSTRUCTIONS,
            ttl_ms=TOOLS_TTL_MS,
            cache_scope="public",
        )

    # --- tools -------------------------------------------------------------------------------

    def _tools_list(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> Result:
        result = ListToolsResult(tools=list(tools.definitions(era.version)))
        if era.modern:
            result = msgspec.structs.replace(result, ttl_ms=TOOLS_TTL_MS, cache_scope="public")
        return result

    def _tools_call(self, req_id: RequestId, era: Era, params: dict[str, Any]) -> None:
        name = params.get("name")
        if not isinstance(name, str):
            raise Fault(INVALID_PARAMS, "tools/call needs name, a string")
        spec = tools.BY_NAME.get(name)
        if spec is None:
            known = ", ".join(t.name for t in tools.TOOLS)
            raise Fault(INVALID_PARAMS, f"unknown tool {name!r} (the tools are {known})")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise Fault(INVALID_PARAMS, f"arguments of {name} must be an object")
        try:
            bound = tools.bind(spec, arguments)
        except tools.InvalidArguments as exc:
            raise Fault(INVALID_PARAMS, f"invalid arguments for {name}: {exc}") from None
        call = _Call()
        with self._lock:
            if req_id in self._calls:
                raise Fault(INVALID_REQUEST, f"request id {req_id!r} is already in flight")
            self._calls[req_id] = call
        call.future = self._pool.submit(self._run_call, req_id, era, spec, bound)
        return None

    def _run_call(
        self, req_id: RequestId, era: Era, spec: tools.ToolSpec, params: p.Params
    ) -> None:
        fault: Fault | None = None
        result = None
        try:
            structured = versions.at_least(era.version, versions.STRUCTURED_OUTPUT)
            result = era.finish(calls.run(self._link, spec, params, structured))
        except Exception as exc:
            log.exception("%s failed", spec.name)
            fault = Fault(INTERNAL_ERROR, f"{spec.name} failed: {exc}")
        with self._lock:
            call = self._calls.pop(req_id, None)
        if call is None or call.cancelled:
            log.info("%s (request %r) was cancelled; its outcome is dropped", spec.name, req_id)
        elif fault is not None:
            self._writer.fault(req_id, fault)
        else:
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
        result = ListPromptsResult(prompts=[prompt])
        if era.modern:
            result = msgspec.structs.replace(result, ttl_ms=TOOLS_TTL_MS, cache_scope="public")
        return result

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
            raw = self._link.call("brief", params)
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
            call = self._calls.get(request_id)
            if call is None:  # already answered, or never ours: the spec says ignore it
                return
            call.cancelled = True
            if call.future is not None and call.future.cancel():
                del self._calls[request_id]  # it never started, so no worker will pop it

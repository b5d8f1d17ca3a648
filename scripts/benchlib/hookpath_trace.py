"""Stage timestamps inside the daemon's hook endpoint and the MCP shim, for
profile_hookpaths.py: run as the process's entry point, it patches the few functions a
hook call passes through to note CLOCK_MONOTONIC (time.perf_counter_ns: the same clock
in every process on this machine) at each stage, then runs the real program.

    python hookpath_trace.py daemon [daemon args]   # as `python -m enyal_daemon`
    python hookpath_trace.py shim                    # as `enyal-mcp`

Standard library only (the shim runs in the client's virtualenv). What is noted, one
tuple a stage, written as JSON to $ENYAL_TRACE_DIR/<role>-<pid>.json at exit:

    daemon  accepted (the endpoint's coroutine starts: the loop took the connection),
            read (head and body parsed), run / ran (the hook logic on its thread, with
            that thread's run-queue wait from /proc in between), written (the reply
            handed to the socket)
    shim    line (the reading thread got the request's line), run / ran (on a pool
            worker, with its run-queue wait), written (the response line flushed)
    both    gc (each collection's start and end, its generation), and the main
            thread's and each traced thread's schedstat at each stage
"""

from __future__ import annotations

import atexit
import contextvars
import gc
import json
import os
import runpy
import sys
import threading
import time
from typing import Any

now = time.perf_counter_ns
NOTES: list[tuple[Any, ...]] = []
ROLE = ["x"]
_key: contextvars.ContextVar[list[Any]] = contextvars.ContextVar("key")


def _wait_ns() -> int:
    """This thread's time spent runnable but waiting for a core (schedstat's 2nd field)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as f:
            return int(f.read().split()[1])
    except OSError:
        return -1


def _gc(phase: str, info: dict[str, Any]) -> None:
    NOTES.append(("gc", phase, info.get("generation"), now(), info.get("collected")))


def _dump() -> None:
    out = os.environ.get("ENYAL_TRACE_DIR")
    if out:
        notes = []
        for note in NOTES:
            if note[0] == "mcp-line":  # the request's id and session, read now, not then
                try:
                    msg = json.loads(note[1])
                except ValueError:
                    continue
                args = (msg.get("params") or {}).get("arguments") or {}
                note = ("mcp-line", msg.get("id"), _session(args), note[2])
            notes.append(note)
        with open(os.path.join(out, f"{ROLE[0]}-{os.getpid()}.json"), "w") as f:
            json.dump({"gc_threshold": gc.get_threshold(), "notes": notes}, f)


def _session(data: Any) -> str:
    return str(data.get("session_id", "")) if isinstance(data, dict) else ""


def trace_daemon() -> None:
    from enyal_daemon.server import hook_http

    endpoint = hook_http.HookEndpoint
    serve, read, answer = endpoint.serve, endpoint._read, hook_http.answer

    async def traced_serve(self: Any, reader: Any, writer: Any) -> bool:
        box: list[Any] = [""]
        _key.set(box)
        t0 = now()
        try:
            return await serve(self, reader, writer)
        finally:
            NOTES.append(("http", box[0], "accepted", t0))
            NOTES.append(("http", box[0], "written", now()))

    async def traced_read(self: Any, reader: Any) -> tuple[str, dict[str, Any]]:
        verb, data = await read(self, reader)
        _key.get()[0] = _session(data)
        NOTES.append(("http", _session(data), "read", now()))
        return verb, data

    def traced_answer(c: Any, event: str, data: dict[str, Any], *a: Any) -> Any:
        key, w0, t0 = _session(data), _wait_ns(), now()
        try:
            return answer(c, event, data, *a)
        finally:
            t1, w1 = now(), _wait_ns()
            NOTES.append(("http", key, "run", t0))
            NOTES.append(("http", key, "ran", t1))
            NOTES.append(("http", key, "runq_ns", w1 - w0))

    endpoint.serve = traced_serve  # type: ignore[method-assign]
    endpoint._read = traced_read  # type: ignore[method-assign]
    hook_http.answer = traced_answer  # type: ignore[assignment]


def trace_shim() -> None:
    from enyal_client.mcp import hook_tool, server, wire

    handle, run, result = server.Server.handle, hook_tool.run, wire.Writer.result

    def traced_handle(self: Any, line: bytes) -> None:
        NOTES.append(("mcp-line", line, now()))
        handle(self, line)

    def traced_run(link: Any, event: str, data: dict[str, Any]) -> Any:
        key, w0, t0 = _session(data), _wait_ns(), now()
        try:
            return run(link, event, data)
        finally:
            t1, w1 = now(), _wait_ns()
            NOTES.append(("mcp", key, "run", t0))
            NOTES.append(("mcp", key, "ran", t1))
            NOTES.append(("mcp", key, "runq_ns", w1 - w0))

    def traced_result(self: Any, req_id: Any, res: Any) -> None:
        result(self, req_id, res)
        NOTES.append(("mcp-id", req_id, "written", now(), threading.get_ident()))

    server.Server.handle = traced_handle  # type: ignore[method-assign]
    hook_tool.run = traced_run
    wire.Writer.result = traced_result  # type: ignore[method-assign]


def main() -> None:
    role = ROLE[0] = sys.argv[1]
    del sys.argv[1]
    gc.callbacks.append(_gc)
    atexit.register(_dump)
    if role == "daemon":
        trace_daemon()
        runpy.run_module("enyal_daemon", run_name="__main__", alter_sys=True)
    else:
        trace_shim()
        from enyal_client.mcp.shim import main as shim

        sys.exit(shim())


if __name__ == "__main__":
    main()

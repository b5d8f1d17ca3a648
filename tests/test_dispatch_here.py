"""Dispatcher.handle_here, what the daemon's hook endpoint calls from its own threads
(issue 29: no hop to the loop and the request pool and back per call): every frame is
answered exactly as `handle` answers it on a socket, errors included."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from enyal_daemon.server.dispatch import Dispatcher
from enyal_daemon.service import verbs
from enyal_protocol import wire as p


def frame(method: str, params: Any = None, **more: Any) -> bytes:
    request = {"jsonrpc": "2.0", "id": 7, "method": method, **more}
    if params is not None:
        request["params"] = params
    return json.dumps(request).encode()


def test_handle_here_answers_as_handle_does(memory: Any) -> None:
    remembered = verbs.bind(memory)["remember"](
        p.RememberParams(content="Lint with ruff.", scope="global")
    )
    frames = [
        b"\xff\xfe",  # not UTF-8
        b"{",  # not JSON
        b'{"jsonrpc": "2.0", "id": 7}',  # no method
        frame("recall", {"query": "lint"}, jsonrpc="1.0"),
        frame("no_such_method"),
        frame("recall", {"query": ""}),  # invalid params
        frame("recall", {"query": "lint", "session_id": ""}),
        frame("recall", {"query": "x", "extra": 1}),
        frame("get", {"id": "0" * 32}),  # refused by the verb: not found
        frame("get", {"id": remembered.id}),
        frame("recall", {"query": "which linter?", "scope": "all"}),
        frame("recall", {"query": "lint"}, enyal_expect={"version": "0", "protocol": 0}),
        frame(
            "recall", {"query": "lint"}, enyal_expect={"version": "0", "protocol": 0, "db": "/x"}
        ),
        frame("session_seen", {"session_id": "s", "keys": ["a"], "record": False}),
        frame("subscribe", {}),  # a connection's method: there is no connection
        json.dumps({"jsonrpc": "2.0", "method": "stats"}).encode(),  # a notification
    ]
    handlers: dict[str, Any] = verbs.bind(memory)
    for name in ("status", "shutdown"):  # the server's own (server/daemon.py): not asked here
        handlers[name] = lambda params: None
    with ThreadPoolExecutor(2) as pool:
        d = Dispatcher(handlers, pool, memory.db_path)
        for f in frames:
            here = d.handle_here(f)
            there = asyncio.run(d.handle(f))
            if here is None or there is None:
                assert here is there, f
                continue
            mine, theirs = json.loads(here), json.loads(there)
            if "results" in theirs.get("result", {}):  # recency moves between the two calls
                for out in (mine, theirs):
                    out["result"]["results"] = [h["id"] for h in out["result"]["results"]]
            assert mine == theirs, f
    answered = [json.loads(a) for a in (d.handle_here(frames[9]), d.handle_here(frames[8]))]
    assert answered[0]["result"]["content"] == "Lint with ruff."
    assert answered[1]["error"]["code"] == p.NOT_FOUND

"""The daemon's verbs served in this process, for the profilers and the hooks' quality
check: what server/daemon.py binds, without a socket."""

from __future__ import annotations

from typing import Any

import msgspec


def handlers(engine: Any) -> dict[str, Any]:
    """Every protocol method bound on `engine` (verbs.bind), the few it serves elsewhere
    (the server's own: subscribe, status) answering None."""
    from enyal_daemon.service import verbs
    from enyal_protocol import wire as p

    bound: dict[str, Any] = verbs.bind(engine)
    for name in p.METHODS:
        bound.setdefault(name, lambda params: None)
    return bound


def recall_frames(queries: list[str], params: dict[str, Any]) -> list[bytes]:
    """One JSON-RPC `recall` frame a query, numbered from 0, each with `params` beside it."""
    return [
        msgspec.json.encode(
            {"jsonrpc": "2.0", "id": i, "method": "recall", "params": {"query": q, **params}}
        )
        for i, q in enumerate(queries)
    ]

"""`session_seen`: which of the keys a client session is about to be shown are new to it
(the state itself, bounded and in memory, is service/core/session_state.py)."""

from __future__ import annotations

from enyal_protocol import wire as p

from ..core.engine import Engine


def seen(engine: Engine, params: p.SessionSeenParams) -> p.SessionSeenResult:
    new, already = engine.sessions.check(
        params.session_id, params.keys, params.record, params.reset
    )
    return p.SessionSeenResult(new=new, seen=already)

"""Recall's hits as a client session is shown them (recall's `lines_about` and
`session_id`): what a hook did with a second round trip (session_seen) before, now in
the recall itself, in the same order (enyal_protocol/shown.py says how)."""

from __future__ import annotations

from typing import TypeVar

import msgspec

from enyal_protocol import shown
from enyal_protocol import wire as p

from ..core.engine import Engine

H = TypeVar("H", bound=p.Hit)


def shown_to(engine: Engine, hits: list[H], lines_about: list[str], session: str | None) -> list[H]:
    """A day's log cut to its lines about `lines_about` (or left out), then what the
    session was shown before left out and the rest recorded as shown."""
    if lines_about:
        about = set(lines_about)
        cut: list[H] = []
        for h in hits:
            if h.content_type == "log":
                lines = shown.log_about(h.content, about)
                if lines is None:
                    continue
                h = msgspec.structs.replace(h, content=lines)
            cut.append(h)
        hits = cut
    if session is None or not hits:  # no hits: no session made for them
        return hits
    new = set(engine.sessions.check(session, [shown.key(h.id) for h in hits])[0])
    return [h for h in hits if shown.key(h.id) in new]

"""PreCompact, Stop, SessionEnd: the session's digest (transcript.py) into the day's log.

Each digest line is appended once per session: the daemon's session state (session_seen)
says which lines this session already wrote, so a Stop after every turn and the
SessionEnd after them add only what is new. The daemon redacts secrets on write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from enyal_protocol import wire as p

from ..commands import contract as ct
from ..transport import ClientError, Connection
from . import transcript


def capture(c: Connection, data: dict[str, Any], session: str, cwd: str) -> int:
    """Append the new lines of the session's digest; how many were appended."""
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path:
        raise ClientError("the hook input has no transcript_path")
    try:
        lines = transcript.digest(Path(path), cwd).lines()
    except OSError as exc:
        raise ClientError(f"cannot read the transcript {path}: {exc.strerror}") from None
    if not lines:
        return 0
    keys = [f"log:{line}" for line in lines]
    ask = {"session_id": session, "keys": keys, "record": False}
    new = ct.call(c, "session_seen", ask, p.SessionSeenResult).new
    # Recorded only once written: a failed append is tried again at the next event.
    for key in new:
        ct.call(c, "log_append", {"text": key[4:], "cwd": cwd}, p.LogAppendResult)
        ct.call(c, "session_seen", {"session_id": session, "keys": [key]}, p.SessionSeenResult)
    return len(new)

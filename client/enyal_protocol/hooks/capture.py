"""PreCompact, Stop, SessionEnd: the session's digest (transcript.py) into the day's log.

Each digest item is written once per session: the daemon's session state (session_seen)
says which items this session already wrote, so a Stop after every turn and the
SessionEnd after them add only what is new, as ONE log line per event: a log append
re-embeds the day's entry (service/session/daylog.py), 0.2 s idle and seconds under load, so an
append per item made a Stop take 17-43 s on a loaded machine. The daemon redacts
secrets on write."""

from __future__ import annotations

from pathlib import Path

from . import transcript
from .caller import HookInputError

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from typing import Any

    from .caller import Caller

SEP = " · "
MAX_LINE = 4000  # log_append takes 4096 characters; the redaction placeholders may grow it


def line(session: str, items: list[str]) -> tuple[str, list[str]]:
    """One log line holding as many of `items` as fit in a log line (the rest wait for
    the next event), and the items it holds."""
    head = f"session {session[:8]}: "
    held: list[str] = []
    size = len(head)
    for item in items:
        size += len(item) + len(SEP)
        if size > MAX_LINE:
            break
        held.append(item)
    return head + SEP.join(held), held


def capture(c: Caller, data: dict[str, Any], session: str, cwd: str) -> int:
    """Append what the session's digest holds that this session did not write yet, as
    one log line; how many items it held."""
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path:
        raise HookInputError("the hook input has no transcript_path")
    try:
        items = transcript.digest(Path(path), cwd).items()
    except OSError as exc:
        raise HookInputError(f"cannot read the transcript {path}: {exc.strerror}") from None
    if not items:
        return 0
    keys = {f"log:{item}": item for item in items}
    ask = {"session_id": session, "keys": list(keys), "record": False}
    new = [keys[k] for k in c.call("session_seen", ask)["new"]]
    if not new:
        return 0
    text, held = line(session, new)
    c.call("log_append", {"text": text, "cwd": cwd})
    # Recorded only once written: a failed append is tried again at the next event.
    done = {"session_id": session, "keys": [f"log:{item}" for item in held]}
    c.call("session_seen", done)
    return len(held)

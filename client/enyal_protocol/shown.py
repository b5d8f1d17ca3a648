"""What a client session is shown of a memory, said once for the hook logic
(enyal_protocol/hooks) and the daemon's recall, which applies both for a session
(recall's `session_id` and `lines_about`, so a hook needs one round trip, not two):
a memory's key in session_seen, and a day's log cut to its lines about some words."""

from __future__ import annotations

from .lazy_re import LazyPattern

MAX_ABOUT = 1000  # words a recall's lines_about may hold (wire.py's bound)
LOG_LINES = 3  # of a day's log beside a file or an error: its first lines about it
LOG_JOIN = " / "
_WORD = LazyPattern(r"[a-z0-9_][a-z0-9_./-]*[a-z0-9_]")  # compiled at first use (lazy_re.py)
# How the brief ends a memory's line: its key (a line cut to fit ends in `[enyal get
# …]` instead, so what the agent saw of it was only a part, and it is not counted shown).
_BRIEF_ITEM = LazyPattern(r"(?m) · `([0-9a-f]{8})`$")


def key(entry_id: str) -> str:
    """A memory's key in session_seen: the short id the brief shows (`abcd1234`), so a
    memory the brief gave is known by it (32 bits: no clash within one session)."""
    return entry_id[:8]


def words(text: str) -> set[str]:
    """Its words, a path or a dotted name as one ("src/billing.py", "sqlite3.operationalerror")."""
    return set(_WORD.findall(text.lower()))


def log_about(content: str, about: set[str]) -> str | None:
    """A day's log cut down to its lines that hold one of the words `about` (lowercase),
    None when none does: a whole day of log lines beside a file or an error is noise."""
    lines = [line for line in content.splitlines() if about & words(line)]
    return LOG_JOIN.join(lines[:LOG_LINES]) if lines else None


def brief_keys(markdown: str) -> list[str]:
    """The keys of the memories a brief lists whole, in its order."""
    return _BRIEF_ITEM.findall(markdown)

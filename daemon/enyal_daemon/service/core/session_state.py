"""What each client session was already shown, so that a hook injects a memory once.

Held in memory only, on purpose: it is a courtesy to one agent's context window, not
data; a daemon restart forgets it and the worst outcome is a memory shown a second
time. Bounded three ways so that no client can grow it without end: at most
MAX_SESSIONS sessions (the least recently used one goes first), at most MAX_KEYS keys
per session (its oldest go first), and a session not used for TTL_SECONDS is dropped.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

MAX_SESSIONS = 1000
MAX_KEYS = 5000
TTL_SECONDS = 24 * 3600.0


class _Session:
    __slots__ = ("keys", "used")

    def __init__(self, now: float) -> None:
        self.keys: OrderedDict[str, None] = OrderedDict()
        self.used = now


class Sessions:
    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        max_keys: int = MAX_KEYS,
        ttl: float = TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_sessions = max_sessions
        self._max_keys = max_keys
        self._ttl = ttl
        self._clock = clock
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()  # verbs run on worker threads

    def __len__(self) -> int:
        return len(self._sessions)

    def _expire(self, now: float) -> None:
        # Least recently used first: the expired ones are all at the front.
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.used < self._ttl:
                break
            self._sessions.popitem(last=False)

    def check(
        self, session_id: str, keys: Sequence[str], record: bool = True, reset: bool = False
    ) -> tuple[list[str], list[str]]:
        """(new, seen): the keys this session was not shown yet and those it was, in the
        order given (a key twice in `keys` counts once); the new ones recorded if asked.
        `reset` first forgets what the session was shown."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            if reset:
                self._sessions.pop(session_id, None)
            session = self._sessions.get(session_id)
            if session is None:
                session = _Session(now)
                if record:
                    self._sessions[session_id] = session
                    while len(self._sessions) > self._max_sessions:
                        self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(session_id)
                session.used = now
            new: list[str] = []
            seen: list[str] = []
            for key in dict.fromkeys(keys):
                (seen if key in session.keys else new).append(key)
            if record:
                for key in new:
                    session.keys[key] = None
                while len(session.keys) > self._max_keys:
                    session.keys.popitem(last=False)
            return new, seen

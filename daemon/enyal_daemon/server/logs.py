"""Where the daemon's log goes: stderr under a service manager (journald keeps it),
a rotating file in the log dir when a client started it in the background.

Every line goes through a rate limit: a storm of one message (asyncio's traceback for
each accept that finds no free descriptor came ~2,300 times a second) would otherwise
fill the whole rotating log in seconds and push out everything that explains it.
"""

from __future__ import annotations

import logging
import logging.handlers
import threading
import time
from pathlib import Path

from enyal_protocol.private import make_private_dirs

from ..hygiene.secrets import BUILT_IN

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Of one message (same logger, level and format string): this many lines per window.
BURST = 10
WINDOW_SECONDS = 10.0


class RateLimit(logging.Filter):
    """At most `burst` records of one kind per `window` seconds. What is held back is
    counted, and said on the first record of that kind let through afterwards."""

    def __init__(self, burst: int = BURST, window: float = WINDOW_SECONDS) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self._lock = threading.Lock()
        self._kinds: dict[tuple[str, int, str], list[float]] = {}  # [start, passed, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg))
        now = time.monotonic()
        with self._lock:
            if len(self._kinds) > 10_000:  # kinds come from code, not input; bound it anyway
                self._kinds.clear()
            kind = self._kinds.setdefault(key, [now, 0, 0])
            if now - kind[0] >= self.window:
                dropped = int(kind[2])
                kind[:] = [now, 0, 0]
                if dropped:
                    record.msg = (
                        f"{record.getMessage()} [{dropped} more like this in the "
                        f"last {self.window:g} s were not logged]"
                    )
                    record.args = None
            if kind[1] >= self.burst:
                kind[2] += 1
                return False
            kind[1] += 1
            return True


class RedactingFormatter(logging.Formatter):
    """Every line, traceback included, through the secret rules: an exception's message
    can quote what a client sent (a path, a value), and the log outlives the request."""

    def format(self, record: logging.LogRecord) -> str:
        return BUILT_IN.redact(super().format(record)).text


def setup(log_file: Path | None, level: str = "INFO") -> None:
    handler: logging.Handler
    if log_file is None:
        handler = logging.StreamHandler()
    else:
        make_private_dirs(log_file.parent)  # logs quote memories
        handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
        )
    handler.setFormatter(RedactingFormatter(FORMAT))
    handler.addFilter(RateLimit())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())

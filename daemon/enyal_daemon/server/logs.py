"""Where the daemon's log goes: stderr under a service manager (journald keeps it),
a rotating file in the log dir when a client started it in the background."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from ..hygiene.secrets import BUILT_IN

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


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
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
        )
    handler.setFormatter(RedactingFormatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())

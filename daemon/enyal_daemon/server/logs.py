"""Where the daemon's log goes: stderr under a service manager (journald keeps it),
a rotating file in the log dir when a client started it in the background."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from enyal_protocol.private import make_private_dirs

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup(log_file: Path | None, level: str = "INFO") -> None:
    handler: logging.Handler
    if log_file is None:
        handler = logging.StreamHandler()
    else:
        make_private_dirs(log_file.parent)  # logs quote memories
        handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
        )
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())

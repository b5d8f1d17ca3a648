"""A test's hold on a harness daemon's clock: a file holding how many seconds the daemon's
time runs ahead of the system's. The test writes it (MovedClock.advance); the daemon,
started by clocked_daemon.py, reads it on every "now" (FileClock). Time keeps flowing
underneath, so everything else a daemon does with time behaves as in production.

No enyal import here: the tests' and the torture suite's processes load this, and only
the daemon's side (clocked_daemon.py) needs the engine's Clock."""

from __future__ import annotations

import os
from pathlib import Path


def read_offset(path: Path) -> float:
    """Seconds ahead of the system clock; 0 while the test has not moved it."""
    try:
        return float(path.read_text() or 0)
    except FileNotFoundError:
        return 0.0


class MovedClock:
    def __init__(self, path: Path) -> None:
        self.path = path

    def advance(self, seconds: float) -> None:
        """Move the daemon's time forward; its next request sees the new time."""
        ahead = read_offset(self.path) + seconds
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(repr(ahead))
        os.replace(tmp, self.path)  # the daemon reads either the old offset or the new one

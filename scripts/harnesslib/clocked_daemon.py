"""python scripts/harnesslib/clocked_daemon.py CLOCK_FILE [daemon options]: the daemon, as
`python -m enyal_daemon` runs it, on a clock that runs CLOCK_FILE's seconds ahead of the
system's (clockfile.py), so that a test moves past an expiry instead of sleeping.

This is the only way to give a daemon another clock (enyal_daemon.__main__.run_daemon's
`clock`): a program of the harness, not installed, that no user runs by accident. The
daemon a user runs has no option, variable or file that moves its time."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from enyal_daemon.__main__ import run_daemon
from enyal_daemon.service.rules.clock import Clock
from harnesslib.clockfile import read_offset


class FileClock(Clock):
    def __init__(self, path: Path) -> None:
        self.path = path

    def now(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=read_offset(self.path))


if __name__ == "__main__":
    sys.exit(run_daemon(sys.argv[2:], clock=FileClock(Path(sys.argv[1]))))

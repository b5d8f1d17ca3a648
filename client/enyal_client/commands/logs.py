"""`enyal logs [-n N] [-f]`: the daemon's log when a client started it (a rotating file in
the log dir). Under systemd the log goes to the journal instead; this says where."""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from pathlib import Path

from enyal_protocol.paths import resolve

from .base import Args, Context, Registry, Result

POLL_SECONDS = 0.25


def tail(path: Path, n: int) -> list[str]:
    with path.open(encoding="utf-8", errors="replace") as f:
        return list(deque(f, maxlen=n))


def follow(path: Path) -> None:
    """Print lines as they are appended; reopen when the file is rotated or recreated."""
    f = path.open(encoding="utf-8", errors="replace")
    f.seek(0, os.SEEK_END)
    ino = os.fstat(f.fileno()).st_ino
    try:
        while True:
            line = f.readline()
            if line:
                sys.stdout.write(line)
                sys.stdout.flush()
                continue
            time.sleep(POLL_SECONDS)
            try:
                if os.stat(path).st_ino != ino:  # rotated: read the new file from its start
                    f.close()
                    f = path.open(encoding="utf-8", errors="replace")
                    ino = os.fstat(f.fileno()).st_ino
            except FileNotFoundError:
                pass
    except KeyboardInterrupt:
        pass
    finally:
        f.close()


def _journal_hint() -> str:
    return (
        "under systemd the daemon logs to the journal: journalctl --user -u enyal.service -n 50 -f"
    )


def cmd_logs(ctx: Context, a: Args) -> Result:
    paths = resolve()
    log = paths.log_file
    spawn = paths.log_dir / "spawn.log"
    if not log.is_file():
        text = f"no log file at {log} (no daemon was started in the background here yet); "
        return {"file": str(log), "lines": []}, text + _journal_hint()
    lines = tail(log, a.lines)
    if a.follow and not a.json:
        sys.stdout.write("".join(lines))
        sys.stdout.flush()
        follow(log)
        return None, ""
    extra = ""
    if spawn.is_file() and spawn.stat().st_size:
        extra = f"\n(output from before logging started, e.g. crashes at start: {spawn})"
    result = {"file": str(log), "lines": [x.rstrip("\n") for x in lines]}
    return result, "".join(lines).rstrip("\n") + extra


def register(reg: Registry) -> None:
    lg = reg.verb("logs", "show the daemon's log (the file a background daemon writes)", cmd_logs)
    lg.add_argument("-n", "--lines", type=int, default=50, help="how many lines (default 50)")
    lg.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")

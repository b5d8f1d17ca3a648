"""Progress on stderr, which a tool shares with the user's terminal or log."""

from __future__ import annotations

import sys
import time


class Bar:
    """A redrawn bar on a terminal, a line per percent otherwise (logs, pipes)."""

    def __init__(self, label: str, quiet: bool) -> None:
        self.label, self.quiet = label, quiet
        self.tty = sys.stderr.isatty()
        self._last = -1
        self._last_time = 0.0

    def update(self, done: int, total: int | None, unit: str = "") -> None:
        if self.quiet:
            return
        if not total:
            now = time.monotonic()
            if now - self._last_time >= 1.0:  # no total to count percent of: once a second
                self._last_time = now
                print(f"{self.label}: {done}{unit}", file=sys.stderr, flush=True)
            return
        pct = int(100 * done / total)
        if self.tty:
            fill = pct * 30 // 100
            bar = "#" * fill + "-" * (30 - fill)
            end = "\n" if done >= total else ""
            print(
                f"\r{self.label} [{bar}] {pct:3d}% {done}/{total}{unit}", end=end, file=sys.stderr
            )
            sys.stderr.flush()
        elif pct != self._last:
            print(f"{self.label}: {pct}% {done}/{total}{unit}", file=sys.stderr, flush=True)
        self._last = pct

"""Every thread under its own cProfile, each on its thread's CPU clock, merged at the end:
cProfile sees only the thread that enables it, and waiting must count nothing for the
shares to hold under load. For profile_recall.py (in-process) and profile_daemon.py (the
daemon as a child process)."""

from __future__ import annotations

import contextlib
import cProfile
import pstats
import threading
import time

_profiles: list[cProfile.Profile] = []
_original_run = threading.Thread.run


def _profiled_run(self: threading.Thread) -> None:
    prof = cProfile.Profile(time.thread_time)
    _profiles.append(prof)
    prof.enable()
    try:
        _original_run(self)
    finally:
        prof.disable()


def start() -> None:
    """Every thread started from now on runs profiled (the caller profiles its own)."""
    threading.Thread.run = _profiled_run  # type: ignore[method-assign]


def merged(main: cProfile.Profile) -> pstats.Stats:
    """The caller's profile `main` with every profiled thread's."""
    stats = pstats.Stats(main)
    for prof in _profiles:
        with contextlib.suppress(TypeError):  # a thread that ran nothing while profiled
            stats.add(prof)
    return stats

"""The niced thread (enyal_daemon/niced.py): what it is handed runs there, at a lower CPU
priority, the caller waiting for its result or its exception; the caller's own priority
never changes; close stops the thread."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from enyal_daemon.niced import NICE, Niced

LINUX = sys.platform.startswith("linux")


def _where() -> tuple[str, int]:
    return threading.current_thread().name, os.getpriority(
        os.PRIO_PROCESS, threading.get_native_id()
    )


def test_what_is_handed_runs_on_the_niced_thread_and_the_caller_keeps_its_priority() -> None:
    low = Niced("test-low")
    before = _where()
    try:
        name, nice = low.run(_where)
        assert name == "test-low"
        if LINUX:  # renices its own thread only, NICE steps below the caller
            assert nice == min(19, before[1] + NICE)
        assert _where() == before
        with pytest.raises(ZeroDivisionError):
            low.run(lambda: 1 // 0)
        assert low.run(lambda: 42) == 42  # the thread lives on after an exception
    finally:
        low.close()
    assert not any(t.name == "test-low" for t in threading.enumerate())
    try:  # handed more after close: a thread of its own again
        assert low.run(_where)[0] == "test-low"
    finally:
        low.close()

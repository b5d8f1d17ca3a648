"""Requests being served right now, so that background work can step aside for them.

A replica's initial sync is CPU-bound Python (the secret rules, the injection check)
beside SQLite: run alongside a recall it takes the interpreter's lock for its 5 ms
switch interval each time the recall gives it up (for the model, for SQLite), and the
recall's p99 went to 3-6 times idle. The server counts each request from its arrival to
its answer (server/dispatch.py), and on a connection until the answer is written
(server/daemon.py, `answering`); the sync, between the changes it checks, waits while
one is in flight, up to MOST seconds for each run of changes, so a stream of requests
(or a long one: an import) slows it and never stops it. While it runs, the interpreter
switches threads sooner (`quick_switches`), so a request arriving is read sooner. The
piece under way when a request arrives is not interrupted: it runs at low CPU priority
(enyal_daemon/niced.py), and gives the request's threads the cores. And while requests
come (one in flight, or the last answered less than RECENT seconds ago), the sync rests
after each piece in proportion to the CPU it took (DUTY), while it is ahead of its
schedule (a catch-up's: service/hub/converge.py, PACED_RATE), so that fewer pieces are
under way when the next request arrives: on two cores, the recall's p99 during a sync
came from the one it found there (the core, and the interpreter's lock a niced thread
held while the machine's other work kept it off a core; docs/ARCHITECTURE.md, "Initial
sync").

Acknowledged writes are counted too, from the embedding of what a request will write to
its commit (`announce` .. `settle`, on the request's thread): the bookkeeping flush
(service/core/bookkeeping.py) writes its next chunk only once none is coming
(`wait_for_writes`), so a remember's write does not queue behind a chunk, nor its
embedding and commit share the cores with one (issue 30).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

MOST = 0.1  # seconds of stepping aside per slice at most (a recall takes ~15-60 ms)
# How often a step aside with an `unless` looks at it (nothing notifies its change)
LOOK = 0.002

# While requests come, a paced catch-up's thread works at most DUTY of the time: after a
# piece that took c seconds of its CPU it rests c * (1 - DUTY) / DUTY (0.6: two thirds of
# c), within the same MOST a slice, and only while its work is ahead of its schedule
# (`budget`'s `until`). "Requests come": one in flight, or one answered less than RECENT
# seconds ago (an agent's recalls come seconds apart at most while it works).
DUTY = 0.6
RECENT = 0.5

# The interpreter's switch interval while a catch-up runs (`quick_switches`; Python's is
# 5 ms).
SWITCH = 0.0005

_quiet = threading.Condition()
_serving = 0
_answering = 0  # requests on a connection until their answer is written (`answering`)
_answered = -1e9  # time.monotonic() when the last request in flight was answered
_piece = threading.local()  # a pacing thread's CPU clock as its piece began (`budget`)
_writes = threading.Condition()
_coming = 0  # acknowledged writes announced and not yet settled
_announced = threading.local()  # whether this thread's request announced one
_switches = threading.Lock()
_quick: list[float] = []  # the interval to put back, once per holder


@contextmanager
def serving() -> Iterator[None]:
    """Around one request's verb (server/dispatch.py): counted from its arrival until its
    answer is made; on a connection, `answering` goes on to its write."""
    global _serving
    with _quiet:
        _serving += 1
    try:
        yield
    finally:
        with _quiet:
            _serving -= 1
            _went_quiet()


class Answer:
    """One request counted by `answering`; `end` stops counting it before the block ends
    (once; the block's end then does nothing)."""

    def __init__(self) -> None:
        global _answering
        self._open = True
        with _quiet:
            _answering += 1

    def end(self) -> None:
        global _answering
        with _quiet:
            if self._open:
                self._open = False
                _answering -= 1
                _went_quiet()


@contextmanager
def answering() -> Iterator[Answer]:
    """Around a request on a connection, from its arrival to its answer written (the
    socket server's, server/daemon.py; the hook endpoint's whole connection, hook_http.py):
    background work steps aside until then, not only until the verb returns. The loop
    thread still encodes and writes the answer after that, and needs the interpreter's
    lock for it: a catch-up resuming at the verb's return took it, and a recall's way out
    went from p99 0.53 ms idle to 2.18 during a sync (scripts/benchlib/profile_hubtail.py).
    Not counted by `in_flight`: that asks how many requests want a core for their verbs."""
    answer = Answer()
    try:
        yield answer
    finally:
        answer.end()


def _went_quiet() -> None:
    """(Under `_quiet`.) When nothing is served or written any more: the time, and the
    waiters woken."""
    global _answered
    if _busy() == 0:
        _answered = time.monotonic()
        _quiet.notify_all()


def in_flight() -> int:
    return _serving


def _busy() -> int:
    """Requests served or answering (see `answering`): what background work steps aside for."""
    return _serving + _answering


def step_aside(most: float, unless: Callable[[], bool] | None = None) -> float:
    """Return once no request is being served or answered (`_busy`), or `unless()`
    holds, or after `most` seconds; how long it waited."""
    if _busy() == 0:  # the common case: two reads of an int, no lock
        return 0.0
    start = time.monotonic()
    with _quiet:
        if unless is None:
            _quiet.wait_for(lambda: _busy() == 0, timeout=most)
        else:
            while _busy() and not unless() and (left := start + most - time.monotonic()) > 0:
                _quiet.wait(min(left, LOOK))
    return time.monotonic() - start


def announce() -> None:
    """An acknowledged write is being prepared on this thread (its text embedded): counted
    until this thread's `settle`. Once per thread, however often it is called."""
    global _coming
    if getattr(_announced, "on", False):
        return
    _announced.on = True
    with _writes:
        _coming += 1


def settle() -> None:
    """This thread's announced write is done (committed or failed); nothing if none."""
    global _coming
    if not getattr(_announced, "on", False):
        return
    _announced.on = False
    with _writes:
        _coming -= 1
        if _coming == 0:
            _writes.notify_all()


def writes_coming() -> int:
    return _coming


def wait_for_writes(most: float) -> float:
    """Return once no acknowledged write is announced, or after `most` seconds; how long it
    waited."""
    if _coming == 0:
        return 0.0
    start = time.monotonic()
    with _writes:
        _writes.wait_for(lambda: _coming == 0, timeout=most)
    return time.monotonic() - start


class Pause(Protocol):
    def __call__(self, unless: Callable[[], bool] | None = None) -> None: ...


def budget(per: int, until: Callable[[], float] | None = None) -> Pause:
    """A step aside to call before each piece of work (none while its `unless()` holds:
    a write waits behind it): while requests come, a rest for the piece just done on this
    thread (`DUTY`) that ends by `until()` (a time.monotonic(): the work's schedule; with
    none, no rest), then a wait while one is served. The calls of each run of `per`
    together wait MOST seconds at most, from whichever threads they come (a catch-up's
    checks and its writer's job share one)."""
    left = [MOST]
    calls = [0]

    def pause(unless: Callable[[], bool] | None = None) -> None:
        calls[0] += 1
        if calls[0] % per == 0:
            left[0] = MOST
        began = getattr(_piece, "began", None)
        if (
            left[0] > 0
            and (_busy() or time.monotonic() - _answered < RECENT)
            and (unless is None or not unless())
        ):
            if began is not None and until is not None:  # CPU, not wall: see DUTY
                rest = (time.thread_time() - began) * (1 - DUTY) / DUTY
                rest = min(left[0], rest, until() - time.monotonic())
                if rest > 0:
                    time.sleep(rest)
                    left[0] -= rest
            if _busy() and left[0] > 0:
                left[0] -= step_aside(left[0], unless)
        _piece.began = time.thread_time()

    return pause


def never(unless: Callable[[], bool] | None = None) -> None:
    """The pause of work that must not wait: a live change is applied at once."""


@contextmanager
def quick_switches() -> Iterator[None]:
    """While held (from any thread, nested or not), a thread waiting for the interpreter's
    lock is handed it after SWITCH seconds, not Python's 5 ms. A request arrives on the
    server's loop, which needs the lock to read it, before it counts as served and
    background work steps aside for it; meanwhile a catch-up's checks hold the lock, and
    (stepping aside only for requests already counted) let it go only when the interval
    forces them: a request waited up to 5 ms before the server could read it (measured:
    docs/ARCHITECTURE.md, "What a recall waits for while a sync runs")."""
    with _switches:
        _quick.append(sys.getswitchinterval())
        if len(_quick) == 1:
            sys.setswitchinterval(SWITCH)
    try:
        yield
    finally:
        with _switches:
            before = _quick.pop()
            if not _quick:
                sys.setswitchinterval(before)

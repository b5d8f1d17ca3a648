"""Background work's pacing around requests (service/core/traffic.py): a catch-up's pause
steps aside while a request is served, and while requests come it rests after each piece
of its work in proportion to the CPU the piece took, within the same budget and only
while the work is ahead of its schedule (`until`); with no request lately, or a write
waiting behind it, it does not rest."""

from __future__ import annotations

import time

import pytest

from enyal_daemon.service.core import traffic

# Under a rest: one after a piece of 50 ms of CPU would be 33 ms (DUTY 0.6); a loaded
# machine can keep a thread that took none from a core for a few ms.
NO_REST = 0.02


def _piece(cpu: float) -> None:
    """Work on this thread for `cpu` seconds of its CPU clock (a wall clock would count the
    waits of a loaded machine)."""
    end = time.thread_time() + cpu
    while time.thread_time() < end:
        pass


def _later() -> float:
    """A schedule never behind."""
    return time.monotonic() + 60.0


def _timed(pause: traffic.Pause, **kw: object) -> float:
    t0 = time.monotonic()
    pause(**kw)  # type: ignore[arg-type]
    return time.monotonic() - t0


@pytest.fixture
def lasting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(traffic, "MOST", 60.0)  # the budget never the bound, unless set
    # A request still counts as lately answered, unless set: on a loaded machine a piece
    # of 50 ms of CPU can take longer than RECENT's 0.5 s of wall (a flake in CI).
    monkeypatch.setattr(traffic, "RECENT", 60.0)


def test_while_requests_come_a_piece_is_followed_by_a_rest_in_proportion(lasting: None) -> None:
    pause = traffic.budget(1000, _later)
    with traffic.serving():  # a request answered just now
        pass
    pause()  # the first piece begins: nothing ran before it to rest for
    _piece(0.05)
    rested = _timed(pause)
    want = 0.05 * (1 - traffic.DUTY) / traffic.DUTY
    assert want > 0
    assert want * 0.95 <= rested < want * 3 + 0.1


def test_with_no_request_lately_a_catch_up_runs_on_at_full_speed(
    lasting: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traffic, "RECENT", 0.05)
    pause = traffic.budget(1000, _later)
    with traffic.serving():
        pass
    time.sleep(0.1)  # longer ago than RECENT
    pause()
    _piece(0.05)
    assert _timed(pause) < NO_REST


def test_a_rest_is_taken_from_the_budget_and_never_with_a_write_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(traffic, "MOST", 0.02)
    pause = traffic.budget(1000, _later)
    with traffic.serving():
        pass
    pause()
    _piece(0.2)  # would rest 0.13 s at DUTY 0.6: the budget allows 0.02
    assert _timed(pause) < 0.02 + 0.05
    _piece(0.05)
    assert _timed(pause) < NO_REST  # spent
    monkeypatch.setattr(traffic, "MOST", 60.0)
    pause = traffic.budget(1000, _later)
    pause()
    _piece(0.05)
    assert _timed(pause, unless=lambda: True) < NO_REST  # a write queued behind the job


def test_no_rest_once_the_work_is_behind_its_schedule_nor_without_one(lasting: None) -> None:
    """A catch-up rests only while ahead of converge.PACED_RATE (its `until`); the pull's
    pages (none) only step aside."""
    with traffic.serving():
        pass
    due = time.monotonic() + 0.03
    for pause in (traffic.budget(1000, lambda: due), traffic.budget(1000)):
        pause()
        _piece(0.05)  # longer than 0.03 s of wall, whatever the machine
        assert _timed(pause) < NO_REST

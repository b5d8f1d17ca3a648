"""server/periodic.every, the one loop behind the daemon's background jobs: it runs a
step, waits, and ends on the daemon's stop or when the step says its job is done."""

from __future__ import annotations

import asyncio
import time

import pytest

from enyal_daemon.server.periodic import DONE, Done, every


def test_a_job_that_is_done_ends_the_loop_and_first_zero_runs_at_once() -> None:
    runs: list[float] = []

    def step() -> Done | None:
        runs.append(time.monotonic())
        return DONE if len(runs) == 3 else None

    async def go() -> float:
        start = time.monotonic()
        await asyncio.wait_for(every(0.05, step, asyncio.Event(), first=0), 10)
        return start

    start = asyncio.run(go())
    assert len(runs) == 3
    assert runs[0] - start < 0.05  # no wait before the first run
    assert runs[1] - runs[0] >= 0.05 and runs[2] - runs[1] >= 0.05


def test_a_step_can_ask_for_another_wait_this_once() -> None:
    runs: list[float] = []

    def step() -> float | Done:
        runs.append(time.monotonic())
        return 0.2 if len(runs) == 1 else DONE

    asyncio.run(asyncio.wait_for(every(0.0, step, asyncio.Event(), first=0), 10))
    assert len(runs) == 2 and runs[1] - runs[0] >= 0.2


@pytest.mark.parametrize(("last", "expected"), [(False, 0), (True, 1)])
def test_stop_ends_a_wait_at_once_and_last_runs_the_step_once_more(
    last: bool, expected: int
) -> None:
    runs: list[float] = []

    async def go() -> float:
        stop = asyncio.Event()
        task = asyncio.create_task(every(60.0, lambda: runs.append(0.0), stop, last=last))
        await asyncio.sleep(0)  # the loop is now in its first wait
        began = time.monotonic()
        stop.set()
        await asyncio.wait_for(task, 10)
        return time.monotonic() - began

    took = asyncio.run(go())
    assert len(runs) == expected
    assert took < 5  # not the 60 s period


def test_a_stopped_loop_runs_nothing() -> None:
    runs: list[float] = []
    stop = asyncio.Event()
    stop.set()
    asyncio.run(every(0.0, lambda: runs.append(0.0), stop, first=0, last=True))
    assert runs == []

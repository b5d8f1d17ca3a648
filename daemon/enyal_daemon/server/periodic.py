"""`every`: the one loop behind the daemon's background jobs (flushing bookkeeping,
giving older memories passages, merging the keyword index, scheduled consolidation).

Each job's step runs in the loop's default executor, so a step's database work never
holds up the event loop; between steps the loop waits on the daemon's stop, so a
stopping daemon is never kept waiting by a pause.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final


class Done:
    """What a step returns when its job is over for the life of the process."""


DONE: Final = Done()

# A step returns the seconds to wait before it runs again (None: the job's usual period),
# or DONE.
Step = Callable[[], float | Done | None]


async def every(
    seconds: float,
    step: Step,
    stop: asyncio.Event,
    *,
    first: float | None = None,
    last: bool = False,
) -> None:
    """Run `step` every `seconds` until `stop` is set or it returns DONE.

    first: the wait before the first run (None: `seconds`; 0: at once).
    last: run once more when `stop` ends a wait, for a job whose work must not be lost
    at shutdown (the bookkeeping a request has buffered)."""
    loop = asyncio.get_running_loop()
    wait = seconds if first is None else first
    while not stop.is_set():
        if wait > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            if stop.is_set() and not last:
                return
        after = await loop.run_in_executor(None, step)
        if isinstance(after, Done):
            return
        wait = seconds if after is None else after

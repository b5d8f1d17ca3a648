"""Another client recalling back to back on its own connection, while a section times
something else: the load an agent's remember meets when other agents are reading."""

from __future__ import annotations

import threading
from types import TracebackType

from benchlib.procs import Daemon


class RecallLoad:
    """A thread that recalls `queries` in turn until the block exits. It waits on the
    socket almost all the time, so it costs the timing thread next to nothing."""

    def __init__(self, daemon: Daemon, queries: list[str], cwd: str) -> None:
        self._daemon = daemon
        self._queries = queries
        self._cwd = cwd
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-recall-load", daemon=True)
        self.served = 0
        self.error: BaseException | None = None

    def _run(self) -> None:
        conn = self._daemon.connect()
        try:
            i = 0
            while not self._stop.is_set():
                q = self._queries[i % len(self._queries)]
                conn.call_raw("recall", {"query": q, "cwd": self._cwd})
                self.served += 1
                i += 1
        except BaseException as exc:  # reported by the section, which then fails loudly
            self.error = exc
        finally:
            conn.close()

    def __enter__(self) -> RecallLoad:
        self._thread.start()
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(60)
        if self.error is not None and et is None:
            raise RuntimeError(f"the background recall client failed: {self.error}")

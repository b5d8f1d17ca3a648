"""One engine's replica: its capture (always on: a change to a memory of a space is in
the outbox whether or not the hub is reachable), and its worker, running while a hub
URL is recorded. The server starts it with the daemon and stops it before the writer."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

from ...hub.change import HubLink
from ...hub.link import PgLink
from ...store import hub as rows
from ..core.engine import Engine
from .capture import Capture
from .worker import Progress, Worker


def pg_link(url: str) -> HubLink:
    """The PostgreSQL link (hub/link.py; psycopg is imported when it is made, so a daemon
    without the `hub` extra runs, and says to install it when a hub is asked of it)."""
    return PgLink(url)


class Replica:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.capture = Capture(engine.embedder.files.model_id, self.wake)
        self.progress = Progress()
        self.connect: Callable[[str], HubLink] = pg_link  # a test's stand-in replaces it
        self._worker: Worker | None = None
        self._lock = threading.Lock()

    def url(self) -> str | None:
        return rows.get(self.engine.reader(), "url")

    def wake(self) -> None:
        worker = self._worker
        if worker is not None:
            worker.wake()

    def start(self) -> None:
        with self._lock:
            url = self.url()
            if self._worker is not None or url is None or self.engine.read_only:
                return
            self._worker = Worker(
                self.engine, self.capture, lambda: self.connect(url), self.progress
            )
            self._worker.start()

    def stop(self) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return self._worker is not None


_replicas: weakref.WeakKeyDictionary[Engine, Replica] = weakref.WeakKeyDictionary()
_made = threading.Lock()


def replica_of(engine: Engine) -> Replica:
    """The engine's replica, made and attached to its publisher on first use."""
    with _made:
        found = _replicas.get(engine)
        if found is None:
            found = _replicas[engine] = Replica(engine)
            engine.changes.capture = found.capture
        return found

"""The sharer: shared memories' files kept in line with the store, both ways, on one
background thread (and a fresh clone's first read on one of its own).

Store -> files: it subscribes to the engine's live changes (service/core/changes.py), which
are published only once a write has committed, and writes the file of each shared
entry that changed (shared_files.write_file: a no-op for one that is not shared or is in
line). A subscription that overflowed (a bulk import) costs a full reconcile instead.

Files -> store: every `interval` it lists each known repository's `.enyal/` (names,
mtimes and sizes: no reads); a folder whose listing moved and then held still for one
interval (a pull writes many files) is read through shared_reading.sync_root, which reads
only the files that changed. On start every repository is read: files may have
changed, and writes may have failed, while no daemon ran. A folder a request asks for
(read_now: a fresh clone's, sharing.notice) is read at once on a thread of its own, so
a second fresh clone's first request does not wait behind the first clone's read of
thousands; the request waits for it only so long, and the read goes on after it is
answered. The daemon's stop (stopping) ends every read between two slices, the
sharer's, a fresh clone's and a `share_sync` request's (going_on), and a wait for a
folder another read holds (shared_reading.sync_root): the stop waits for no read of
thousands, and the next start reads the rest.
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from collections.abc import Callable

from enyal_protocol import wire as p

from ...errors import EnyalError, ShuttingDown
from ...store import shared
from ..core import changes
from ..core.engine import Engine
from . import shared_files, shared_reading

log = logging.getLogger(__name__)

ALL = changes.Filter(None, None, False, None, frozenset())

# The sharer running for each engine, for read_now.
_running: weakref.WeakKeyDictionary[Engine, Sharer] = weakref.WeakKeyDictionary()


def read_now(engine: Engine, root: str) -> threading.Event | None:
    """Have the engine's sharer read `root` next; the event is set once it has (or the
    sharer stopped). None: no sharer runs for the engine."""
    sharer = _running.get(engine)
    return None if sharer is None else sharer.read_now(root)


def going_on(engine: Engine) -> Callable[[], bool] | None:
    """For a request's read of a folder (share_sync): whether to go on, False once the
    daemon is stopping. None: no sharer runs for the engine (nothing stops it)."""
    sharer = _running.get(engine)
    return None if sharer is None else sharer.going_on


class Sharer:
    def __init__(self, engine: Engine, interval: float = 1.0) -> None:
        self.engine = engine
        self.interval = interval
        self._stop = threading.Event()
        # Set when the daemon starts stopping (stopping): every read ends at its next slice
        # and none starts, while files are still written until stop().
        self._ending = threading.Event()
        self._wake = threading.Event()
        self._sub = engine.changes.subscribe(ALL, self._wake.set)
        self._thread = threading.Thread(target=self._run, name="enyal-share", daemon=True)
        # Roots asked for (read_now) -> set once read, each read on a thread of its own;
        # and the listings those reads began with, for the watching (_run).
        self._asked: dict[str, threading.Event] = {}
        self._readers: list[threading.Thread] = []
        self._listed: dict[str, dict[str, tuple[int, int]] | None] = {}
        self._asked_lock = threading.Lock()
        # Changes whose files wait for the read of their repository to end (_write_changed),
        # and whether the subscription overflowed meanwhile (every folder is read after).
        self._held: list[p.Change] = []
        self._dropped = False
        # Found from now on: the server listens before it starts this thread, and a
        # request asking meanwhile is read once the thread runs.
        _running[engine] = self

    def start(self) -> None:
        self._thread.start()

    def stopping(self) -> None:
        """The daemon is stopping: end every read at its next slice, before the requests
        in flight are waited for (one may wait for a folder a read holds)."""
        self._ending.set()
        self._wake.set()

    def going_on(self) -> bool:
        return not self._ending.is_set()

    def stop(self) -> None:
        _running.pop(self.engine, None)
        self._ending.set()
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()
        with self._asked_lock:
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.join()
        self.engine.changes.unsubscribe(self._sub)

    def read_now(self, root: str) -> threading.Event:
        """Read `root` now, on a thread of its own. Asked again before it is read (two
        requests from one fresh clone): one read, one event."""
        with self._asked_lock:
            done = self._asked.get(root)
            if done is not None:
                return done
            done = self._asked[root] = threading.Event()
            if self._ending.is_set():
                done.set()  # nobody waits on a stopping sharer; the root is read at next start
                del self._asked[root]
                return done
            reader = threading.Thread(
                target=self._read_asked, args=(root, done), name="enyal-share-read", daemon=True
            )
            self._readers = [r for r in self._readers if r.is_alive()] + [reader]
            reader.start()
        return done

    def _read_asked(self, root: str, done: threading.Event) -> None:
        try:
            # Its listing as read: the watching sees it moved only if it changes after,
            # and does not read the whole folder again for nothing.
            listed = shared_reading.listing(root)
            self._sync(root, self.going_on)
            with self._asked_lock:
                self._listed[root] = listed
        except OSError as exc:  # the thread must outlive any one folder
            log.warning("cannot list %s/.enyal: %s", root, exc)
        finally:
            with self._asked_lock:
                self._asked.pop(root, None)
            done.set()
            self._wake.set()  # its changes held meanwhile (_write_changed) are written now

    def _busy(self) -> set[str]:
        """The roots read on threads of their own now."""
        with self._asked_lock:
            return set(self._asked)

    def _take_listed(self) -> dict[str, dict[str, tuple[int, int]] | None]:
        with self._asked_lock:
            listed, self._listed = self._listed, {}
        return listed

    def _roots(self) -> list[str]:
        return list(shared.roots(self.engine.reader()))

    def _run(self) -> None:
        seen: dict[str, dict[str, tuple[int, int]] | None] = {}
        pending: set[str] = set()
        try:
            pending = set(self._roots())
        except EnyalError as exc:
            log.warning("the sharer cannot list its repositories: %s", exc.message)
        while not self._stop.is_set():
            for root, listed in self._take_listed().items():
                seen[root] = listed
                pending.discard(root)
            self._write_changed()
            try:
                now = {root: shared_reading.listing(root) for root in self._roots()}
            except EnyalError as exc:
                log.warning("the sharer cannot list its repositories: %s", exc.message)
                now = seen
            moved = {root for root in now if now[root] != seen.get(root)}
            # A folder is read once its listing has held still for an interval: a pull or
            # a checkout writes many files. (At start every one is pending, and read once
            # its first two listings agree.)
            # A folder read on its own thread (read_now) is left to it.
            ready = pending - moved - self._busy()
            for root in sorted(ready):
                self._sync(root)
            pending = (pending - ready) | moved
            seen = now
            self._wake.wait(self.interval)
            self._wake.clear()

    def _write_changed(self, reading: str | None = None) -> None:
        """The files of the changes committed since last time. `reading`: the repository
        whose read is under way (between two of its slices): its own changes wait until
        the read ends (the read's new memories, and an edit whose file the read's later
        slices must not meet half way), as do those of a folder read on its own thread;
        every other repository's are written now."""
        busy = self._busy() | ({reading} if reading is not None else set())
        while True:
            batch, dropped, more = self._sub.take()
            self._dropped = self._dropped or bool(dropped)
            if self._dropped and reading is None:
                self._dropped = False
                for root in set(self._roots()) - self._busy():  # a read there ends so
                    self._sync(root)
            batch, self._held = self._held + batch, []
            for change in batch:
                try:
                    if busy and self._in(change, busy):
                        self._held.append(change)
                        continue
                    if change.kind == "deleted":
                        shared_files.remove_everywhere(self.engine, change.id)
                    else:
                        shared_files.write_file(self.engine, change.id)
                except Exception as exc:  # the thread must outlive any one file
                    log.error("could not write the shared file of %s: %r", change.id, exc)
            if not more:
                return

    def _in(self, change: p.Change, roots: set[str]) -> bool:
        """Whether the change's file is in one of `roots`: a memory deleted for good has
        its file removed from every folder, theirs too."""
        if change.kind == "deleted":
            return True
        mark = shared.get(self.engine.reader(), change.id)
        return mark is not None and mark.root in roots

    def _between(self, reading: str) -> bool:
        """Between two slices of a read: other repositories' files are written (a fresh
        clone's read lasts minutes, and holds no other repository's writes); whether to go
        on (no: the daemon is stopping, and the rest is read at its next start)."""
        if self.going_on():
            self._write_changed(reading)
        return self.going_on()

    def _sync(self, root: str, between: Callable[[], bool] | None = None) -> None:
        """Read `root`; `between`: called between two slices (by default the sharer's own
        _between; a read on its own thread only asks whether to go on)."""
        if not self.going_on():
            return  # stopping: a folder not read now is read at the next start
        try:
            r = shared_reading.sync_root(
                self.engine, root, between or functools.partial(self._between, root)
            )
        except ShuttingDown as exc:
            log.info("%s", exc.message)
            return
        except EnyalError as exc:
            log.warning("reading %s/.enyal failed: %s", root, exc.message)
            return
        except Exception as exc:  # the thread must outlive any one folder
            log.error("reading %s/.enyal failed: %r", root, exc)
            return
        if r.added or r.updated or r.forgotten or r.problems or r.written:
            log.info(
                "shared memories of %s: %d added, %d updated, %d forgotten, %d files written, "
                "%d files need a look",
                root,
                r.added,
                r.updated,
                r.forgotten,
                r.written,
                len(r.problems),
            )

"""Memories follow a checkout whose key changes (issue 27).

A project's key comes from its remote (projects.py), so it changes when the remote's URL
does (the repository moved host or was renamed) or when a first remote is added to a
repository keyed by its path. Each root the daemon has seen is kept with the key it
had (context_project_roots). Before a request from a folder is answered, the key of
the folder's project is compared with the one its root had: if it changed, the
project's memories (its scopes, its files', file source_refs) move to the new key, in
one write, so the request already sees them there. The same record says where a place
is on this machine (local_path): a cited file is checked there once the checkout that
recorded it has moved.

Unless another checkout still has the old key: a root seen with it that exists and still
resolves to it. Then two repositories differ by their remotes (a fork's clone now
pointing elsewhere), the memories stay with the checkouts keeping the key, and this
root is recorded under its new one: it starts afresh.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref

from ...errors import EnyalError, StorageError
from ...store import roots as store
from ...store.writer import Tx
from ..rules import scopes
from .engine import Engine

log = logging.getLogger(__name__)

_known: weakref.WeakKeyDictionary[Engine, dict[str, str]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _roots(engine: Engine) -> dict[str, str]:
    with _lock:
        found = _known.get(engine)
        if found is None:
            found = store.known(engine.reader())
            _known[engine] = found
        return found


def _snapshot(engine: Engine) -> list[tuple[str, str]]:
    """(root, key) pairs, oldest served first, read while no request reorders them."""
    seen = _roots(engine)
    with _lock:
        return list(seen.items())


def _still_keyed(root: str, key: str) -> bool:
    return os.path.isdir(root) and scopes.project_of(root).key == key


def follow(engine: Engine, cwd: str | None) -> None:
    """Record the project of `cwd`'s root and key; move its memories if its key changed.
    Bookkeeping: a failure is logged, never the request's."""
    if cwd is None or engine.read_only:
        return
    try:
        project = scopes.project_of(scopes.absolute(cwd, None))
    except EnyalError:
        return  # the verb says what is wrong with the cwd
    seen = _roots(engine)
    was = seen.get(project.root)
    if was == project.key:
        with _lock:  # the root served last comes last (local_path prefers it)
            seen.pop(project.root, None)
            seen[project.root] = project.key
        return
    if was is None and project.top is None:
        return  # outside git, where no remote can change its key
    others = [r for r, k in _snapshot(engine) if k == was and r != project.root]
    moves = was is not None and not any(_still_keyed(r, was) for r in others)

    def job(tx: Tx) -> None:
        if was is not None and moves:
            n = store.rekey(tx.conn, was, project.key)
            tx.after_commit.append(lambda: engine.groups.rename(was, project.key))
            log.info("project key changed: %d memories moved to %s", n, project.key)
        store.record(tx.conn, project.root, project.key)

    try:
        engine.write(job, durable=False)
    except StorageError as exc:
        log.warning("could not record the project at %s: %s", project.root, exc.message)
        return
    with _lock:
        if moves and was is not None:
            for r, k in list(seen.items()):
                if k == was or k.startswith(was + "/"):
                    seen[r] = project.key + k[len(was) :]
        seen[project.root] = project.key


def local_path(engine: Engine, place: str) -> str | None:
    """Where a place (`git:...`, a key and a path from its root) is on this machine: in
    a checkout of its project this daemon has seen and that is still there (the one of
    the longest key, for a nested project's; of several checkouts, the one served last,
    which is the requester's when it sent its cwd); None if none is."""
    if not scopes.is_place(place):
        return None
    best: tuple[int, str] | None = None
    for root, key in _snapshot(engine):
        holds = place == key or place.startswith(key + "/")
        if holds and (best is None or len(key) >= best[0]) and os.path.isdir(root):
            best = (len(key), root + place[len(key) :])
    return best[1] if best is not None else None

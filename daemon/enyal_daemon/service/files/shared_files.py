"""A shared memory's file in a repository's `.enyal/` (service/files/sharing.py says
which memories are shared): where a checkout is, writing the file after its change
commits (atomically, secrets redacted by the rules in force even when writes are not
redacted) and removing it. The lock here is the one every read or write of a folder
takes (service/files/shared_reading.py reads them back)."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from enyal_protocol.projects import within
from enyal_protocol.whole_file import write_whole

from ...errors import InvalidValue
from ...store import entries, graph, shared, versions
from ...store import roots as project_roots
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import scopes

log = logging.getLogger(__name__)

# One read or write of a folder at a time: the watcher's thread and a request's may both
# want the same repository, and a file must not be read while it is half renamed.
folder_lock = threading.RLock()
LINKS = mf.LINKS


def checkout_of(conn: Any, entry: EntryRow | p.Entry, cwd: str | None = None) -> str:
    """The folder on this machine a memory is shared into: the root of a checkout of its
    project (scopes are stored by the project's key, service/rules/scopes.py). The client's own
    checkout first, else one the daemon has seen (the deepest, for nested projects)."""
    if entry.scope_level not in ("project", "file") or entry.scope_path is None:
        raise InvalidValue(
            f"only a project's or a file's memory can be shared; this one is {entry.scope_level}"
        )
    place = entry.scope_path
    if cwd is not None:
        here = scopes.project_of(scopes.absolute(cwd, None))
        if within(place, here.key):
            return in_repository(here)
    seen = [(key, root) for root, key in project_roots.known(conn).items() if within(place, key)]
    seen = [(key, root) for key, root in seen if os.path.isdir(root)]
    if seen:
        return in_repository(scopes.project_of(max(seen, key=lambda kr: len(kr[0]))[1]))
    if os.path.isabs(place) and os.path.isdir(scopes.project_root(place)):
        # A project keyed by its path: the path is it.
        return in_repository(scopes.project_of(scopes.project_root(place)))
    raise InvalidValue(
        f"no checkout of {place} is known on this machine: share it from a folder in one"
    )


def in_repository(project: scopes.Project) -> str:
    """The project's root, if a git repository holds it: `.enyal/` is for a team to
    commit, and a folder that is no repository (a scratch folder, /tmp, a path that does
    not exist, which resolves to /) would only be watched every second for nothing."""
    if project.top is None:
        raise InvalidValue(
            f"{project.root} is not in a git repository: a shared memory lives in one"
        )
    return project.root


def folder(root: str) -> Path:
    return Path(root) / mf.FOLDER


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- writing -----------------------------------------------------------------------------


def as_file(engine: Engine, conn: Any, row: EntryRow, root: str) -> mf.MemoryFile:
    """The memory as its file says it, secrets redacted by the rules in force."""
    e = row.entry()
    content = engine.secrets.redact(e.content).text
    tags, _ = engine.secrets.tags(e.tags)
    out = graph.touching(conn, [e.id], "outgoing", LINKS)
    linked = {t: [x.target_id for x in out if x.edge_type == t] for t in LINKS}
    latest = versions.list_for(conn, e.id, 1)
    path = None
    if e.scope_level == "file" and e.scope_path is not None:
        key = scopes.project_of(root).key
        path = e.scope_path[len(key) + 1 :] if within(e.scope_path, key) else None
    version = latest[0].version if latest else 1
    return mf.of_entry(
        msgspec.structs.replace(e, content=content, tags=tags), path, linked, version
    )


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(exist_ok=True)  # `.enyal/` alone: never the checkout around it
    write_whole(path, data, 0o644)  # a file for the repository, not a private one


def write_file(engine: Engine, entry_id: str) -> bool:
    """Bring a shared memory's file in line with the database, after its change
    committed: written if live, removed if forgotten. Returns whether a file changed.
    A file already in line (as last written or read, from the entry's latest version)
    costs a read and a hash. An OSError is logged and left for the next reconcile."""
    with folder_lock:
        conn = engine.reader()
        row = entries.get(conn, entry_id)
        mark = shared.get(conn, entry_id) if row is not None else None
        if row is None or mark is None:
            return False
        if not os.path.isdir(mark.root):
            moved = _checkout_still_here(engine, conn, row, mark)
            if moved is None:
                return False
            mark = moved
        path = folder(mark.root) / mf.file_name(entry_id)
        latest = versions.list_for(conn, entry_id, 1)
        on_disk = _hash_of(path)
        in_line = mark.version == (latest[0].version if latest else None)
        if in_line and mark.file_hash is not None and on_disk == mark.file_hash:
            return False
        try:
            if row.is_deprecated:
                new_hash: str | None = None
                changed = on_disk is not None
                if changed:
                    path.unlink()
            else:
                data = mf.render(as_file(engine, conn, row, mark.root)).encode()
                new_hash = digest(data)
                changed = on_disk != new_hash
                if changed:
                    _write_atomically(path, data)
        except OSError as exc:
            log.warning("could not write %s (written at the next reconcile): %s", path, exc)
            return False
        engine.write(lambda tx: shared.set_synced(tx.conn, mark.rid, new_hash))
        return changed


def _checkout_still_here(
    engine: Engine, conn: Any, row: EntryRow, mark: shared.SharedRow
) -> shared.SharedRow | None:
    """The checkout a memory was shared into is gone (`git worktree remove`, a deleted
    clone): it is shared into another checkout of its project the daemon knows, or, with
    none, left until one is (its file is not written: making the folder again would
    make a checkout that is not one)."""
    try:
        root = checkout_of(conn, row)
    except InvalidValue:
        log.info("%s: no checkout of its project here; its file is written once there is", row.id)
        return None

    def job(tx: Tx) -> None:
        shared.add_root(tx.conn, root, engine.clock.now_iso())
        shared.mark(tx.conn, mark.rid, root)

    engine.write(job)
    return msgspec.structs.replace(mark, root=root, file_hash=None)


def remove_file(root: str, entry_id: str) -> None:
    path = folder(root) / mf.file_name(entry_id)
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("could not remove %s: %s", path, exc)


def remove_everywhere(engine: Engine, entry_id: str) -> None:
    """A memory deleted for good (hard forget, expiry): its file goes from every
    repository read, or the next read of the folder would bring it back."""
    with folder_lock:
        for root in shared.roots(engine.reader()):
            remove_file(root, entry_id)


def _hash_of(path: Path) -> str | None:
    try:
        return digest(path.read_bytes())
    except OSError:
        return None

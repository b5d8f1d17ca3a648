"""A shared memory's file in a repository's `.enyal/` (service/files/sharing.py says
which memories are shared): where a checkout is, writing the file after its change
commits (atomically, secrets redacted by the rules in force even when writes are not
redacted) and removing it. The locks here, one a repository, are the ones every read or
write of its folder takes (service/files/shared_reading.py reads them back)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from enyal_protocol.projects import within
from enyal_protocol.whole_file import write_beside

from ...errors import InvalidValue
from ...store import entries, graph, shared, versions
from ...store import roots as project_roots
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import scopes
from . import file_swap

log = logging.getLogger(__name__)

# One read or write of a repository's folder at a time: the sharer's thread and a
# request's may both want the same repository, and a file must not be read while it is
# half renamed, nor a mark and its file split by a read (sharing.share). A lock a
# repository, not one for all: a fresh clone's read lasts minutes at thousands of files,
# and another repository's share, unshare or `remember --shared` must not wait for it.
# Reentrant: a read writes the files it finds behind (write_file) under its own lock.
# Only the map of locks is global, held for a lookup; a lock is kept while the daemon
# runs, as its repository is (sharing._stamps), so two threads never hold two for one root.
_locks: dict[str, threading.RLock] = {}
_locks_lock = threading.Lock()
LINKS = mf.LINKS


def folder_lock(root: str) -> threading.RLock:
    """The lock of the repository at `root` (a checkout's root, as scopes gives it)."""
    with _locks_lock:
        return _locks.setdefault(root, threading.RLock())


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


def emptied(root: str) -> bool:
    """Whether a missing `.enyal/` is one that commits emptied: git removes a folder with
    its last file, so a pull of a commit removing the last shared memory leaves none,
    where a checkout of a branch from before sharing has none either. The first has
    `.enyal/` in HEAD's history and forgets its memories; the second forgets nothing."""
    return bool(git_log(root, "-1", "--format=%H", "HEAD", "--", mf.FOLDER))


def git_log(root: str, *args: str) -> str | None:
    """`git log ARGS` in the checkout at `root`, its output stripped; None where git could
    not say (no git, not a repository, no such revision, or 30 s passed: a hung git
    must not hold the sharer)."""
    try:
        done = subprocess.run(
            ["git", "-C", root, "log", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


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


def _replace_unless_changed(path: Path, data: bytes, seen: str | None) -> bool:
    """Put `data` at `path` whole, `path` being `seen` (its hash; None: no file) when
    checked. False: another write (a pull) landed since the check, and is kept for the
    read to take. A rename over the file would have destroyed that write; the file is
    swapped in instead (file_swap), so what it replaced is still there to compare and,
    if it is not what was checked, to put back."""
    path.parent.mkdir(exist_ok=True)  # `.enyal/` alone: never the checkout around it
    tmp = write_beside(path, data, 0o644)  # a file for the repository, not a private one
    try:
        if seen is None:
            return _create(tmp, path)
        swapped = file_swap.exchange(tmp, str(path))
        if swapped == "gone":
            return False  # removed since the check: the read takes the removal
        if swapped == "unsupported":
            os.replace(tmp, path)  # no exchange here: a rename, as before
            return True
        if _hash_of(Path(tmp)) == seen:
            return True
        # A write landed between the check and the swap: it goes back in place, unless
        # a later one replaced ours meanwhile, which stays (the latest write wins).
        # (Removed meanwhile: whatever was there, ours included, is gone by its remover.)
        with contextlib.suppress(FileNotFoundError):
            if file_swap.exchange(tmp, str(path)) == "swapped" and _hash_of(Path(tmp)) != digest(
                data
            ):
                file_swap.exchange(tmp, str(path))
        log.info("%s changed as it was written: kept, read next", path)
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _create(tmp: str, path: Path) -> bool:
    """`tmp` as `path`, which was not there when checked: linked, which never replaces
    a file created since (a pull's), rather than renamed."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        log.info("%s appeared as it was written: kept, read next", path)
        return False
    except OSError:
        os.replace(tmp, path)  # no hard links here: a rename, as before
    return True


def _remove_unless_changed(path: Path, seen: str) -> bool:
    """Remove `path`, `seen` (its hash) when checked; False: another write landed since,
    and is kept. Moved aside first, compared there, and linked back (never over a file
    written since) if it is not what was checked."""
    aside = path.with_name(f".{path.name}.removed")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return False  # removed already
    try:
        if _hash_of(aside) == seen:
            return True
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)
        log.info("%s changed as it was removed: kept, read next", path)
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(aside)


def write_file(engine: Engine, entry_id: str, read_as: str | None = None) -> bool:
    """Bring a shared memory's file in line with the database, after its change
    committed: written if live, removed if forgotten. Returns whether a file changed.
    A file already in line (as last written or read, from the entry's latest version)
    costs a read and a hash. An OSError is logged and left for the next reconcile.
    A file that is there but no longer what the store last read or wrote (`read_as`, the
    hash a read just took, else the one recorded) is left as it is: someone changed it
    (a pull, a teammate's hand) after the change being written, and overwriting it would
    lose their edit; the next read of the folder (its listing moved) takes it instead."""
    while True:
        seen = shared.get(engine.reader(), entry_id)
        if seen is None:
            return False
        with folder_lock(seen.root):
            changed = _write_in(engine, entry_id, seen.root, read_as)
        if changed is not None:
            return changed


def _write_in(engine: Engine, entry_id: str, root: str, read_as: str | None) -> bool | None:
    """write_file under the lock of `root`; None: the memory is shared into another
    folder now (shared there meanwhile, or its checkout gone), whose lock is taken next."""
    conn = engine.reader()
    row = entries.get(conn, entry_id)
    mark = shared.get(conn, entry_id) if row is not None else None
    if row is None or mark is None:
        return False
    if mark.root != root:
        return None
    if not os.path.isdir(mark.root):
        return None if _checkout_still_here(engine, conn, row, mark) else False
    path = folder(mark.root) / mf.file_name(entry_id)
    latest = versions.list_for(conn, entry_id, 1)
    on_disk = _hash_of(path)
    in_line = mark.version == (latest[0].version if latest else None)
    if in_line and mark.file_hash is not None and on_disk == mark.file_hash:
        return False
    known = read_as if read_as is not None else mark.file_hash
    if on_disk is not None and known is not None and on_disk != known:
        log.info("%s changed since it was last read or written: read next, not overwritten", path)
        return False
    if on_disk is None and known is not None and (folder(mark.root).is_dir() or emptied(root)):
        # Removed since (a teammate's forget, pulled): not written back, which would undo
        # the removal unseen; the read takes it, as a conflict if the memory changed here
        # meanwhile (shared_reading.REMOVED_THERE). A `.enyal/` that no commit emptied is
        # a branch from before sharing: the file is written there as before.
        log.info("%s was removed since it was last read or written: read next", path)
        return False
    try:
        if row.is_deprecated:
            new_hash: str | None = None
            changed = on_disk is not None
            if on_disk is not None and not _remove_unless_changed(path, on_disk):
                return False
        else:
            data = mf.render(as_file(engine, conn, row, mark.root)).encode()
            new_hash = digest(data)
            changed = on_disk != new_hash
            if changed and not _replace_unless_changed(path, data, on_disk):
                return False
    except OSError as exc:
        log.warning("could not write %s (written at the next reconcile): %s", path, exc)
        return False

    def job(tx: Tx) -> None:
        shared.set_synced(tx.conn, mark.rid, new_hash)
        if row.is_deprecated and mark.review is not None:
            shared.set_review(tx.conn, mark.rid, None)  # forgotten: nothing left to settle

    engine.write(job)
    return changed


def _checkout_still_here(engine: Engine, conn: Any, row: EntryRow, mark: shared.SharedRow) -> bool:
    """The checkout a memory was shared into is gone (`git worktree remove`, a deleted
    clone): it is shared into another checkout of its project the daemon knows, or, with
    none, left until one is (its file is not written: making the folder again would
    make a checkout that is not one). Returns whether it moved."""
    try:
        root = checkout_of(conn, row)
    except InvalidValue:
        log.info("%s: no checkout of its project here; its file is written once there is", row.id)
        return False

    def job(tx: Tx) -> None:
        shared.add_root(tx.conn, root, engine.clock.now_iso())
        shared.mark(tx.conn, mark.rid, root)
        shared.set_synced(tx.conn, mark.rid, None)  # no file there yet: written next

    engine.write(job)
    return True


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
    for root in shared.roots(engine.reader()):
        with folder_lock(root):
            remove_file(root, entry_id)


def _hash_of(path: Path) -> str | None:
    try:
        return digest(path.read_bytes())
    except OSError:
        return None

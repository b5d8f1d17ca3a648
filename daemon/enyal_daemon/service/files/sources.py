"""Stale sources: is the file a memory cites still what it was when the memory was
written (or last confirmed)?

A memory cites a file through `source_type: file` with a `source_ref` (a path, maybe
with a `:LINE`, `:LINE:COL` or `#anchor` after it), or through `file` scope (its
scope_path). When it is written, the file's sha256, mtime and size are recorded
(store/sources.py). When it is read (recall, get, list, review), the file is looked
at again, cheaply: a stat, and the hash only when mtime or size moved but the size
is the same — a file whose mtime was touched but whose bytes did not change is not
stale. Hashes are cached by (path, mtime, size) across requests, and every stat and
hash is done once per request however many entries cite the file.

Nothing here writes on a read: a changed file stays flagged until the memory is
confirmed or updated (which record the file as it is then) or, for a mirror of an
indexed file, until the file is indexed again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Literal

import msgspec

from enyal_protocol import wire as p
from enyal_protocol.projects import place_ref, split_ref

from ...store import entries
from ...store import sources as store
from ...store.rows import EntryRow
from ...store.sources import Fingerprint, SourceRow
from ..core import identity
from ..core.engine import Engine
from ..rules import scopes

State = Literal["fresh", "changed", "missing"]
MISSING = Fingerprint(None, None, None)
HASH_BLOCK = 1 << 20
CACHED_HASHES = 4096


def resolve_ref(source_type: str | None, source_ref: str | None, cwd: str | None) -> str | None:
    """A file source_ref as stored: its path made absolute against the client's working
    directory (a line or anchor after it kept). Other refs (a commit, a URL) as sent, and
    so is a relative path from a client that sent no cwd (as before refs were checked:
    such an entry is just not tracked)."""
    if source_type != "file" or source_ref is None or "://" in source_ref:
        return source_ref
    path, suffix = split_ref(source_ref)
    if cwd is None and not os.path.isabs(os.path.expanduser(path)):
        return source_ref
    return scopes.absolute(path, cwd) + suffix


def stored_ref(source_type: str | None, ref: str | None) -> str | None:
    """A file source_ref (after resolve_ref) as the entry keeps it: its file's place
    (projects.place: the project's key and the path from its root), so it names the same
    file in every checkout. Other refs as they are."""
    if source_type != "file" or ref is None or "://" in ref:
        return ref
    return place_ref(ref)


def cited_place(
    source_type: str | None, source_ref: str | None, scope_level: str, scope_path: str | None
) -> str | None:
    """The place of the file a stored entry cites, if any: its source_ref's, else its
    file scope's."""
    if source_type == "file" and source_ref and "://" not in source_ref:
        return split_ref(source_ref)[0]
    return scope_path if scope_level == "file" else None


def _moved(engine: Engine, e: p.Entry | EntryRow) -> str | None:
    """Where the file an entry cites is now, if its place is in a checkout this daemon
    knows (its recorded path, from when it was written, may be gone: a moved checkout)."""
    place = cited_place(e.source_type, e.source_ref, e.scope_level, e.scope_path)
    return identity.local_path(engine, place) if place is not None else None


def cited_path(
    source_type: str | None, source_ref: str | None, scope_level: str, scope_path: str | None
) -> str | None:
    """The file an entry cites, if any (after resolve_ref): its source_ref, else its file
    scope (`scope_path`: the file's path on this machine)."""
    if source_type == "file" and source_ref and "://" not in source_ref:
        path = split_ref(source_ref)[0]
        if os.path.isabs(path):
            return path
    if scope_level == "file" and scope_path:
        return scope_path
    return None


class _HashCache:
    """sha256 by (path, mtime_ns, size): a file is hashed again only once it changed."""

    def __init__(self, size: int = CACHED_HASHES) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[int, int, str]] = OrderedDict()

    def hash(self, path: str, st: os.stat_result) -> str | None:
        key = (st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._items.get(path)
            if hit is not None and hit[:2] == key:
                self._items.move_to_end(path)
                return hit[2]
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                while block := f.read(HASH_BLOCK):
                    digest.update(block)
        except OSError:
            return None
        value = digest.hexdigest()
        with self._lock:
            self._items[path] = (*key, value)
            self._items.move_to_end(path)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


_HASHES = _HashCache()


def _stat(path: str) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def fingerprint(path: str) -> Fingerprint | None:
    """The file as it is now; MISSING if there is none; None for what is no file to track
    (a folder)."""
    if os.path.isdir(path):
        return None
    st = _stat(path)
    if st is None:
        return MISSING
    digest = _HASHES.hash(path, st)
    if digest is None:
        return MISSING
    return Fingerprint(digest, st.st_mtime_ns, st.st_size)


def fingerprint_bytes(path: str, data: bytes, st: os.stat_result) -> Fingerprint:
    """The fingerprint of a file already read (index reads it anyway)."""
    return Fingerprint(hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size)


class Checker:
    """One request's look at the files: each stat and hash done once."""

    def __init__(self) -> None:
        self._stats: dict[str, os.stat_result | None] = {}
        self._hashes: dict[str, str | None] = {}

    def state(self, recorded: Fingerprint, path: str) -> State:
        if path not in self._stats:
            self._stats[path] = _stat(path)
        st = self._stats[path]
        if st is None:
            return "missing"
        if recorded.hash is None:  # absent when written, there now
            return "changed"
        if (st.st_mtime_ns, st.st_size) == (recorded.mtime_ns, recorded.size):
            return "fresh"
        if st.st_size != recorded.size:
            return "changed"
        if path not in self._hashes:
            self._hashes[path] = _HASHES.hash(path, st)
        return "fresh" if self._hashes[path] == recorded.hash else "changed"

    def of(self, row: SourceRow) -> State:
        return self.state(row.fingerprint, row.path)


def annotate(engine: Engine, items: Sequence[p.Entry]) -> None:
    """Mark, in place, the entries whose cited file changed or is gone, and the mirrors of
    indexed files (read_only, indexed_from). Fields stay unset (left out of the reply)
    otherwise."""
    conn = engine.reader()
    if not items or not engine.holds(conn, store.any_held):
        return
    rows = store.for_ids(conn, [e.id for e in items])
    if not rows:
        return
    checker = Checker()
    for e in items:
        row = rows.get(e.id)
        if row is None:
            continue
        if row.mirror:
            e.read_only = True
            e.indexed_from = row.path
        state = checker.of(row)
        if state == "missing" and not row.mirror and (here := _moved(engine, e)) is not None:
            state = checker.state(row.fingerprint, here)
        if state == "changed":
            e.source_changed = True
        elif state == "missing":
            e.source_missing = True


def stale(engine: Engine) -> dict[str, State]:
    """entry id -> changed or missing, for every active entry whose cited file is."""
    checker = Checker()
    out: dict[str, State] = {}
    conn = engine.reader()
    rows = store.active(conn)
    for row in rows:
        state = checker.of(row)
        if state != "fresh":
            out[row.id] = state
    gone = [r for r in rows if out.get(r.id) == "missing" and not r.mirror]
    found = entries.by_ids(conn, [r.id for r in gone]) if gone else {}
    for row in gone:
        if row.id in found and (here := _moved(engine, found[row.id])) is not None:
            state = checker.state(row.fingerprint, here)
            if state == "fresh":
                del out[row.id]
            else:
                out[row.id] = state
    return out


def source_of(engine: Engine, entry_id: str) -> SourceRow | None:
    """The file an entry cites, at its path on this machine now (see _moved)."""
    conn = engine.reader()
    row = store.for_ids(conn, [entry_id]).get(entry_id)
    if row is None or row.mirror or _stat(row.path) is not None:
        return row
    entry = entries.get(conn, entry_id)
    here = _moved(engine, entry) if entry is not None else None
    return msgspec.structs.replace(row, path=here) if here is not None else row

"""A project's shared memory: its memories written to `.enyal/` in the repository, and
read back from there when the folder changes (a pull, a checkout, a merge).

Which memories are shared is the user's choice (`share`, `unshare`, remember's
`shared`, a project's rule of types). A shared memory's file (enyal_protocol/
memory_file.py) is written after its change commits, atomically (a temporary file
renamed over it), with secrets redacted by the rules in force even when writes are
not redacted: a file a person commits must never carry one. A failed write loses
nothing: the row keeps the hash of the file as last written, so the next read of the
folder (at start, on a change, on `share_sync`) sees the file is behind and writes it.

Reading the folder compares each file's hash with the one recorded: an unchanged file
costs a read and a hash, no parse and no embedding. A new file is someone else's
memory: its text is redacted, judged for injection (quarantined if it reads as an
instruction) and stored with `written_by: repository` and the commit's author where
git says it. A changed file is a new version; only changed text is embedded. A file
gone is forgotten (restorable). A file that is not a memory (merge-conflict markers
that do not split into two memories, bad front matter, a newer format) is listed by
`review` with the reason, and nothing is stored from it. A file git could not merge
because both branches edited the memory keeps both versions in its history, the
later as current, and the memory is listed for review; the file is written again
from it, which resolves the markers (the person still commits it). A removal or an
edit there that crossed a change here (each made before the other was read) is such a
conflict too: the edit is kept, the memory listed for review (shared_reading.py).

Here the verbs; the files are written by shared_files.py and read back by
shared_reading.py.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import weakref
from typing import Any

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p

from ...errors import EnyalError, InvalidValue
from ...store import shared
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import scopes
from . import sharer
from .shared_files import checkout_of, folder, folder_lock, in_repository, remove_file, write_file
from .shared_reading import embedded_counts, sync_root

log = logging.getLogger(__name__)

# How long a fresh clone's first request waits for its `.enyal/` to be read, in seconds;
# the read goes on after on the sharer's thread. A team's few dozen memories are read
# whole by then on an idle 2-core machine (~6 ms a short memory), so the first recall
# finds them as before; a clone of thousands (60 ms a memory at load 8) no longer holds
# a hook for minutes: a second is a tenth of the shortest hook timeout (10 s), which must
# also fit a cold daemon start.
FIRST_READ_WAIT = 1.0

# --- the verbs ---------------------------------------------------------------------------


def mark_on(tx: Tx, rid: int, entry: EntryRow | p.Entry, cwd: str | None, now: str) -> str:
    """Share the entry on this transaction (its file is written once the transaction
    has committed: write_file); returns the repository folder."""
    root = checkout_of(tx.conn, entry, cwd)
    _mark_in(tx, rid, root, now)
    return root


def _mark_in(tx: Tx, rid: int, root: str, now: str) -> None:
    shared.add_root(tx.conn, root, now)
    shared.mark(tx.conn, rid, root)


def by_rule(conn: Any, entry: p.Entry, cwd: str | None) -> bool:
    """Whether the project's rule shares a memory of this type as it is remembered."""
    try:
        root = checkout_of(conn, entry, cwd)
    except InvalidValue:
        return False
    return entry.content_type in shared.rule_of(conn, root)


def _shareable(engine: Engine, conn: Any, entry_id: str) -> EntryRow:
    row = engine.require(entry_id, conn)
    if row.is_deprecated:
        raise InvalidValue(f"entry {row.id} is forgotten: restore it before sharing it")
    return row


def share(engine: Engine, params: p.ShareParams) -> p.ShareResult:
    conn = engine.reader()
    root = checkout_of(conn, _shareable(engine, conn, params.id), params.cwd)

    def job(tx: Tx) -> tuple[str, bool]:
        row = _shareable(engine, tx.conn, params.id)
        before = shared.get(tx.conn, row.id)
        _mark_in(tx, row.rid, root, engine.clock.now_iso())
        shared.set_review(tx.conn, row.rid, None)  # sharing it again: the person has looked
        if before is None:
            engine.changes.note(tx, "updated", row)
        return row.id, before is None

    # Under the folder's lock, the mark and the file together: a read of the folder
    # between them would take a shared memory without its file for one removed. (The
    # folder is found before the lock is taken, then marked as found.)
    with folder_lock(root):
        entry_id, changed = engine.write(job)
        write_file(engine, entry_id)
    path = str(folder(root) / mf.file_name(entry_id))
    return p.ShareResult(id=entry_id, shared=True, changed=changed, file=path)


def unshare(engine: Engine, params: p.UnshareParams) -> p.ShareResult:
    while True:
        conn = engine.reader()
        seen = shared.get(conn, engine.require(params.id, conn).id)
        root = seen.root if seen is not None else None
        done = _unshare_in(engine, params.id, root)
        if done is not None:
            entry_id, changed = done
            return p.ShareResult(id=entry_id, shared=False, changed=changed, file=None)


def _unshare_in(engine: Engine, entry_id: str, root: str | None) -> tuple[str, bool] | None:
    """unshare under the lock of the folder the memory is shared into (`root`, None: not
    shared); None: it is shared into another one now, whose lock is taken next."""

    def job(tx: Tx) -> tuple[str, bool] | None:
        row = engine.require(entry_id, tx.conn)
        before = shared.get(tx.conn, row.id)
        if (before.root if before is not None else None) != root:
            return None
        if before is not None:
            shared.unmark(tx.conn, row.rid)
            engine.changes.note(tx, "updated", row)
        return row.id, before is not None

    if root is None:
        return engine.write(job)
    # Under the folder's lock, the unmark and the removal together: a read of the folder
    # between them would take the file still there for a teammate's and share it again.
    with folder_lock(root):
        done = engine.write(job)
        if done is not None and done[1]:
            remove_file(root, done[0])
    return done


# Per engine, the roots it reads already, each with its `.enyal/`'s mtime when a request
# from it last looked (notice): a request from one of them costs a stat and a dict
# lookup, no query. A root is never dropped while a daemon runs.
_stamps: weakref.WeakKeyDictionary[Engine, dict[str, int | None]] = weakref.WeakKeyDictionary()
_read_lock = threading.Lock()


def notice_cwd(engine: Engine, cwd: str | None) -> None:
    """notice() for the project of a request's cwd. Bookkeeping: a failure is logged,
    never the request's (the verb says what is wrong with the cwd)."""
    if cwd is None or engine.read_only:
        return
    try:
        notice(engine, scopes.project_of(scopes.absolute(cwd, None)).root)
    except (EnyalError, OSError) as exc:
        log.warning("could not read the shared memory of %s: %s", cwd, exc)


def notice(engine: Engine, root: str) -> None:
    """A checkout holding `.enyal/` that the store has never read (a fresh clone): read
    now, so `git clone … && enyal recall` finds the team's memories; read from then on by
    the sharer whenever it changes. Every request from a checkout without one pays a stat
    of it; the read is once. The request waits FIRST_READ_WAIT at most, and is answered
    with what is read by then (a slice at a time: shared_reading.py)."""
    if engine.read_only:
        return
    with _read_lock:
        stamps = _stamps.setdefault(engine, {})
        read_before = root in stamps
        before = stamps.get(root)
    if read_before:
        # A pull since the last request from here (git replaces each file it updates, so
        # the folder's time moves): read before answering, as a fresh clone's first read,
        # or `git pull && enyal recall` answers with what was there before the pull. Our
        # own writes move it too: their read finds every file as recorded (hashes only).
        now = _stamp(root)
        if now == before:
            return
        with _read_lock:
            stamps[root] = now
        if now is not None:  # a folder gone is the sharer's to judge, as before
            _first_read(engine, root)
        return
    stamp = _stamp(root)
    if stamp is None:
        return
    if root not in shared.roots(engine.reader()):
        if scopes.project_of(root).top is None:
            return  # no repository: nobody commits this `.enyal/` (in_repository)
        engine.write(lambda tx: shared.add_root(tx.conn, root, engine.clock.now_iso()))
    # Read before answering the first request from it since the daemon started, too: a
    # pull may have come before it (its time is known only from now on).
    _first_read(engine, root)
    with _read_lock:
        stamps[root] = stamp


def _stamp(root: str) -> int | None:
    """The time `.enyal/` last changed (a file added, removed or replaced in it); None
    when there is none."""
    try:
        st = os.stat(folder(root))
    except OSError:
        return None
    return st.st_mtime_ns if stat.S_ISDIR(st.st_mode) else None


def _first_read(engine: Engine, root: str) -> None:
    """The sharer reads the folder on a thread of its own (under its folder's lock: a
    file is stored once, whoever reads first); this request waits so long for it."""
    done = sharer.read_now(engine, root)
    if done is None:  # an engine no sharer runs for (no daemon around it): read here
        sync_root(engine, root)
    elif not done.wait(FIRST_READ_WAIT):
        log.info("reading %s/.enyal goes on after the request that found it", root)


def share_sync(engine: Engine, params: p.ShareSyncParams) -> p.ShareSyncResult:
    if params.path is None and params.cwd is None:
        raise InvalidValue("give path or the client's cwd")
    start = scopes.absolute(params.path or params.cwd or "", params.cwd)
    if not os.path.isdir(start):
        raise InvalidValue(f"{start} is not a folder")
    root = in_repository(scopes.project_of(start))

    def job(tx: Tx) -> None:
        shared.add_root(tx.conn, root, engine.clock.now_iso())
        if params.rule is not None:
            shared.set_rule(tx.conn, root, list(dict.fromkeys(params.rule)))

    engine.write(job)
    # Ended between two slices when the daemon stops (ShuttingDown: retry on the next).
    result = sync_root(engine, root, sharer.going_on(engine))
    return msgspec.structs.replace(result, review=_waiting(engine.reader()).get(root, 0))


def problems(engine: Engine, limit: int) -> list[p.SharedProblem]:
    """What review lists: files that could not be read, memories edited on two branches."""
    conn = engine.reader()
    out = [
        p.SharedProblem(file=str(folder(root) / name), reason=reason, id=mf.id_of(name))
        for root, name, reason, _ in shared.problems(conn)
    ]
    out += [
        p.SharedProblem(
            file=str(folder(r.root) / mf.file_name(r.id)), reason=r.review or "", id=r.id
        )
        for r in shared.to_review(conn, limit)
    ]
    return out[:limit]


def _waiting(conn: Any) -> dict[str, int]:
    """root -> its items waiting for a person: files that could not be read, and
    memories edited on two branches (what review lists)."""
    bad = shared.review_counts(conn)
    for root, *_ in shared.problems(conn):
        bad[root] = bad.get(root, 0) + 1
    return bad


def roots(engine: Engine) -> list[p.SharedRoot]:
    """What `status` shows: each repository read that is still there, with its rule and
    counts. A checkout moved away or deleted is left out (its row stays: another
    checkout of the project inherits its rule from it, shared.rule_of)."""
    conn = engine.reader()
    counts = shared.counts(conn)
    bad = _waiting(conn)
    embedded = embedded_counts(engine)
    return [
        p.SharedRoot(
            root=root,
            shared=counts.get(root, 0),
            rule=rule,  # type: ignore[arg-type]
            problems=bad.get(root, 0),
            embedded=embedded.get(root, 0),
        )
        for root, rule in shared.roots(conn).items()
        if os.path.exists(os.path.join(root, ".git"))
    ]

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
from it, which resolves the markers (the person still commits it).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import logging
import os
import stat
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from enyal_protocol.projects import within
from enyal_protocol.whole_file import write_whole

from ...embedder.passages import Embedding
from ...errors import InvalidValue
from ...hygiene.injection import judge
from ...store import entries, graph, shared, versions
from ...store import roots as project_roots
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import redaction, scopes
from ..rules.clock import normalize_iso

log = logging.getLogger(__name__)

# One read or write of a folder at a time: the watcher's thread and a request's may both
# want the same repository, and a file must not be read while it is half renamed.
_lock = threading.RLock()
LINKS = mf.LINKS
MAX_FILE = 1 << 20  # a memory is at most 64 KiB of text: a larger file is no memory
CONCURRENT = "edited on two branches: both versions are in its history, the later is current"


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


def _digest(data: bytes) -> str:
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
    with _lock:
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
                new_hash = _digest(data)
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
    with _lock:
        for root in shared.roots(engine.reader()):
            remove_file(root, entry_id)


def _hash_of(path: Path) -> str | None:
    try:
        return _digest(path.read_bytes())
    except OSError:
        return None


# --- the verbs ---------------------------------------------------------------------------


def mark_on(tx: Tx, rid: int, entry: EntryRow | p.Entry, cwd: str | None, now: str) -> str:
    """Share the entry on this transaction (its file is written once the transaction
    has committed: write_file); returns the repository folder."""
    root = checkout_of(tx.conn, entry, cwd)
    shared.add_root(tx.conn, root, now)
    shared.mark(tx.conn, rid, root)
    return root


def by_rule(conn: Any, entry: p.Entry, cwd: str | None) -> bool:
    """Whether the project's rule shares a memory of this type as it is remembered."""
    try:
        root = checkout_of(conn, entry, cwd)
    except InvalidValue:
        return False
    return entry.content_type in shared.roots(conn).get(root, [])


def share(engine: Engine, params: p.ShareParams) -> p.ShareResult:
    def job(tx: Tx) -> tuple[str, bool, str]:
        row = engine.require(params.id, tx.conn)
        if row.is_deprecated:
            raise InvalidValue(f"entry {row.id} is forgotten: restore it before sharing it")
        before = shared.get(tx.conn, row.id)
        root = mark_on(tx, row.rid, row, params.cwd, engine.clock.now_iso())
        shared.set_review(tx.conn, row.rid, None)  # sharing it again: the person has looked
        if before is None:
            engine.changes.note(tx, "updated", row)
        return row.id, before is None, root

    # Under the sharer's lock, the mark and the file together: a read of the folder
    # between them would take a shared memory without its file for one removed.
    with _lock:
        entry_id, changed, root = engine.write(job)
        write_file(engine, entry_id)
    path = str(folder(root) / mf.file_name(entry_id))
    return p.ShareResult(id=entry_id, shared=True, changed=changed, file=path)


def unshare(engine: Engine, params: p.UnshareParams) -> p.ShareResult:
    def job(tx: Tx) -> tuple[str, shared.SharedRow | None]:
        row = engine.require(params.id, tx.conn)
        before = shared.get(tx.conn, row.id)
        if before is not None:
            shared.unmark(tx.conn, row.rid)
            engine.changes.note(tx, "updated", row)
        return row.id, before

    # Under the sharer's lock, the unmark and the removal together: a read of the folder
    # between them would take the file still there for a teammate's and share it again.
    with _lock:
        entry_id, before = engine.write(job)
        if before is not None:
            remove_file(before.root, entry_id)
    return p.ShareResult(id=entry_id, shared=False, changed=before is not None, file=None)


def notice(engine: Engine, root: str) -> None:
    """A checkout holding `.enyal/` that the daemon does not read yet: read from now on
    (the sharer reads it within a couple of seconds, off this request's thread: a
    session's brief does not wait for a clone's first thousand files to be embedded)."""
    if engine.read_only or root in shared.roots(engine.reader()):
        return
    if folder(root).is_dir() and scopes.project_of(root).top is not None:
        engine.write(lambda tx: shared.add_root(tx.conn, root, engine.clock.now_iso()))


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
    return sync_root(engine, root)


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


def roots(engine: Engine) -> list[p.SharedRoot]:
    """What `status` shows: each repository read, with its rule and counts."""
    conn = engine.reader()
    counts = shared.counts(conn)
    # Files that could not be read, and memories edited on two branches: what review lists.
    bad = shared.review_counts(conn)
    for root, *_ in shared.problems(conn):
        bad[root] = bad.get(root, 0) + 1
    return [
        p.SharedRoot(root=root, shared=counts.get(root, 0), rule=rule, problems=bad.get(root, 0))  # type: ignore[arg-type]
        for root, rule in shared.roots(conn).items()
    ]


# --- reading the folder ------------------------------------------------------------------


@dataclass
class _Incoming:
    name: str
    file_hash: str
    memory: mf.MemoryFile
    earlier: mf.MemoryFile | None = None  # the other branch's edit, kept in history first
    author: str | None = None
    found: dict[str, int] = field(default_factory=dict)
    # A newer copy in another checkout of a memory shared into one (_elsewhere): stored,
    # but the memory stays shared where it was.
    elsewhere: bool = False


@dataclass
class _Plan:
    incoming: list[_Incoming] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # name, reason, hash
    good_names: set[str] = field(default_factory=set)
    hashes: dict[str, str] = field(default_factory=dict)  # name -> sha256, as read
    gone: list[shared.SharedRow] = field(default_factory=list)
    unchanged: int = 0


def listing(root: str) -> dict[str, tuple[int, int]] | None:
    """The folder's entries (files, and links, which are refused when read) with their
    mtime and size: what the watcher compares. None: there is no folder (a checkout of
    a branch from before sharing, which forgets nothing; or one commits emptied:
    _emptied)."""
    out: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(folder(root)) as it:
            for d in it:
                if d.name.startswith(".") or d.is_dir(follow_symlinks=False):
                    continue  # our own temporary files, and folders, are no memories
                st = d.stat(follow_symlinks=False)
                out[d.name] = (st.st_mtime_ns, st.st_size)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return out


def _read_file(path: str) -> bytes:
    """A file of the folder, never through a link (it could point anywhere: ~/.ssh), and
    never one larger than a memory can be."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InvalidValue("not a regular file: not read")
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise InvalidValue(f"larger than {MAX_FILE // 1024} KiB: not read")
    return data


def sync_root(engine: Engine, root: str) -> p.ShareSyncResult:
    with _lock:
        plan = _plan(engine, root)
        _authors(root, plan.incoming)
        result = _apply(engine, root, plan)
        written = _reconcile(engine, root, plan.hashes)
    return msgspec.structs.replace(result, written=written)


def _plan(engine: Engine, root: str) -> _Plan:
    conn = engine.reader()
    rows = shared.in_root(conn, root)
    known_bad = {name: h for _, name, _, h in shared.problems(conn, root)}
    plan = _Plan()
    on_disk = listing(root)
    base = str(folder(root))  # one string joined per file: pathlib costs more than a read
    for name in sorted(on_disk or {}):
        try:
            data = _read_file(os.path.join(base, name))
        except InvalidValue as exc:
            plan.problems.append((name, str(exc), ""))
            continue
        except OSError as exc:
            why = "a link: not read" if exc.errno == errno.ELOOP else exc.strerror
            plan.problems.append((name, f"cannot be read: {why}", ""))
            continue
        h = _digest(data)
        plan.hashes[name] = h
        entry_id = mf.id_of(name)
        row = rows.get(entry_id) if entry_id is not None else None
        if row is not None and row.file_hash == h:
            plan.unchanged += 1
            plan.good_names.add(name)
            continue
        if known_bad.get(name) == h:
            continue  # the same bad file as before: reported already
        if entry_id is None:
            plan.problems.append((name, "not a memory file: its name is not <id>.md", h))
            continue
        try:
            incoming = _read(data, name)
        except (mf.FormatError, InvalidValue) as exc:
            plan.problems.append((name, str(exc), h))
            continue
        if row is None and (elsewhere := _elsewhere(conn, root, incoming.memory)) is not None:
            if not elsewhere:
                plan.unchanged += 1
                plan.good_names.add(name)
                continue
            incoming.elsewhere = True
        incoming.file_hash = h
        plan.incoming.append(incoming)
        plan.good_names.add(name)
    if on_disk is None and _emptied(root):
        on_disk = {}
    if on_disk is not None:
        plan.gone = [r for i, r in rows.items() if mf.file_name(i) not in on_disk and r.file_hash]
    return plan


def _elsewhere(conn: Any, root: str, m: mf.MemoryFile) -> bool | None:
    """For a file of a memory shared into another checkout that is still here (a
    worktree, a second clone of the project on this machine): whether this copy is newer
    than the store (an edit pulled there), else False (a copy of an older version: the
    branch is behind, nothing to read). None: the memory is not shared elsewhere.
    Without this each checkout's copy took the memory in turn: the next edit was written
    into whichever was read last, and reading the other reverted it."""
    mark = shared.get(conn, m.id)
    if mark is None or mark.root == root or not folder(mark.root).is_dir():
        return None
    row = entries.get(conn, m.id)
    if row is None:
        return None
    try:
        return normalize_iso(m.updated, "updated") > row.updated_at
    except InvalidValue:
        return True  # read as any file is, and refused there with the reason


def _emptied(root: str) -> bool:
    """Whether a missing `.enyal/` is one that commits emptied: git removes a folder with
    its last file, so a pull of a commit removing the last shared memory leaves none,
    where a checkout of a branch from before sharing has none either. The first has
    `.enyal/` in HEAD's history and forgets its memories; the second forgets nothing."""
    try:
        done = subprocess.run(
            ["git", "-C", root, "log", "-1", "--format=%H", "HEAD", "--", mf.FOLDER],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def _read(data: bytes, name: str) -> _Incoming:
    """The memory a file holds (both sides of a conflicted one). A file that does not
    read raises mf.FormatError or InvalidValue: the caller lists it for review."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidValue("not UTF-8 text") from None
    try:
        return _Incoming(name, "", mf.parse(text, name))
    except mf.FormatError as exc:
        both = mf.sides(text)
        if both is None:
            raise
        try:
            ours, theirs = (mf.parse(side, name) for side in both)
        except mf.FormatError as side_exc:
            raise InvalidValue(f"{exc}, and a side does not read: {side_exc}") from None
    # Both branches edited the memory: the later edit is current, the other kept before it.
    first, last = sorted((ours, theirs), key=lambda m: (m.updated, m.content))
    return _Incoming(name, "", last, earlier=first)


def _authors(root: str, incoming: list[_Incoming]) -> None:
    """Who committed each file last, where git says it: one `git log` for the folder."""
    if not incoming:
        return
    wanted = {f"{mf.FOLDER}/{i.name}": i for i in incoming}
    try:
        out = subprocess.run(
            ["git", "-C", root, "log", "--format=%x00%an <%ae>", "--name-only", "--", mf.FOLDER],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return
    author = None
    for line in out.splitlines():
        if line.startswith("\x00"):
            author = line[1:]
        elif line in wanted and wanted[line].author is None:
            wanted[line].author = author


def _fields(engine: Engine, m: mf.MemoryFile) -> tuple[mf.MemoryFile, dict[str, int]]:
    """The file's text as it may be stored: secrets redacted, dates checked."""
    clean = redaction.scrub(engine.secrets, content=m.content, tags=m.tags)
    normalize_iso(m.created, "created")
    normalize_iso(m.updated, "updated")
    if m.importance < 1 or m.importance > 5 or not 0.0 <= m.confidence <= 1.0:
        raise InvalidValue("importance must be 1-5 and confidence 0-1")
    out = msgspec.structs.replace(m, content=clean.content or "", tags=clean.tags or [])
    return out, clean.found


def _apply(engine: Engine, root: str, plan: _Plan) -> p.ShareSyncResult:
    ready: list[_Incoming] = []
    bad: list[tuple[str, str, str]] = list(plan.problems)
    for item in plan.incoming:
        try:
            item.memory, item.found = _fields(engine, item.memory)
            if item.earlier is not None:
                item.earlier, _ = _fields(engine, item.earlier)
        except InvalidValue as exc:
            bad.append((item.name, f"bad front matter: {exc.message}", item.file_hash))
            plan.good_names.discard(item.name)
            continue
        ready.append(item)
    conn = engine.reader()
    current = entries.by_ids(conn, [i.memory.id for i in ready])
    # Only text the store does not hold yet is embedded: a file whose front matter alone
    # changed (tags, importance) keeps its vectors.
    texts: dict[str, None] = {}
    for item in ready:
        row = current.get(item.memory.id)
        if row is None or row.content != item.memory.content:
            texts[item.memory.content] = None
        if item.earlier is not None and row is not None and row.content != item.earlier.content:
            texts[item.earlier.content] = None
    vectors = dict(zip(texts, engine.embed_memories(list(texts)), strict=True))
    counts = {"added": 0, "updated": 0, "forgotten": 0}

    def job(tx: Tx) -> None:
        now = engine.clock.now_iso()
        for item in ready:
            kind = _store(engine, tx, root, item, vectors, now)
            if kind is not None:
                counts[kind] += 1
        for item in ready:
            _link(engine, tx, item.memory, now)
        for r in plan.gone:
            row = entries.get(tx.conn, r.id)
            shared.unmark(tx.conn, r.rid)
            if row is None or row.is_deprecated:
                continue
            engine.close_chain(tx, row.id, now)
            engine.deprecate(tx, row, now)
            counts["forgotten"] += 1
        for name, reason, h in bad:
            shared.record_problem(tx.conn, root, name, reason, h, now)
        for name in plan.good_names:
            shared.clear_problem(tx.conn, root, name)
        on_disk = listing(root) or {}
        for _, name, _, _ in shared.problems(tx.conn, root):
            if name not in on_disk:
                shared.clear_problem(tx.conn, root, name)

    engine.write(job)
    return p.ShareSyncResult(
        root=root,
        rule=shared.roots(engine.reader()).get(root, []),  # type: ignore[arg-type]
        added=counts["added"],
        updated=counts["updated"],
        forgotten=counts["forgotten"],
        unchanged=plan.unchanged,
        written=0,
        embedded=len(texts),
        problems=[
            p.SharedProblem(file=str(folder(root) / n), reason=r, id=mf.id_of(n)) for n, r, _ in bad
        ],
    )


def _scope(project: scopes.Project, m: mf.MemoryFile) -> tuple[p.ScopeLevel, str]:
    """Where a file's memory is stored: its project's key (the same in every clone), or
    the file below the root its front matter names."""
    if m.path is None:
        return "project", project.key
    inside = os.path.normpath(os.path.join(project.root, m.path))
    try:
        return "file", project.place(inside)
    except ValueError:
        raise InvalidValue(f"path {m.path!r} leaves the repository") from None


def _store(
    engine: Engine, tx: Tx, root: str, item: _Incoming, vectors: dict[str, Embedding], now: str
) -> str | None:
    """Store one file's memory: added, updated (a new version), or None (no change)."""
    m = item.memory
    emb = vectors.get(m.content)
    level, path = _scope(scopes.project_of(root), m)
    row = entries.get(tx.conn, m.id)
    flags: list[str] = []
    if emb is not None:
        flags = judge(" ".join([m.content, *m.tags]), emb.whole, emb.passages)
    kind: str | None
    if row is None:
        if emb is None:
            return None  # its text is another entry's: not embedded, nothing to store
        first = item.earlier or m
        entry = p.Entry(
            id=m.id,
            content=first.content,
            content_type=first.content_type,
            scope_level=level,
            scope_path=path,
            confidence=first.confidence,
            created_at=normalize_iso(m.created, "created"),
            updated_at=normalize_iso(first.updated, "updated"),
            accessed_at=None,
            access_count=0,
            source_type=None,
            source_ref=None,
            tags=list(dict.fromkeys(first.tags)),
            metadata={"repository_author": item.author} if item.author else {},
            is_deprecated=False,
            content_hash=entries.content_hash(first.content),
            importance=first.importance,
            written_by="repository",
            quarantined=bool(flags),
            quarantine_reason=", ".join(flags) or None,
            status=first.status,
            due=first.due,
        )
        # Stored with the current text's vectors from the start: the other branch's edit
        # is only a version before it (the next lines make the current one).
        rid = entries.insert(tx.conn, entry, *emb.blobs())
        versions.record(tx.conn, m.id, "created", entry.created_at)
        engine.index_after_commit(tx, rid, emb, (level, path), entry.content_type)
        engine.changes.note(tx, "created", entry)
        if item.earlier is not None:
            _update(engine, tx, engine.require(m.id, tx.conn), m, emb, flags, now)
        shared.mark(tx.conn, rid, root)
        kind = "added"
    else:
        back = row.is_deprecated  # its file is back (a checkout, a revert): so is it
        if back:
            entries.update_fields(tx.conn, row.rid, {"is_deprecated": 0})
            engine.reopen_chain(tx, row.id)
            versions.record(tx.conn, row.id, "restored", now)
            tx.after_commit.append(functools.partial(engine.index.set_active, row.rid, True))
            engine.changes.note(tx, "restored", row)
            row = engine.require(m.id, tx.conn)
        if item.earlier is not None:
            _update(engine, tx, row, item.earlier, vectors.get(item.earlier.content), [], now)
            row = engine.require(m.id, tx.conn)
        changed = _update(engine, tx, row, m, emb, flags, now) or back
        kind = "updated" if changed or item.earlier is not None else None
        rid = row.rid
        if item.elsewhere:
            # Shared into its own checkout, whose file the change is written to (the
            # sharer sees the change): this copy is not that file.
            if item.earlier is not None:
                shared.set_review(tx.conn, rid, CONCURRENT)
            return kind
        shared.mark(tx.conn, row.rid, root)
    shared.set_synced(tx.conn, rid, item.file_hash)
    if item.earlier is not None:
        shared.set_review(tx.conn, rid, CONCURRENT)
    if item.earlier is not None or item.found:
        # The file still holds both sides, or a secret: writing it from the store resolves
        # the markers, or takes the secret out (the person commits that).
        shared.set_synced(tx.conn, rid, None)
    return kind


def _update(
    engine: Engine,
    tx: Tx,
    row: EntryRow,
    m: mf.MemoryFile,
    emb: Embedding | None,
    flags: list[str],
    now: str,
) -> bool:
    fields: dict[str, Any] = {}
    if m.content != row.content:
        fields["content"] = m.content
        fields["content_hash"] = entries.content_hash(m.content)
        if flags:
            fields["quarantined"] = 1
            fields["quarantine_reason"] = ", ".join(flags)
    if m.content_type != row.content_type and row.content_type not in ("task", "log"):
        fields["content_type"] = m.content_type
    tags = list(dict.fromkeys(m.tags))
    if tags != row.entry().tags:
        fields["tags"] = msgspec.json.encode(tags).decode()
    if m.importance != row.importance:
        fields["importance"] = m.importance
    if m.confidence != row.confidence:
        fields["confidence"] = m.confidence
    if not fields:
        return False
    fields["updated_at"] = now
    entries.update_fields(tx.conn, row.rid, fields)
    versions.record(tx.conn, row.id, "updated", now)
    kind = fields.get("content_type", row.content_type)
    if "content" in fields:
        if emb is None:  # not expected: _apply embeds every text that changes
            emb = engine.embed_memory(m.content)
        entries.replace_vector(tx.conn, row.rid, *emb.blobs())
        engine.index_after_commit(tx, row.rid, emb, row.scope, kind, not row.is_deprecated)
    elif kind != row.content_type:
        engine.retype_after_commit(tx, row.rid, kind)
    after = engine.require(row.id, tx.conn)
    engine.changes.note(tx, "updated", after, previous_type=row.content_type)
    return True


def _link(engine: Engine, tx: Tx, m: mf.MemoryFile, now: str) -> None:
    """The file's links that the store lacks, where both ends are here (links the file
    no longer names are kept: a removal is `unlink`'s)."""
    wanted = [(t, target) for t in LINKS for target in getattr(m, t)]
    if not wanted:
        return
    source = entries.get(tx.conn, m.id)
    if source is None:
        return
    for edge_type, target_id in wanted:
        target = entries.get(tx.conn, target_id)
        if target is None or target.id == source.id:
            continue
        if graph.find(tx.conn, source.id, target.id, edge_type) is not None:
            continue
        graph.insert(tx.conn, source.id, target.id, edge_type, 1.0, {}, now)
        engine.changes.note_edge(tx, "linked", source, target, edge_type)


def _reconcile(engine: Engine, root: str, on_disk: dict[str, str]) -> int:
    """Files behind the store (a write that failed, a change made while the daemon could
    not write, a conflict resolved, a file changed by hand to what is not read): written
    now, the last left as it is for a person. `on_disk` is name -> hash as just read.
    Returns how many files changed."""
    conn = engine.reader()
    bad = {name for _, name, _, _ in shared.problems(conn, root)}
    rows = shared.in_root(conn, root)
    # Behind by version, and files that are not what was last written or read (a file
    # missing while others are there was unmarked above: it is not in `rows` any more).
    due = set(shared.behind(conn, root))
    due |= {i for i, r in rows.items() if on_disk.get(mf.file_name(i)) != r.file_hash}
    return sum(write_file(engine, i) for i in sorted(due) if mf.file_name(i) not in bad)

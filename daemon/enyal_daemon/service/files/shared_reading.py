"""Reading a repository's `.enyal/` back when it changes (a pull, a checkout, a merge):
each file's hash against the one recorded (an unchanged file costs a read and a hash),
a plan of what is new, changed, gone or unreadable, then applied: new files stored
redacted and judged for injection, changed ones as new versions, a slice at a time
(each slice embedded, then committed, so a request sees the memories read so far),
then one transaction records the files as read, makes their links, forgets the
memories of files gone (restorable) and lists memories edited on two branches for
review (service/files/sharing.py describes the whole)."""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import stat
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from enyal_protocol.kinds import REPOSITORY_AUTHOR

from ...embedder.passages import Embedding
from ...errors import InvalidValue, ShuttingDown
from ...hygiene.injection import judge_memory
from ...store import entries, graph, shared, versions
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import redaction, scopes
from ..rules.clock import normalize_iso
from .shared_files import LINKS, digest, emptied, folder, folder_lock, git_log, write_file

log = logging.getLogger(__name__)

MAX_FILE = 1 << 20  # a memory is at most 64 KiB of text: a larger file is no memory
CONCURRENT = "edited on two branches: both versions are in its history, the later is current"
# A removal and an edit of one memory, each made before the other was seen: the edit is
# kept (nothing acknowledged is lost) and the pair listed for review, the removal named
# as the other side; `share` settles it keeping the memory, `forget` taking the removal.
REMOVED_THERE = (
    "removed in the repository{by} while edited here: the edit is kept and its file "
    "written again (commit it); share it again to keep it, forget it to take the removal"
)
FORGOTTEN_HERE = (
    "forgotten here while edited in the repository{by}: it is back with that edit; share "
    "it again to keep it, forget it again to take the forget"
)
# The files of a read are stored a slice at a time, each slice embedded and committed
# before the next: a fresh clone's first request waits only so long for the read
# (sharing.FIRST_READ_WAIT) and is answered with the slices committed by then, so the
# first slice is small; later ones double, up to a size whose embedding (seconds under
# load) keeps a request's own writes from waiting long behind the writer.
FIRST_SLICE = 8
LAST_SLICE = 64
# How often a read waiting for a folder another read holds asks whether to go on, in
# seconds: a stop is answered within it, and the wait costs nothing more.
HELD_POLL = 0.1

# Per engine, root -> how many texts reading its `.enyal/` embedded since the daemon
# started (`status`): whoever read a file (the sharer, share_sync, a fresh clone's
# request), its text is counted once, so a test can tell an edit of front matter alone
# embedded nothing, and a folder read in slices embedded each text once.
_embedded: weakref.WeakKeyDictionary[Engine, dict[str, int]] = weakref.WeakKeyDictionary()
_embedded_lock = threading.Lock()


def embedded_counts(engine: Engine) -> dict[str, int]:
    with _embedded_lock:
        return dict(_embedded.get(engine, {}))


def _count_embedded(engine: Engine, root: str, n: int) -> None:
    with _embedded_lock:
        counts = _embedded.setdefault(engine, {})
        counts[root] = counts.get(root, 0) + n


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
    review: str | None = None  # why it is listed for review once stored (FORGOTTEN_HERE)
    rewrite: bool = False  # the file is behind the store once read: written again


@dataclass
class _Plan:
    incoming: list[_Incoming] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # name, reason, hash
    good_names: set[str] = field(default_factory=set)
    hashes: dict[str, str] = field(default_factory=dict)  # name -> sha256, as read
    gone: list[shared.SharedRow] = field(default_factory=list)
    # id -> who removed its file (git log; "" unknown), for those of `gone` edited here
    # since their file was last read or written: REMOVED_THERE.
    removed_by: dict[str, str] = field(default_factory=dict)
    unchanged: int = 0


def listing(root: str) -> dict[str, tuple[int, int]] | None:
    """The folder's entries (files, and links, which are refused when read) with their
    mtime and size: what the watcher compares. None: there is no folder (a checkout of
    a branch from before sharing, which forgets nothing; or one commits emptied:
    shared_files.emptied)."""
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


def sync_root(
    engine: Engine, root: str, between: Callable[[], bool] | None = None
) -> p.ShareSyncResult:
    """Read the folder. `between` is called between two slices (the sharer writes other
    repositories' files meanwhile), and while another read holds the folder; False ends
    the read there with ShuttingDown (the daemon stopping): what is stored stays, its
    files are read again at the next start."""
    with _held(root, between):
        plan = _plan(engine, root)
        _authors(root, plan.incoming)
        result = _apply(engine, root, plan, between)
        written = _reconcile(engine, root, plan.hashes)
    return msgspec.structs.replace(result, written=written)


@contextlib.contextmanager
def _held(root: str, between: Callable[[], bool] | None) -> Iterator[None]:
    """The folder's lock, waited for a slice at a time: a read waiting for another (a
    `share_sync` while the sharer reads) must not hold the daemon's stop for it."""
    lock = folder_lock(root)
    while not lock.acquire(timeout=HELD_POLL):
        if between is not None and not between():
            raise ShuttingDown(f"reading {root}/.enyal did not start: the daemon is stopping")
    try:
        yield
    finally:
        lock.release()


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
        h = digest(data)
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
    if on_disk is None and emptied(root):
        on_disk = {}
    if on_disk is not None:
        plan.gone = [r for i, r in rows.items() if mf.file_name(i) not in on_disk and r.file_hash]
    if plan.gone:
        edited = set(shared.behind(conn, root))
        for r in plan.gone:
            if r.id in edited:
                plan.removed_by[r.id] = _last_committer(root, mf.file_name(r.id)) or ""
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


def _last_committer(root: str, name: str) -> str | None:
    """Who last committed `.enyal/<name>`: for a file gone, who removed it."""
    return git_log(root, "-1", "--format=%an <%ae>", "--", f"{mf.FOLDER}/{name}") or None


def _by(author: str | None) -> str:
    return f" by {author}" if author else ""


def _edited_since_synced(conn: Any, root: str, entry_id: str) -> bool:
    """Whether the memory, shared into `root`, changed here after its file was last read
    or written (a version newer than the one the file says)."""
    mark = shared.get(conn, entry_id)
    latest = versions.list_for(conn, entry_id, 1)
    if mark is None or mark.root != root or mark.file_hash is None or not latest:
        return False
    return mark.version is None or latest[0].version > mark.version


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
    out = git_log(root, "--format=%x00%an <%ae>", "--name-only", "--", mf.FOLDER) or ""
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


def _apply(
    engine: Engine, root: str, plan: _Plan, between: Callable[[], bool] | None
) -> p.ShareSyncResult:
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
    current = entries.by_ids(engine.reader(), [i.memory.id for i in ready])
    vectors: dict[str, Embedding] = {}
    counts = {"added": 0, "updated": 0, "forgotten": 0}
    stored: list[tuple[_Incoming, int]] = []
    start, size = 0, FIRST_SLICE
    while start < len(ready):
        if start > 0 and between is not None and not between():
            # Not waited for: a read of thousands lasts minutes. Its files are recorded as
            # read only at the end (job below), so the next start reads the rest and embeds
            # nothing stored by now, as after a kill.
            raise ShuttingDown(
                f"reading {root}/.enyal stopped after {start} of {len(ready)} new or changed "
                "files: the rest are read at the next start"
            )
        part = ready[start : start + size]
        start, size = start + size, min(size * 2, LAST_SLICE)
        texts = [t for t in _to_embed(part, current) if t not in vectors]
        vectors.update(zip(texts, engine.embed_memories(texts), strict=True))
        _count_embedded(engine, root, len(texts))
        engine.write(functools.partial(_store_slice, engine, root, part, vectors, counts, stored))

    def job(tx: Tx) -> None:
        now = engine.clock.now_iso()
        # The files are recorded as read only here, with their links made: until then a
        # read cut short (the daemon killed between slices) leaves them to be read again,
        # which embeds nothing for a memory stored already and makes the links it names
        # to memories of later slices.
        for item, rid in stored:
            _settle(tx, item, rid)
        for item in ready:
            _link(engine, tx, item.memory, now)
        for r in plan.gone:
            row = entries.get(tx.conn, r.id)
            if (
                row is not None
                and not row.is_deprecated
                and _edited_since_synced(tx.conn, root, r.id)
            ):
                # Edited here after the file was last seen, removed there: kept, listed
                # for review, and its file written again (_reconcile) for the person.
                by = _by(plan.removed_by.get(r.id))
                shared.set_review(tx.conn, r.rid, REMOVED_THERE.format(by=by))
                shared.set_synced(tx.conn, r.rid, None)
                continue
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
        embedded=len(vectors),
        problems=[
            p.SharedProblem(file=str(folder(root) / n), reason=r, id=mf.id_of(n)) for n, r, _ in bad
        ],
    )


def _to_embed(part: list[_Incoming], current: dict[str, EntryRow]) -> list[str]:
    """Only text the store does not hold yet is embedded: a file whose front matter alone
    changed (tags, importance) keeps its vectors."""
    texts: dict[str, None] = {}
    for item in part:
        row = current.get(item.memory.id)
        if row is None or row.content != item.memory.content:
            texts[item.memory.content] = None
        if item.earlier is not None and row is not None and row.content != item.earlier.content:
            texts[item.earlier.content] = None
    return list(texts)


def _store_slice(
    engine: Engine,
    root: str,
    part: list[_Incoming],
    vectors: dict[str, Embedding],
    counts: dict[str, int],
    stored: list[tuple[_Incoming, int]],
    tx: Tx,
) -> None:
    now = engine.clock.now_iso()
    for item in part:
        kind, rid = _store(engine, tx, root, item, vectors, now)
        if kind is not None:
            counts[kind] += 1
        if rid is not None:
            stored.append((item, rid))


def _settle(tx: Tx, item: _Incoming, rid: int) -> None:
    """Record a stored file as read: its hash, and a memory edited on two branches for
    review."""
    shared.set_synced(tx.conn, rid, item.file_hash)
    if item.earlier is not None:
        shared.set_review(tx.conn, rid, CONCURRENT)
    elif item.review is not None:
        shared.set_review(tx.conn, rid, item.review)
    if item.earlier is not None or item.found or item.rewrite:
        # The file still holds both sides, or a secret: writing it from the store resolves
        # the markers, or takes the secret out (the person commits that).
        shared.set_synced(tx.conn, rid, None)


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
) -> tuple[str | None, int | None]:
    """Store one file's memory: added, updated (a new version), or None (no change); and
    the rid of the memory the file is recorded for (_settle), None when it is not."""
    m = item.memory
    emb = vectors.get(m.content)
    level, path = _scope(scopes.project_of(root), m)
    row = entries.get(tx.conn, m.id)
    flags: list[str] = []
    judged = emb
    if judged is None and row is not None and list(dict.fromkeys(m.tags)) != row.entry().tags:
        # Its text is the store's, its tags are new: judged with the text's stored vectors
        # (nothing is embedded for a change of front matter alone).
        judged = engine.stored_embedding(row.rid, tx.conn, text=m.content)
    if judged is not None:
        flags = judge_memory(
            m.content, m.tags, m.content_type, judged.whole, judged.passages, parts=judged.parts
        )
    kind: str | None
    if row is None:
        if emb is None:
            return None, None  # its text is another entry's: not embedded, nothing to store
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
            metadata={REPOSITORY_AUTHOR: item.author} if item.author else {},
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
            _update(engine, tx, engine.require(m.id, tx.conn), m, emb, flags, now, item.author)
        shared.mark(tx.conn, rid, root)
        kind = "added"
    else:
        back = row.is_deprecated  # its file is back (a checkout, a revert): so is it
        if back and _edited_since_synced(tx.conn, root, row.id):
            # Forgotten here after its file was last seen, edited there: the edit is kept
            # (back with it), and the forget is the other side of a conflict for review.
            item.review = FORGOTTEN_HERE.format(by=_by(item.author))
        if back:
            entries.update_fields(tx.conn, row.rid, {"is_deprecated": False})
            engine.reopen_chain(tx, row.id)
            versions.record(tx.conn, row.id, "restored", now)
            tx.after_commit.append(functools.partial(engine.index.set_active, row.rid, True))
            engine.changes.note(tx, "restored", row)
            row = engine.require(m.id, tx.conn)
        local = row  # before this read: a merge conflict's later side may be its text
        # Edited here after its file was last seen, and the file changed there: the two
        # edits crossed, as on two branches git could not merge (kept alike, below).
        crossed = (
            not back
            and item.earlier is None
            and not item.elsewhere
            and _edited_since_synced(tx.conn, root, row.id)
        )
        local_emb = engine.stored_embedding(row.rid, tx.conn) if crossed else None
        if item.earlier is not None:
            earlier_emb = vectors.get(item.earlier.content)
            _update(engine, tx, row, item.earlier, earlier_emb, [], now, item.author)
            row = engine.require(m.id, tx.conn)
        changed = _update(engine, tx, row, m, emb, flags, now, item.author, local) or back
        if crossed and changed:
            item.review = CONCURRENT
            if local.updated_at > normalize_iso(m.updated, "updated"):
                # The local edit is the later: current again, the file's a version before
                # it, and the file written from the store.
                mine = mf.of_entry(local.entry(), m.path, {t: [] for t in LINKS})
                row = engine.require(m.id, tx.conn)
                _update(engine, tx, row, mine, local_emb, [], now, None, local)
                item.rewrite = True
        kind = "updated" if changed or item.earlier is not None else None
        rid = row.rid
        if item.elsewhere:
            # Shared into its own checkout, whose file the change is written to (the
            # sharer sees the change): this copy is not that file.
            if item.earlier is not None:
                shared.set_review(tx.conn, rid, CONCURRENT)
            return kind, None
        shared.mark(tx.conn, row.rid, root)
    return kind, rid


def _update(
    engine: Engine,
    tx: Tx,
    row: EntryRow,
    m: mf.MemoryFile,
    emb: Embedding | None,
    flags: list[str],
    now: str,
    author: str | None,
    local: EntryRow | None = None,
) -> bool:
    """Store the file's version of the memory; `local`: the memory as this store held it
    before the read, whose writer keeps the text if it is the text kept (a merge conflict
    whose later edit was made here)."""
    fields: dict[str, Any] = {}
    if m.content != row.content:
        fields["content"] = m.content
    if m.content_type != row.content_type and row.content_type not in ("task", "log"):
        fields["content_type"] = m.content_type
    tags = list(dict.fromkeys(m.tags))
    if tags != row.entry().tags:
        fields["tags"] = tags
    if m.importance != row.importance:
        fields["importance"] = m.importance
    if m.confidence != row.confidence:
        fields["confidence"] = m.confidence
    if not fields:
        return False
    if flags and ("content" in fields or "tags" in fields):
        fields["quarantined"] = True  # new text judged as new text is (a release stands else)
        fields["quarantine_reason"] = ", ".join(flags)
    if local is not None and m.content == local.content and "content" in fields:
        # The text kept is this store's own edit (it was the later side of a merge
        # conflict, read back after the other side): its writer still wrote it.
        fields["written_by"] = local.written_by
        fields["metadata"] = local.entry().metadata
    elif "content" in fields or "tags" in fields:
        # New text from the repository is someone else's writing, as a new file's memory
        # is (and a local edit is its writer's: memories.update).
        fields["written_by"] = "repository"
        if author is not None:
            metadata = {**row.entry().metadata, REPOSITORY_AUTHOR: author}
            fields["metadata"] = metadata
    # The time the file says its author edited it, as a new file's memory keeps its own:
    # recency ranks the edit, not the pull that brought it (the version says when this
    # store learnt it).
    fields["updated_at"] = normalize_iso(m.updated, "updated")
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
    # Each file against the hash just read: one changed since (mid-read) is not overwritten.
    names = {i: mf.file_name(i) for i in due}
    return sum(
        write_file(engine, i, on_disk.get(names[i])) for i in sorted(due) if names[i] not in bad
    )

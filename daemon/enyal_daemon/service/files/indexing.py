"""`index`: the Markdown files agents already keep (CLAUDE.md, AGENTS.md, .cursor/rules,
.serena/memories, docs/) mirrored as memories, a chunk per section (service/files/chunks.py).

A mirror is an entry like any other (recalled, listed, linked, forgotten) with
`source_type: file`, `source_ref` = the file's absolute path + `#` + its chunk's key,
`written_by: file`, project scope (the file's repository, as remember resolves it),
and metadata `{indexed_from, heading, headings}`; context_sources holds its file's
fingerprint and its key (store/sources.py). It is read-only: `update` refuses it, and
the file is how it changes.

Incremental, by hashes: a file whose mtime and size match what was recorded is not
read; one read whose sha256 matches is not parsed; a parsed one is compared chunk by
chunk (by key): same text, unchanged; other text, updated (re-embedded, a version
kept); a new key, added; a key gone, forgotten (restorable; it comes back, updated, if
its section returns). Indexed files that no longer exist under a path being indexed
lose their chunks the same way. Each file is one short writer job, its embeddings
computed before it; one index run at a time.

Nothing outside what was given is read (service/files/confined.py): a link leading out of the
folder (or, for a file named alone or a path named that is a link, out of its project),
a FIFO, a device, a /proc file
is skipped and reported; so is it for the watcher, which lists through `walk` and reads
through `_file`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import logging
import os
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from enyal_protocol import wire as p

from ...embedder.passages import Embedding
from ...errors import InvalidValue, PathRefused, TooLarge
from ...hygiene.injection import suspicious
from ...store import entries, versions
from ...store import sources as store
from ...store.rows import EntryRow
from ...store.sources import Fingerprint, SourceRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import redaction, scopes
from ..rules.limits import MAX_CONTENT_BYTES
from . import automemory, chunks, confined, sources

log = logging.getLogger(__name__)

DEFAULT_GLOBS = ("*.md", "*.mdc")
MAX_FILES = 2_000  # a run over more is a mistake (a home folder, a node_modules)
MAX_FILE_BYTES = 1 << 20
# Folders never walked: tools' state, not notes anyone keeps.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)

_ONE_RUN = threading.Lock()


@dataclass
class _Tally:
    files_seen: int = 0
    files_skipped: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    forgotten: int = 0
    errors: list[p.IndexProblem] = field(default_factory=list)
    skipped: list[p.IndexSkip] = field(default_factory=list)
    gone: list[p.IndexGone] = field(default_factory=list)

    def result(self) -> p.IndexResult:
        return p.IndexResult(
            files_seen=self.files_seen,
            files_skipped=self.files_skipped,
            chunks_added=self.added,
            chunks_updated=self.updated,
            chunks_unchanged=self.unchanged,
            chunks_forgotten=self.forgotten,
            errors=self.errors,
            skipped=self.skipped,
            gone=self.gone,
        )


@dataclass
class Walked:
    """What `walk` found under one path: the files to read, and what it will not read."""

    root: str
    bound: str  # the real folder every file read must resolve under (service/files/confined.py)
    shown: str  # the bound as the user knows it, for the reasons
    files: list[str] = field(default_factory=list)
    skipped: list[p.IndexSkip] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)  # links to a file walked by its name


def index(engine: Engine, params: p.IndexParams) -> p.IndexResult:
    paths = list(dict.fromkeys(scopes.absolute(x, params.cwd) for x in params.paths))
    if params.forget:
        return _unwatch(engine, paths)
    # A path gone since it was indexed loses its chunks, and the rest is indexed; one that
    # never was indexed is a mistake (a typo), and nothing is done.
    missing = [x for x in paths if not os.path.lexists(x)]
    unknown = [x for x in missing if not _was_indexed(engine, x)]
    if unknown:
        raise InvalidValue(
            f"no such file or folder: {', '.join(unknown)} (nothing was indexed)",
            {"missing": unknown},
        )
    globs = tuple(params.globs) or DEFAULT_GLOBS
    source = Source(params.content_type, _auto_memory_project(params))
    found = [walk(root, globs) for root in paths if root not in missing]
    total = len({f for w in found for f in w.files})
    if total > MAX_FILES:
        raise TooLarge(
            f"{total} files match under {', '.join(paths)}; at most {MAX_FILES} are indexed at "
            "once: name narrower folders or globs"
        )
    now = engine.clock.now_iso()

    def remember_roots(tx: Tx) -> None:
        for walked in found:
            store.add_root(
                tx.conn, walked.root, globs, params.content_type, now, source.auto_memory_of
            )

    with _ONE_RUN:
        before = {r.path: r.auto_memory_of for r in store.roots(engine.reader())}
        engine.write(remember_roots)
        tally = _Tally()
        for path in missing:  # still watched, if it was: it may come back
            n = _forget_files(engine, store.mirrored_files_under(engine.reader(), path), tally)
            tally.gone.append(p.IndexGone(path=path, chunks_forgotten=n))
        for walked in found:
            # A folder now read as auto memory, or no longer: its unchanged files too.
            moved = walked.root in before and before[walked.root] != source.auto_memory_of
            _run(engine, walked, dataclasses.replace(source, reread=moved), tally)
    return tally.result()


@dataclass(frozen=True)
class Source:
    """How a root's files are read: the kind their chunks are stored as, and, for Claude
    Code's auto memory (service/files/automemory.py), the project it is the memory of."""

    content_type: p.ContentType
    auto_memory_of: str | None = None
    reread: bool = False  # read even the files that did not change since the last run


def _auto_memory_project(params: p.IndexParams) -> str | None:
    if params.auto_memory_of is None:
        return None
    folder = scopes.absolute(params.auto_memory_of, params.cwd)
    if not os.path.isdir(folder):
        raise InvalidValue(
            f"auto_memory_of: {folder} is not a folder (nothing was indexed)",
            {"auto_memory_of": folder},
        )
    # The project as remember resolves it, so these memories sit with the others.
    return scopes.project_of(folder).key


def _was_indexed(engine: Engine, path: str) -> bool:
    conn = engine.reader()
    return any(r.path == path for r in store.roots(conn)) or store.ever_mirrored_under(conn, path)


def _unwatch(engine: Engine, paths: list[str]) -> p.IndexResult:
    """`index --forget`: the paths leave the watched set and their chunks are forgotten.
    Checked first, all of them: a path never indexed, or inside a folder still watched
    (which would bring its files back), is refused and nothing changes."""
    roots = [r.path for r in store.roots(engine.reader())]
    for path in paths:
        if not _was_indexed(engine, path):
            raise InvalidValue(f"{path} is not indexed (nothing was forgotten)", {"path": path})
        for root in roots:
            kept = not any(confined.inside(root, x) for x in paths)
            if root != path and confined.inside(path, root) and kept:
                raise InvalidValue(
                    f"{path} is inside the indexed folder {root}, which would index it "
                    f"again: forget {root} (nothing was forgotten)",
                    {"path": path, "root": root},
                )
    tally = _Tally()
    with _ONE_RUN:
        for path in paths:
            files = store.mirrored_files_under(engine.reader(), path)
            unwatch = functools.partial(_remove_roots, path)
            n = _forget_files(engine, files, tally, unwatch)
            tally.gone.append(p.IndexGone(path=path, chunks_forgotten=n))
    return tally.result()


def _remove_roots(path: str, tx: Tx) -> None:
    store.remove_roots(tx.conn, path)


def reindex_roots(engine: Engine, only: Sequence[str] | None = None) -> p.IndexResult:
    """Index again what `index` was given (all of it, or the roots in `only`), as the
    watcher does: a root that no longer exists loses its chunks."""
    tally = _Tally()
    with _ONE_RUN:
        for root in store.roots(engine.reader()):
            if only is not None and root.path not in only:
                continue
            walked = walk(root.path, root.globs)
            del walked.files[MAX_FILES:]
            _run(engine, walked, Source(root.content_type, root.auto_memory_of), tally)
    return tally.result()


def walk(root: str, globs: Sequence[str]) -> Walked:
    """The files to index under `root` (itself, if it is a file), sorted, and what is
    skipped (service/files/confined.py). A file reached through a link inside the folder as well
    as under its own name is read once, under its own name."""
    out = Walked(root, *confined.bound_of(root))
    if not os.path.lexists(root):
        return out
    if not os.path.isdir(root):
        _admit(out, root, {})
        return out
    if os.path.islink(root):
        why = confined.folder_link(root, out.bound, out.shown)
        if why is not None:
            out.skipped.append(p.IndexSkip(path=root, reason=why))
            return out
    real_of: dict[str, str] = {}  # path walked -> its real path
    for folder, dirs, names in os.walk(root):
        for d in dirs:
            link = os.path.join(folder, d)
            why = confined.folder_link(link, out.bound, out.shown) if os.path.islink(link) else None
            if why is not None:
                out.skipped.append(p.IndexSkip(path=link, reason=why))
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if any(fnmatch.fnmatch(rel if "/" in g else name, g) for g in globs):
                _admit(out, path, real_of)
        if len(out.files) > MAX_FILES:
            break
    # A link to a file that is also walked under its own name adds nothing: one path per
    # real file, a name that is no link first.
    first: dict[str, str] = {}
    for path in sorted(real_of, key=lambda f: (os.path.islink(f), f)):
        if first.setdefault(real_of[path], path) != path:
            out.aliases.append(path)
    out.files = sorted(first.values())
    out.skipped.sort(key=lambda s: s.path)
    return out


def _admit(out: Walked, path: str, real_of: dict[str, str]) -> None:
    try:
        real = confined.resolve(path, out.bound, out.shown)
    except PathRefused as exc:
        out.skipped.append(p.IndexSkip(path=path, reason=exc.message))
        return
    except OSError:  # gone since it was listed
        return
    out.files.append(path)  # counted as found; deduplicated once the walk is done
    real_of[path] = real


def roots(engine: Engine) -> list[store.Root]:
    """Everything `index` was given."""
    return store.roots(engine.reader())


def _run(engine: Engine, walked: Walked, source: Source, tally: _Tally) -> None:
    tally.skipped += walked.skipped
    for path in walked.files:
        tally.files_seen += 1
        try:
            _file(engine, path, walked, source, tally)
        except PathRefused as exc:  # changed into one since the walk
            tally.skipped.append(p.IndexSkip(path=path, reason=exc.message))
        except (OSError, UnicodeDecodeError, InvalidValue, TooLarge) as exc:
            message = getattr(exc, "message", None) or str(exc)
            tally.errors.append(p.IndexProblem(path=path, error=message))
    present = set(walked.files)
    # What is skipped now, or read under another name, loses what an older run read
    # through it.
    refused = {s.path for s in tally.skipped} | set(walked.aliases)
    for path in store.mirrored_files_under(engine.reader(), walked.root):
        if path not in present and (path in refused or not os.path.exists(path)):
            _forget_files(engine, [path], tally)


@dataclass
class _Plan:
    """What one file's writer job does."""

    add: list[tuple[chunks.Chunk, str]] = field(default_factory=list)  # (chunk, content)
    update: list[tuple[SourceRow, chunks.Chunk, str]] = field(default_factory=list)
    forget: list[SourceRow] = field(default_factory=list)
    keep: list[SourceRow] = field(default_factory=list)


def _file(engine: Engine, path: str, walked: Walked, source: Source, tally: _Tally) -> None:
    st = os.stat(path)
    known = store.mirrors_of(engine.reader(), path)
    same = known and not source.reread
    if same and source.auto_memory_of is not None and automemory.may_echo(path):
        active = entries.by_rids(engine.reader(), [r.rid for r in known if not r.deprecated])
        same = not automemory.echoes(path, [row.content for row in active.values()])
    if same and all((r.mtime_ns, r.size) == (st.st_mtime_ns, st.st_size) for r in known):
        tally.files_skipped += 1
        return
    data, st = confined.read(path, walked.bound, walked.shown, MAX_FILE_BYTES)
    fp = sources.fingerprint_bytes(path, data, st)
    if same and all(r.hash == fp.hash for r in known):  # touched, not changed
        tally.files_skipped += 1
        return
    text = data.decode("utf-8")
    kind = source.content_type
    scope: tuple[p.ScopeLevel, str] = ("project", scopes.project_of(path).key)
    extra: dict[str, Any] = {}
    if source.auto_memory_of is not None:
        note = automemory.read(path, text, kind)
        text, kind, scope = note.text, note.content_type, ("project", source.auto_memory_of)
        extra = {"auto_memory": note.fields}
    parts = chunks.split(text, engine.embedder.window_tokens)
    rows = entries.by_rids(engine.reader(), [r.rid for r in known])
    by_key = {r.anchor: r for r in known}
    plan = _Plan()
    for chunk in parts:
        content = redaction.text(engine.redactor, chunk.text)
        if len(content.encode("utf-8")) > MAX_CONTENT_BYTES:  # a window holds far less
            raise TooLarge(f"section {chunk.key!r} is over {MAX_CONTENT_BYTES} bytes")
        r = by_key.pop(chunk.key, None)
        if r is None:
            plan.add.append((chunk, content))
        elif (
            r.rid in rows
            and not r.deprecated
            and rows[r.rid].content_hash == entries.content_hash(content)
            and rows[r.rid].metadata() == _metadata(path, chunk, extra)
        ):
            plan.keep.append(r)
        else:
            plan.update.append((r, chunk, content))
    plan.forget = [r for r in by_key.values() if not r.deprecated]
    plan.keep += [r for r in by_key.values() if r.deprecated]
    texts = [content for _, content in plan.add] + [content for _, _, content in plan.update]
    vecs = engine.embed_memories(texts) if texts else None
    engine.write(lambda tx: _apply(engine, tx, path, fp, kind, scope, extra, plan, vecs, rows))
    tally.added += len(plan.add)
    tally.updated += len(plan.update)
    tally.forgotten += len(plan.forget)
    tally.unchanged += sum(1 for r in plan.keep if not r.deprecated)


def _metadata(path: str, chunk: chunks.Chunk, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "indexed_from": path,
        "heading": chunk.heading,
        "headings": list(chunk.headings),
        **extra,
    }


def _ref(path: str, key: str) -> str:
    return f"{path}#{key}" if key else path


def _apply(
    engine: Engine,
    tx: Tx,
    path: str,
    fp: Fingerprint,
    kind: p.ContentType,
    scope: tuple[p.ScopeLevel, str],
    extra: dict[str, Any],
    plan: _Plan,
    vecs: list[Embedding] | None,
    rows: dict[int, EntryRow],
) -> None:
    now = engine.clock.now_iso()
    # An entry deleted for good (forget --hard) since the plan was made is left deleted.
    alive = entries.by_rids(
        tx.conn, [r.rid for r, _, _ in plan.update] + [r.rid for r in plan.forget]
    )
    add_vecs = vecs[: len(plan.add)] if vecs is not None else []
    update_vecs = vecs[len(plan.add) :] if vecs is not None else []
    for (chunk, content), vec in zip(plan.add, add_vecs, strict=True):
        flags = suspicious(content)  # rules only: see ARCHITECTURE, "Poisoned text"
        entry = p.Entry(
            id=str(uuid.uuid4()),
            content=content,
            content_type=kind,
            scope_level=scope[0],
            scope_path=scope[1],
            confidence=1.0,
            created_at=now,
            updated_at=now,
            accessed_at=None,
            access_count=0,
            source_type="file",
            source_ref=_ref(path, chunk.key),
            tags=[],
            metadata=_metadata(path, chunk, extra),
            is_deprecated=False,
            content_hash=entries.content_hash(content),
            written_by="file",
            quarantined=bool(flags),
            quarantine_reason=", ".join(flags) or None,
        )
        rid = entries.insert(tx.conn, entry, *vec.blobs())
        store.record(tx.conn, rid, path, fp, anchor=chunk.key)
        versions.record(tx.conn, entry.id, "created", now)
        engine.index_after_commit(tx, rid, vec, scope, entry.content_type)
        engine.changes.note(tx, "created", entry)  # live changes: MCP resources, the web view
    for (r, chunk, content), vec in zip(plan.update, update_vecs, strict=True):
        if r.rid not in alive:
            continue
        flags = suspicious(content)  # rules only: see ARCHITECTURE, "Poisoned text"
        fields: dict[str, Any] = {
            "content": content,
            "metadata": _metadata(path, chunk, extra),
            "source_ref": _ref(path, chunk.key),
            "is_deprecated": False,
            "quarantined": bool(flags),
            "quarantine_reason": ", ".join(flags) or None,
            "updated_at": now,
        }
        if extra:  # an auto memory's type and project are its file's and root's to say
            fields.update(content_type=kind, scope_level=scope[0], scope_path=scope[1])
        entries.update_fields(tx.conn, r.rid, fields)
        entries.replace_vector(tx.conn, r.rid, *vec.blobs())
        versions.record(tx.conn, r.id, "updated", now)
        row = rows.get(r.rid)
        kept: tuple[p.ContentType, tuple[str, str | None]] = (kind, scope)
        if row and not extra:
            kept = (row.content_type, row.scope)
        engine.index_after_commit(tx, r.rid, vec, kept[1], kept[0])
        before = row.content_type if row else None
        engine.changes.note(tx, "updated", engine.require(r.id, tx.conn), previous_type=before)
    for r in plan.forget:
        if r.rid in alive:
            _forget(engine, tx, alive[r.rid], now)
    store.refresh(tx.conn, [r.rid for r in plan.keep + plan.forget], fp)
    store.refresh(tx.conn, [r.rid for r, _, _ in plan.update], fp)


def _forget(engine: Engine, tx: Tx, row: EntryRow, now: str) -> None:
    """A chunk gone from its file, forgotten (restorable) and its change published; its
    chain is left as it is (a chunk is never superseded)."""
    engine.deprecate(tx, row, now)


def _forget_files(
    engine: Engine, paths: Sequence[str], tally: _Tally, also: Callable[[Tx], None] | None = None
) -> int:
    """Forget the active chunks of these files (and do `also`) in one writer job; how many."""
    conn = engine.reader()
    gone = [r for path in paths for r in store.mirrors_of(conn, path) if not r.deprecated]

    def job(tx: Tx) -> None:
        if also is not None:
            also(tx)
        now = engine.clock.now_iso()
        alive = entries.by_rids(tx.conn, [r.rid for r in gone])
        for r in gone:
            if r.rid in alive:
                _forget(engine, tx, alive[r.rid], now)
        # Recorded as missing, so the file read again (back as it was, same mtime and
        # size) is not taken for unchanged: its chunks come back.
        store.refresh(tx.conn, [r.rid for r in gone], sources.MISSING)

    if gone or also is not None:
        engine.write(job)
    tally.forgotten += len(gone)
    return len(gone)

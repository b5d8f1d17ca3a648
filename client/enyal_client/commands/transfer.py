"""Moving memories in and out: import, export (lossless JSONL, or Markdown for people)
and backup (a consistent copy of the database, taken by the daemon while it serves)."""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import msgspec

from enyal_protocol import projects
from enyal_protocol import wire as p
from enyal_protocol.private import FILE_MODE, open_private
from enyal_protocol.whole_file import write_whole

from ..transport import ClientError, Connection
from . import claude_memory, markdown, memory_files
from . import contract as ct
from .base import Args, Context, Registry, Result, UsageError, on_daemon
from .hygiene import redacted_line

IMPORT_BATCH = 200
EXPORT_PAGE = 500
SPOOL_BYTES = 8 << 20  # an export body above this waits on disk for its header

_encoder = msgspec.json.Encoder()


# --- import ----------------------------------------------------------------------------


def _batches(f: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    batch: list[str] = []
    first = 1
    for number, line in enumerate(f, 1):
        if not batch:
            first = number
        batch.append(line.rstrip("\n"))
        if len(batch) == IMPORT_BATCH:
            yield first, batch
            batch = []
    if batch:
        yield first, batch


def _count(totals: dict[str, int], r: p.ImportResult) -> None:
    """One import batch's counts added to the running totals."""
    totals["stored"] += r.stored
    totals["existing"] += r.existing
    totals["failed"] += r.failed
    totals["edges"] += sum(x.kind == "edge" and x.status == "stored" for x in r.lines)


def _import_files(c: Connection, a: Args) -> Result:
    """Memory files (`.enyal/` format): a folder of them, or one; each failure named by
    its file."""
    lines, names, unread = memory_files.import_lines(a.file, a.project or os.getcwd())
    totals = {"stored": 0, "existing": 0, "failed": len(unread), "edges": 0}
    failures = list(unread)
    for first in range(0, len(lines), IMPORT_BATCH):
        params = {"lines": lines[first : first + IMPORT_BATCH], "first_line": first + 1}
        r = ct.call(c, "import", params, p.ImportResult)
        _count(totals, r)
        failures += [f"{names[x.line - 1]}: {x.error}" for x in r.lines if x.status == "failed"]
    text = "\n".join(
        [
            *failures,
            f"stored {totals['stored']} (of which {totals['edges']} links), "
            f"existing {totals['existing']}, failed {totals['failed']}",
        ]
    )
    return {**totals, "failures": failures}, text


# What a file that is neither is told (issue 24): import reads what export writes, and
# Markdown notes are kept by `index`, which mirrors each section as a memory.
NOT_AN_EXPORT = (
    "{file} is neither JSON Lines (one JSON object a line, as `enyal export` writes) nor "
    "memory files (`.enyal/` format: a .md file starting with a '---' front matter line); "
    "nothing was imported. To keep a Markdown file's notes as memories: enyal index {file}"
)


def _not_an_export(file: str) -> UsageError:
    return UsageError(NOT_AN_EXPORT.format(file=file))


def _front_matter_first(path: str) -> None:
    """A single .md file that is no memory file (notes in plain Markdown) is refused
    whole, before anything is sent; a folder's bad files are each its own failure."""
    if os.path.isdir(path):
        return
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first = f.readline(4096)
    except OSError:
        return  # said by the read itself, as before
    if first.strip() != "---":
        raise _not_an_export(path)


def _json_lines_first(f: IO[str], file: str) -> Iterable[str]:
    """The lines of `f`, refused whole (before anything is sent) when its first line
    that is not blank is no JSON object: a file of notes is no export, and one "not
    JSON" a line said nothing useful. A bad line further on is that line's failure."""
    head: list[str] = []
    for line in f:
        head.append(line)
        if line.strip():
            if not line.lstrip().startswith("{"):
                raise _not_an_export(file)
            break
    return itertools.chain(head, f)


def cmd_import(c: Connection, a: Args) -> Result:
    if a.file != "-" and memory_files.is_files(a.file):
        _front_matter_first(a.file)
        return _import_files(c, a)
    if a.project is not None:
        raise UsageError("--project goes with memory files (a folder, or a .md file)")
    totals = {"stored": 0, "existing": 0, "failed": 0, "edges": 0}
    failures: list[p.ImportLine] = []
    redacted: dict[str, int] = {}
    try:
        f = sys.stdin if a.file == "-" else open(a.file, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise ClientError(f"cannot read {a.file}: {exc.strerror}") from None
    with f:
        try:
            for first, lines in _batches(_json_lines_first(f, a.file)):
                params = {"lines": lines, "first_line": first}
                r = ct.call(c, "import", params, p.ImportResult)
                _count(totals, r)
                failures.extend(x for x in r.lines if x.status == "failed")
                for kind, n in r.redacted.items():
                    redacted[kind] = redacted.get(kind, 0) + n
        except UnicodeDecodeError as exc:
            raise ClientError(f"{a.file} is not UTF-8 text: {exc.reason}") from None
    result = {**totals, "failures": failures, "redacted": redacted}
    text = "\n".join(
        [f"line {x.line}: {x.error}" for x in failures]
        + [
            f"stored {totals['stored']} (of which {totals['edges']} links), "
            f"existing {totals['existing']}, failed {totals['failed']}"
        ]
        + ([redacted_line(redacted).strip()] if redacted else [])
    )
    return result, text


# --- export ----------------------------------------------------------------------------


def _entries(c: Connection, include_deprecated: bool, versions: bool) -> Iterator[p.ExportedEntry]:
    after: int | None = 0
    while after is not None:
        params = {
            "after": after,
            "limit": EXPORT_PAGE,
            "include_deprecated": include_deprecated,
            "versions": versions,
        }
        page = ct.call(c, "export", params, p.ExportResult)
        yield from page.entries
        after = page.next


def _edges(c: Connection) -> Iterator[p.Edge]:
    after: int | None = 0
    while after is not None:
        params = {"after": after, "limit": EXPORT_PAGE, "kind": "edges"}
        page = ct.call(c, "export", params, p.ExportResult)
        yield from page.edges or []
        after = page.next


def _write_jsonl(c: Connection, a: Args, out: IO[bytes]) -> tuple[int, int]:
    """Format 2: a header line, the entries with their histories, then the edges.
    The header counts what follows, so the body is spooled first."""
    status = ct.call(c, "status", {}, p.Status)
    exported: set[str] = set()
    n_edges = 0
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as body:
        for e in _entries(c, include_deprecated=not a.active_only, versions=True):
            body.write(_encoder.encode(e) + b"\n")
            exported.add(e.id)
        for edge in _edges(c):
            # Without the forgotten entries, their links would point at nothing.
            if edge.source_id in exported and edge.target_id in exported:
                body.write(_encoder.encode(p.ImportEdge(edge=edge)) + b"\n")
                n_edges += 1
        header = p.ExportHeader(
            enyal_export=p.EXPORT_FORMAT,
            enyal_version=status.version,
            model_id=status.model.id,
            exported_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            entries=len(exported),
            edges=n_edges,
        )
        out.write(_encoder.encode(header) + b"\n")
        body.seek(0)
        while chunk := body.read(1 << 20):
            out.write(chunk)
    return len(exported), n_edges


def _write_markdown(c: Connection, a: Args, out: IO[bytes]) -> tuple[int, int]:
    entries: list[p.Entry] = list(_entries(c, include_deprecated=False, versions=False))
    title = "Memories"
    if a.project is not None:
        root = os.path.abspath(a.project)
        # Stored by the project's key, not the folder (docs/ARCHITECTURE.md).
        entries = [e for e in entries if markdown.in_project(e, projects.place(root))]
        title = f"Memories of {os.path.basename(root) or root}"
    ids = {e.id for e in entries}
    edges = [e for e in _edges(c) if e.source_id in ids and e.target_id in ids]
    text, count = markdown.render(entries, edges, title)
    out.write(text.encode() + b"\n")
    return count, len(edges)


def _export_files(c: Connection, a: Args, make: bool = False) -> Result:
    """One project's memories into the folder a.file, a `.enyal/`-format file each
    (`make`: the folder is made first, private as its files are)."""
    if a.project is None:
        raise UsageError("a folder holds one project's memories: give --project DIR")
    if make:
        try:
            os.makedirs(a.file, mode=0o700)
        except OSError as exc:
            raise ClientError(f"cannot make the folder {a.file}: {exc.strerror}") from None
    entries = list(_entries(c, include_deprecated=False, versions=False))
    count, n_edges = memory_files.export(a.file, a.project, entries, _edges(c))
    result = {"exported": count, "edges": n_edges, "file": a.file, "format": a.format}
    return result, f"exported {count} entries and {n_edges} links to {a.file}, a file each"


def _write_claude_memory(c: Connection, a: Args) -> Result:
    """Topic files and MEMORY.md's Enyal block in the folder --to names (commands/
    claude_memory.py): the only way Enyal writes into a Claude Code memory folder."""
    from enyal_protocol.automemory import project_of  # the project Claude keys its memory by

    root = str(project_of(a.project or os.getcwd()))
    folder = Path(a.to).absolute()
    entries = list(_entries(c, include_deprecated=False, versions=False))
    kept_ids = {e.id for e in entries}
    edges = [e for e in _edges(c) if e.source_id in kept_ids and e.target_id in kept_ids]
    chosen = claude_memory.curated(entries, edges, root)
    index = folder / claude_memory.INDEX
    try:
        old = index.read_text(encoding="utf-8") if index.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientError(f"cannot read {index}: {exc} (nothing was written)") from None
    kept = claude_memory.without_block(old)
    out = claude_memory.render(chosen, root, claude_memory.room_left(kept))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in claude_memory.TOPIC_FILES:  # ours alone: a kind now empty goes
            if name not in out.files:
                (folder / name).unlink(missing_ok=True)
        for name, text in out.files.items():
            _replace(folder / name, text)
        new = claude_memory.index_text(kept, out.index_block)
        if new != old:
            _replace(index, new)
    except OSError as exc:
        raise ClientError(f"cannot write into {folder}: {exc.strerror}") from None
    pointed = len(out.index_block)
    result = {
        "exported": out.exported,
        "left_out": out.left_out,
        "files": sorted(out.files),
        "index_pointers": pointed,
        "folder": str(folder),
        "format": a.format,
    }
    text = (
        f"exported {out.exported} memories of {root} into {len(out.files)} topic files in {folder}"
    )
    if out.left_out:
        text += f" ({out.left_out} left out: over Claude Code's limits)"
    if out.files and pointed < len(out.files):
        text += (
            f"\n{index} has room for {pointed} of {len(out.files)} pointers (Claude Code loads "
            f"{claude_memory.MAX_LINES} lines or {claude_memory.MAX_BYTES} bytes of it)"
        )
    return result, text


def _replace(path: Path, text: str) -> None:
    """Write `path` whole or not at all: a reader never sees half a file."""
    write_whole(path, text.encode("utf-8"), FILE_MODE)


def check_export(ctx: Context, a: Args) -> Result:
    """The flags checked before a daemon is asked for (or started)."""
    if a.format == "claude-memory" and a.to is None and a.file not in (None, "-"):
        a.to, a.file = a.file, None  # the folder named as markdown's is: `export DIR`
    if (a.format == "claude-memory") != (a.to is not None):
        raise UsageError("--format claude-memory and --to DIR (or DIR alone) go together")
    if a.format == "claude-memory" and a.file is not None:
        raise UsageError("--format claude-memory writes into --to DIR, not FILE")
    if a.project is not None and a.format not in ("markdown", "claude-memory"):
        raise UsageError("--project goes with --format markdown (JSONL exports everything)")
    return cmd_export(ctx.connection(), a)


def cmd_export(c: Connection, a: Args) -> Result:
    if a.format == "claude-memory":
        return _write_claude_memory(c, a)
    if a.format == "markdown" and a.file not in (None, "-") and os.path.isdir(a.file):
        return _export_files(c, a)
    if a.format == "markdown" and a.file is not None and a.file.endswith(os.sep):
        # A folder asked for by its trailing slash and not there yet: made, rather than
        # one document written under the folder's name.
        return _export_files(c, a, make=True)
    to_stdout = a.file in (None, "-")
    out: IO[bytes]
    try:
        # 0600 whatever the umask: an export holds every memory, as a backup does.
        out = sys.stdout.buffer if to_stdout else open_private(a.file)
    except OSError as exc:
        raise ClientError(f"cannot write {a.file}: {exc.strerror}") from None
    write = _write_markdown if a.format == "markdown" else _write_jsonl
    try:
        count, n_edges = write(c, a, out)
    finally:
        if to_stdout:
            out.flush()
        else:
            out.close()
    if to_stdout:
        return None, ""
    result = {"exported": count, "edges": n_edges, "file": a.file, "format": a.format}
    return result, f"exported {count} entries and {n_edges} links to {a.file}"


# --- backup ----------------------------------------------------------------------------


def cmd_backup(c: Connection, a: Args) -> Result:
    params = {"path": a.file, "overwrite": a.force, "cwd": os.getcwd()}
    r = ct.call(c, "backup", params, p.BackupResult, {"path": "FILE", "overwrite": "--force"})
    text = (
        f"backed up {r.entries} entries ({r.bytes / 1e6:.1f} MB) to {r.path} in {r.seconds:.2f} s"
        f"\nrestore: stop the daemon (enyal daemon stop), copy {Path(r.path).name} over the "
        "database (enyal status shows where), start it again"
    )
    return r, text


def register(reg: Registry) -> None:
    imp = reg.verb(
        "import", "import JSONL: an export, or lines you wrote (- for stdin)", on_daemon(cmd_import)
    )
    imp.add_argument("file", help="JSONL, - for stdin, or memory files: a folder or a .md file")
    imp.add_argument(
        "--project",
        metavar="DIR",
        help="memory files: the project's root they are stored under (default: here)",
    )

    ex = reg.verb(
        "export",
        "export everything as lossless JSONL (entries, histories, links), or as Markdown",
        check_export,
    )
    ex.add_argument("file", nargs="?", help="default: stdout")
    ex.add_argument("--format", choices=("jsonl", "markdown", "claude-memory"), default="jsonl")
    ex.add_argument("--active-only", action="store_true", help="leave forgotten entries out")
    ex.add_argument(
        "--project",
        metavar="DIR",
        help="markdown: only what is stored under this folder; claude-memory: the project",
    )
    ex.add_argument(
        "--to",
        metavar="DIR",
        help="claude-memory: the folder to write into (e.g. `enyal automemory path`); "
        "a DIR given as `file` is taken as this",
    )

    b = reg.verb(
        "backup",
        "a consistent copy of the database, taken while the daemon runs",
        on_daemon(cmd_backup),
    )
    b.add_argument("file")
    b.add_argument("--force", action="store_true", help="replace FILE if it exists")

"""A project's memories as `.enyal/`-format files, out and in: `enyal export DIR
--format markdown --project P` writes one `<id>.md` per memory into the folder DIR, and
`enyal import` of a folder or a `.md` file reads them back (enyal_protocol/
memory_file.py is the one format, the daemon's shared files' too).

Import goes through the daemon's `import` as JSONL lines built here, so what comes in
is checked as any import is: secrets redacted, the text judged for injection (the file
says nothing of quarantine), ids kept, a memory already stored left as it is."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import msgspec

from enyal_protocol import memory_file as mf
from enyal_protocol import projects
from enyal_protocol import wire as p
from enyal_protocol.private import open_private

_encoder = msgspec.json.Encoder()
LINKS = mf.LINKS


def is_files(path: str) -> bool:
    """Whether `enyal import PATH` reads memory files rather than JSONL."""
    return os.path.isdir(path) or path.endswith(mf.SUFFIX)


def export(
    folder: str, project: str, entries: Iterable[p.Entry], edges: Iterable[p.Edge]
) -> tuple[int, int]:
    """Write the project's live memories into `folder`, one file each (0600: an export
    is private until its owner commits it). Returns (memories, links) written."""
    key = projects.place(os.path.abspath(project))
    mine = {
        e.id: e
        for e in entries
        if not e.is_deprecated
        and e.scope_level in ("project", "file")
        and projects.within(e.scope_path, key)
    }
    out: dict[str, dict[p.EdgeType, list[str]]] = {i: {t: [] for t in LINKS} for i in mine}
    n_links = 0
    for edge in edges:
        if edge.source_id in mine and edge.target_id in mine and edge.edge_type in LINKS:
            out[edge.source_id][edge.edge_type].append(edge.target_id)
            n_links += 1
    for e in mine.values():
        path = e.scope_path[len(key) + 1 :] if e.scope_level == "file" and e.scope_path else None
        m = mf.of_entry(e, path or None, out[e.id])
        f: IO[bytes]
        with open_private(os.path.join(folder, mf.file_name(e.id))) as f:
            f.write(mf.render(m).encode())
    return len(mine), n_links


def import_lines(path: str, project: str) -> tuple[list[str], list[str], list[str]]:
    """The JSONL lines `import` takes for the memory files at `path` (a folder of them,
    or one file), stored under the project at `project`: (lines, the file each line
    came from, what could not be read as 'FILE: reason')."""
    files = (
        sorted(str(x) for x in Path(path).iterdir() if x.name.endswith(mf.SUFFIX))
        if os.path.isdir(path)
        else [path]
    )
    root = os.path.abspath(project)
    entries: list[tuple[str, str]] = []
    edges: list[tuple[str, str]] = []
    failed: list[str] = []
    for name in files:
        try:
            m = mf.parse(Path(name).read_text(encoding="utf-8"), os.path.basename(name))
        except (mf.FormatError, UnicodeDecodeError) as exc:
            failed.append(f"{name}: {exc}")
            continue
        except OSError as exc:
            failed.append(f"{name}: {exc.strerror}")
            continue
        item = p.ImportEntry(
            id=m.id,
            content=m.content,
            content_type=m.content_type,
            scope_level="file" if m.path else "project",
            scope_path=os.path.join(root, m.path) if m.path else root,
            confidence=m.confidence,
            created_at=m.created,
            updated_at=m.updated,
            tags=m.tags,
            importance=m.importance,
            written_by=m.written_by if m.written_by in _WRITERS else "import",  # type: ignore[arg-type]
            status=m.status,
            due=m.due,
        )
        entries.append((_encoder.encode(item).decode(), name))
        for edge_type in LINKS:
            for target in getattr(m, edge_type):
                edge = p.Edge(
                    id=str(uuid.uuid4()),
                    source_id=m.id,
                    target_id=target,
                    edge_type=edge_type,
                    confidence=1.0,
                    created_at=m.updated,
                    metadata={},
                )
                edges.append((_encoder.encode(p.ImportEdge(edge=edge)).decode(), name))
    both = entries + edges  # edges after the entries they join, as an export has them
    return [line for line, _ in both], [name for _, name in both], failed


_WRITERS = set(p.WrittenBy.__args__)  # type: ignore[attr-defined]

"""`enyal index PATH… [--glob G]…`: mirror the Markdown files agents already keep
(CLAUDE.md, AGENTS.md, .cursor/rules, docs/) as memories, a chunk per section. The
daemon reads the files itself; a second run changes only what the files changed."""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, UsageError, drop_none, on_daemon

FLAGS = {"paths": "PATH", "globs": "--glob", "content_type": "--type", "forget": "--forget"}


def index_text(r: p.IndexResult, forget: bool) -> str:
    if forget:
        return "\n".join(
            f"forgot {g.path}: {g.chunks_forgotten} chunks forgotten, no longer watched"
            for g in r.gone
        )
    lines = [f"{e.path}: {e.error}" for e in r.errors]
    lines += [f"skipped {s.path}: {s.reason}" for s in r.skipped]
    lines += [f"gone: {g.path}, {g.chunks_forgotten} chunks forgotten" for g in r.gone]
    lines.append(
        f"files: {r.files_seen} seen, {r.files_skipped} unchanged; chunks: {r.chunks_added} "
        f"added, {r.chunks_updated} updated, {r.chunks_unchanged} unchanged, "
        f"{r.chunks_forgotten} forgotten"
    )
    return "\n".join(lines)


def cmd_index(c: Connection, a: Args) -> Result:
    if a.forget and (a.glob or a.type):
        raise UsageError("--forget takes only paths (no --glob, no --type)")
    params = drop_none(
        {
            "paths": a.paths,
            "globs": a.glob,
            "content_type": a.type,
            "cwd": os.getcwd(),
            "forget": a.forget or None,
        }
    )
    r = ct.call(c, "index", params, p.IndexResult, FLAGS)
    return r, index_text(r, a.forget)


def register(reg: Registry) -> None:
    ix = reg.verb(
        "index",
        "mirror Markdown files (CLAUDE.md, AGENTS.md, docs/) as read-only memories",
        on_daemon(cmd_index),
    )
    ix.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    ix.add_argument(
        "--glob", action="append", help="file names to index in folders (default *.md, *.mdc)"
    )
    ix.add_argument(
        "--type",
        choices=ct.choices(p.IndexParams, "content_type"),
        help="the kind chunks are stored as (default: convention)",
    )
    ix.add_argument(
        "--forget",
        action="store_true",
        help="stop watching these paths and forget their chunks (enyal restore undoes it)",
    )

"""`enyal automemory import|path [--project DIR] [--dir FOLDER] [--forget]`: Claude
Code's auto memory of a project, mirrored as Enyal memories beside it, never instead.

Where Claude Code keeps it: enyal_protocol/automemory.py. `import` hands that folder
to the daemon's `index` with `auto_memory_of` (the daemon reads it, a memory per topic
file section, typed from its front matter; docs/PROTOCOL.md, index): a second run
changes only what Claude changed, a topic file deleted is forgotten, and the folder is
watched as any indexed one (index.watch). Enyal never writes into it: only `enyal
export --format claude-memory --to DIR` does, when told to.
"""

from __future__ import annotations

import os
from pathlib import Path

from enyal_protocol import wire as p
from enyal_protocol.automemory import index_params, memory_dir, project_of

from ..transport import Connection
from . import contract as ct
from .base import Args, Context, Registry, Result
from .indexing import FLAGS, index_text


def _target(a: Args) -> tuple[Path, Path]:
    project = project_of(a.project or os.getcwd())
    return project, Path(a.dir).absolute() if a.dir else memory_dir(project)


def cmd_automemory(ctx: Context, a: Args) -> Result:
    project, folder = _target(a)
    if a.action == "path":
        return {"project": str(project), "folder": str(folder)}, str(folder)
    return _import(ctx.connection(), a, project, folder)


def _import(c: Connection, a: Args, project: Path, folder: Path) -> Result:
    params = index_params(folder, project, os.getcwd())
    if a.forget:
        params = {"paths": [str(folder)], "cwd": os.getcwd(), "forget": True}
    r = ct.call(c, "index", params, p.IndexResult, {**FLAGS, "auto_memory_of": "--project"})
    return r, f"Claude Code's auto memory of {project} ({folder})\n" + index_text(r, a.forget)


def register(reg: Registry) -> None:
    m = reg.verb(
        "automemory",
        "mirror Claude Code's auto memory of a project as memories (read, never written)",
        cmd_automemory,
    )
    m.add_argument("action", choices=("import", "path"))
    m.add_argument(
        "--project", metavar="DIR", help="the project (default: the repository of this folder)"
    )
    m.add_argument("--dir", metavar="FOLDER", help="the auto-memory folder, if not Claude's own")
    m.add_argument(
        "--forget",
        action="store_true",
        help="import: stop mirroring it and forget its memories (enyal restore undoes it)",
    )

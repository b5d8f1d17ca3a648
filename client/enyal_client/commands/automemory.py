"""`enyal automemory import|path [--project DIR] [--dir FOLDER] [--forget]`: Claude
Code's auto memory of a project, mirrored as Enyal memories beside it, never instead.

Claude Code keeps it in `<config>/projects/<project path, each character not a letter
or digit as '-'>/memory/` (`<config>`: $CLAUDE_CONFIG_DIR, else ~/.claude; the
`autoMemoryDirectory` of ~/.claude/settings.json instead when set), the project being
the repository's main worktree, so every worktree shares it. `import` hands that folder
to the daemon's `index` with `auto_memory_of` (the daemon reads it, a memory per topic
file section, typed from its front matter; docs/PROTOCOL.md, index): a second run
changes only what Claude changed, a topic file deleted is forgotten, and the folder is
watched as any indexed one (index.watch). Enyal never writes into it: only `enyal
export --format claude-memory --to DIR` does, when told to.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Context, Registry, Result
from .indexing import FLAGS, index_text

LONGEST_NAME = 200  # Claude Code cuts a longer folder name and adds a hash of the path
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def project_of(folder: str) -> Path:
    """The project Claude Code keys its auto memory by: the git repository holding
    `folder` (its main worktree, for a linked one), else the folder itself."""
    start = Path(folder).absolute()
    for d in (start, *start.parents):
        git = d / ".git"
        if git.is_dir():
            return d
        if git.is_file():  # a linked worktree: .git says where its git dir is
            return _main_worktree(git) or d
    return start


def _main_worktree(git_file: Path) -> Path | None:
    try:
        first = git_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = (git_file.parent / first.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    common_dir = (gitdir / common).resolve()
    return common_dir.parent if common_dir.name == ".git" else None


def config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def memory_dir(project: Path) -> Path:
    """Where Claude Code keeps `project`'s auto memory."""
    configured = _configured_dir()
    if configured is not None:
        return configured
    projects = config_dir() / "projects"
    name = _NOT_ALNUM.sub("-", str(project))
    if len(name) > LONGEST_NAME:  # its hash of the path is Claude Code's: find the folder
        found = sorted(projects.glob(f"{name[:LONGEST_NAME]}-*"))
        if len(found) == 1:
            return found[0] / "memory"
    return projects / name / "memory"


def _configured_dir() -> Path | None:
    try:
        settings = json.loads((config_dir() / "settings.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    value = settings.get("autoMemoryDirectory") if isinstance(settings, dict) else None
    return Path(value).expanduser() if isinstance(value, str) and value else None


def _target(a: Args) -> tuple[Path, Path]:
    project = project_of(a.project or os.getcwd())
    return project, Path(a.dir).absolute() if a.dir else memory_dir(project)


def cmd_automemory(ctx: Context, a: Args) -> Result:
    project, folder = _target(a)
    if a.action == "path":
        return {"project": str(project), "folder": str(folder)}, str(folder)
    return _import(ctx.connection(), a, project, folder)


def _params(folder: Path, project: Path, cwd: str) -> dict[str, object]:
    # Every .md of the folder: MEMORY.md and the topic files. A file naming no type
    # (MEMORY.md's own notes) is a fact.
    return {
        "paths": [str(folder)],
        "globs": ["*.md"],
        "content_type": "fact",
        "auto_memory_of": str(project),
        "cwd": cwd,
    }


def _import(c: Connection, a: Args, project: Path, folder: Path) -> Result:
    params = _params(folder, project, os.getcwd())
    if a.forget:
        params = {"paths": [str(folder)], "cwd": os.getcwd(), "forget": True}
    r = ct.call(c, "index", params, p.IndexResult, {**FLAGS, "auto_memory_of": "--project"})
    return r, f"Claude Code's auto memory of {project} ({folder})\n" + index_text(r, a.forget)


def follow(c: Connection, cwd: str) -> None:
    """Import again the auto memory Claude Code keeps for `cwd`'s project, if it keeps
    one: what the InstructionsLoaded hook does as a session starts (in the background),
    so the plugin follows Claude's notes without a command. Unchanged files cost a stat."""
    project = project_of(cwd)
    folder = memory_dir(project)
    if folder.is_dir():
        ct.call(c, "index", _params(folder, project, cwd), p.IndexResult)


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

"""Where Claude Code keeps a project's auto memory, and the `index` call that mirrors it:
shared by `enyal automemory` (commands/automemory.py) and the InstructionsLoaded hook
(hooks/answer.py), which imports it again as each session starts.

Claude Code keeps it in `<config>/projects/<project path, each character not a letter
or digit as '-'>/memory/` (`<config>`: $CLAUDE_CONFIG_DIR, else ~/.claude; the
`autoMemoryDirectory` of ~/.claude/settings.json instead when set), the project being
the repository's main worktree, so every worktree shares it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .projects import common_dir, git_dir, repository_top

LONGEST_NAME = 200  # Claude Code cuts a longer folder name and adds a hash of the path
# What `enyal export --format claude-memory` writes into the folder (the client's
# commands/claude_memory.py): topic files named with this prefix, and a block of pointers
# between these lines in MEMORY.md. The daemon's import of the folder leaves them out:
# they are Enyal's memories already, and read back they would each come twice.
ENYAL_TOPIC_PREFIX = "enyal-"
ENYAL_BEGIN = "<!-- enyal:begin (enyal export --format claude-memory replaces what is between) -->"
ENYAL_END = "<!-- enyal:end -->"


def outside_enyals_block(text: str) -> list[str]:
    """MEMORY.md's lines less the block an export wrote between ENYAL_BEGIN and ENYAL_END:
    what the export keeps of the file, and what the daemon mirrors as Claude's own."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.strip() == ENYAL_BEGIN:
            inside = True
        elif inside and line.strip() == ENYAL_END:
            inside = False
        elif not inside:
            out.append(line)
    return out


_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def project_of(folder: str) -> Path:
    """The project Claude Code keys its auto memory by: the git repository holding
    `folder` (its main worktree, for a linked one), else the folder itself."""
    start = Path(folder).absolute()
    top = repository_top(str(start))
    if top is None:
        return start
    return _main_worktree(top) or Path(top)


def _main_worktree(top: str) -> Path | None:
    """The main worktree of the linked worktree at `top`, None for any other: its `.git`
    file and `commondir` are read as project identity reads them (projects.py)."""
    gitdir = git_dir(top)
    if gitdir is None:
        return None
    shared = common_dir(gitdir)
    if shared == gitdir:  # no commondir: a main worktree, a submodule, a separate git dir
        return None
    main_git = Path(shared).resolve()
    return main_git.parent if main_git.name == ".git" else None


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


def index_params(folder: Path, project: Path, cwd: str) -> dict[str, object]:
    # Every .md of the folder: MEMORY.md and the topic files. A file naming no type
    # (MEMORY.md's own notes) is a fact.
    return {
        "paths": [str(folder)],
        "globs": ["*.md"],
        "content_type": "fact",
        "auto_memory_of": str(project),
        "cwd": cwd,
    }

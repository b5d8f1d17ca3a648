"""Scopes: which file, project and workspace a path belongs to.

A project is the nearest ancestor holding a project marker (.git first, then
pyproject.toml and the other build files); its workspace is the folder that
holds it. A path with no project above it is its own project, so an agent in
a scratch folder still gets memories scoped to that folder.

What an agent sees from a folder (its view) is its project's memories (and its
files'), its workspace's and global ones: never another project's unless it asks
for all of them. Two memories can contradict each other only if some place sees both.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from enyal_protocol.wire import ScopeLevel

from ..errors import BadPath, InvalidValue
from ..store.filters import View
from .scoring import SCOPE_WEIGHTS

PROJECT_MARKERS = (".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod", ".hg")


def absolute(path: str, cwd: str | None) -> str:
    if "\x00" in path:
        raise InvalidValue("a path must not contain NUL bytes")
    p = os.path.expanduser(path)
    if not os.path.isabs(p):
        if cwd is None:
            raise InvalidValue(f"relative path {path!r} needs the client's cwd")
        p = os.path.join(cwd, p)
    return fits(os.path.normpath(p))


# What a path may hold on this system (Linux: 4096 and 255 bytes), read once.
PATH_MAX = os.pathconf("/", "PC_PATH_MAX")
NAME_MAX = os.pathconf("/", "PC_NAME_MAX")


def fits(path: str) -> str:
    """`path` if the file system can hold it; else BadPath, before any call on it fails
    with ENAMETOOLONG deep inside a verb. The message does not repeat the path: it is
    the client's, and may be long or carry what it should not."""
    raw = os.fsencode(path)
    if len(raw) >= PATH_MAX:
        raise BadPath(f"path too long: {len(raw)} bytes, the file system holds {PATH_MAX - 1}")
    longest = max((len(part) for part in raw.split(b"/")), default=0)
    if longest > NAME_MAX:
        raise BadPath(
            f"path has a name too long: {longest} bytes, the file system holds {NAME_MAX}"
        )
    return path


def project_root(path: str) -> str:
    start = Path(path)
    here = start if start.is_dir() else start.parent
    for d in (here, *here.parents):
        # os.path.join and os.stat, not Path / and Path.exists: a recall from a cwd
        # checks ~25 markers, and pathlib's objects were ~6% of a recall's CPU (issue 30).
        folder = str(d)
        if any(_exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
    return str(here)


# What Path.exists takes for "not there" (anything else, e.g. a denied look, is raised).
_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in _MISSING:
            return False
        raise
    return True


def workspace_of(project: str) -> str:
    return str(Path(project).parent)


def filter_path(
    level: ScopeLevel | None, scope_path: str | None, cwd: str | None
) -> tuple[str | None, bool]:
    """What a search filter by scope matches on: (path, whether the path must match). A
    level alone resolves its path as remember would (project/workspace from cwd); a path
    alone matches entries stored at exactly it, at any level; global has no path."""
    if level is not None:
        return resolve_scope_path(level, scope_path, cwd), level != "global"
    if scope_path is not None:
        return absolute(scope_path, cwd), True
    return None, False


def resolve_scope_path(level: ScopeLevel, scope_path: str | None, cwd: str | None) -> str | None:
    """The scope_path an entry is stored (or filtered) under."""
    if level == "global":
        if scope_path is not None:
            raise InvalidValue("global scope takes no scope_path")
        return None
    if scope_path is not None:
        return absolute(scope_path, cwd)
    if level == "file":
        raise InvalidValue("file scope needs scope_path (the file)")
    if cwd is None:
        raise InvalidValue(f"{level} scope needs scope_path or the client's cwd")
    project = project_root(absolute(cwd, None))
    return project if level == "project" else workspace_of(project)


def chain(file_path: str, cwd: str | None) -> list[tuple[ScopeLevel, str | None, float]]:
    """file -> project -> workspace -> global, each with its weight."""
    f = absolute(file_path, cwd)
    project = project_root(f)
    return [
        ("file", f, SCOPE_WEIGHTS["file"]),
        ("project", project, SCOPE_WEIGHTS["project"]),
        ("workspace", workspace_of(project), SCOPE_WEIGHTS["workspace"]),
        ("global", None, SCOPE_WEIGHTS["global"]),
    ]


def view_from(cwd: str) -> View:
    """What an agent working in `cwd` sees: its project, its workspace, global."""
    project = project_root(absolute(cwd, None))
    return View(project, (workspace_of(project),))


def view_of(level: str, path: str | None) -> View | None:
    """Every memory some place sees together with one stored at (level, path): a global
    one is seen from everywhere (None: no limit); a workspace's from each project in it;
    a project's or a file's from its project only."""
    if path is None or level == "global":
        return None
    if level == "workspace":
        return View(path)
    project = path if level == "project" else project_root(path)
    return View(project, (workspace_of(project),))

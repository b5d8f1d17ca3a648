"""Scopes: which file, project and workspace a path belongs to, and how each is stored.

A project is the nearest ancestor holding a project marker (projects.py); its workspace
is the folder that holds it. A path with no project above it is its own project, so an
agent in a scratch folder still gets memories scoped to that folder.

A project and its files are stored by the project's key (projects.py: the repository's
normalised remote URL, else the root's path) and the path from its root, so a moved
checkout, a worktree or a clone on another machine finds them; a workspace is a folder
on this machine, stored as its path. A scope_path a client sends may be a path (made
absolute against its cwd, then placed) or a stored place (`git:...`, taken as it is).

What an agent sees from a folder (its view) is its project's memories (and its
files'), its workspace's and global ones: never another project's unless it asks
for all of them. Two memories can contradict each other only if some place sees both.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol

from enyal_protocol.projects import GIT_PREFIX, Project, marked, place, project_root
from enyal_protocol.wire import ScopeLevel

from ...errors import BadPath, InvalidValue
from ...store.filters import View
from . import project_cache
from .scoring import SCOPE_WEIGHTS

__all__ = ["Project", "place", "project_of", "project_root"]  # the resolver, for other services

_request = threading.local()


@contextmanager
def one_look() -> Iterator[None]:
    """Within it (one request, on its thread), each path's project is looked for once:
    identity.follow and the view of the same cwd both ask, and a look is ~30 stats up
    the folders (issue 30)."""
    outer: dict[str, Project] | None = getattr(_request, "projects", None)
    if outer is None:
        _request.projects = {}
    try:
        yield
    finally:
        if outer is None:
            _request.projects = None


def project_of(path: str) -> Project:
    """The project holding `path` (projects.project_of), looked for once per one_look,
    and a folder's walk up to it kept across requests while unchanged (project_cache)."""
    memo: dict[str, Project] | None = getattr(_request, "projects", None)
    if memo is None:
        return project_cache.project_of(path)
    found = memo.get(path)
    if found is None:
        found = memo[path] = project_cache.project_of(path)
    return found


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


def workspace_of(project: str) -> str:
    """The workspace of a project whose root is `project` (Project.workspace says it)."""
    return os.path.dirname(project.rstrip("/")) or "/"


def is_place(scope_path: str) -> bool:
    """Whether a scope_path is a stored place already, not a path to resolve."""
    return scope_path.startswith(GIT_PREFIX)


def placed(path: str, cwd: str | None) -> str:
    """A folder or file a client names, as entries at it and under it are stored: its
    place (a place sent as such is kept)."""
    return _stored("project", path, cwd)


def _stored(level: ScopeLevel, scope_path: str, cwd: str | None) -> str:
    if is_place(scope_path):
        if "\x00" in scope_path:
            raise InvalidValue("a path must not contain NUL bytes")
        return scope_path
    path = absolute(scope_path, cwd)
    return path if level == "workspace" else place(path)


def local_file(level: ScopeLevel, scope_path: str | None, cwd: str | None) -> str | None:
    """The file of a file scope as a path on this machine (None for a place sent as such:
    it names no file here)."""
    if level != "file" or scope_path is None or is_place(scope_path):
        return None
    return absolute(scope_path, cwd)


def filter_path(
    level: ScopeLevel | None, scope_path: str | None, cwd: str | None
) -> tuple[str | None, bool]:
    """What a search filter by scope matches on: (path, whether the path must match). A
    level alone resolves its path as remember would (project/workspace from cwd); a path
    alone matches entries stored at exactly its place, at any level; global has no path."""
    if level is not None:
        return resolve_scope_path(level, scope_path, cwd), level != "global"
    if scope_path is not None:
        return placed(scope_path, cwd), True
    return None, False


def resolve_scope_path(level: ScopeLevel, scope_path: str | None, cwd: str | None) -> str | None:
    """The scope_path an entry is stored (or filtered) under."""
    if level == "global":
        if scope_path is not None:
            raise InvalidValue("global scope takes no scope_path")
        return None
    if scope_path is not None:
        return _stored(level, scope_path, cwd)
    if level == "file":
        raise InvalidValue("file scope needs scope_path (the file)")
    if cwd is None:
        raise InvalidValue(f"{level} scope needs scope_path or the client's cwd")
    project = project_of(absolute(cwd, None))
    return project.key if level == "project" else project.workspace


def chain(file_path: str, cwd: str | None) -> list[tuple[ScopeLevel, str | None, float]]:
    """file -> project -> workspace -> global, each with its weight."""
    f = absolute(file_path, cwd)
    project = project_of(f)
    return [
        ("file", project.place(f), SCOPE_WEIGHTS["file"]),
        ("project", project.key, SCOPE_WEIGHTS["project"]),
        ("workspace", project.workspace, SCOPE_WEIGHTS["workspace"]),
        ("global", None, SCOPE_WEIGHTS["global"]),
    ]


class StoredPlaces(Protocol):
    """Where memories are stored (the index's scope groups): the folders, and a number
    that changes whenever they do."""

    @property
    def generation(self) -> int: ...

    def folders(self) -> list[str]: ...


def view_of_project(project: Project, places: StoredPlaces | None = None) -> View:
    """What an agent working in `project` sees: it, its files, its workspace, global;
    with `places`, not another project below its root (apart_below)."""
    return _apart(View(project.key, (project.workspace,)), places)


def view_from(cwd: str, places: StoredPlaces | None = None) -> View:
    """What an agent working in `cwd` sees: its project, its workspace, global. `places`:
    where memories are stored, so the view can leave out those of another project below
    this one's root (apart_below)."""
    where = absolute(cwd, None)
    project = project_of(where)
    if not os.path.isdir(where) and not marked(project.root):
        # A cwd not there (a worktree removed under a session; one stat: the usual cwd
        # is there) in no project: the walk fell back on the nearest folder that is (`/`
        # at worst), whose view would hold every project stored by its path. It sees its
        # own place instead.
        return View(where)
    return view_of_project(project, places)


def _apart(view: View, places: StoredPlaces | None) -> View:
    if places is None or not view.root.startswith("/"):
        return view
    key = (view.root, places.generation)
    now = time.monotonic()
    with _APART_LOCK:
        kept = _APART.get(key)
    if kept is None or now - kept[0] > APART_FOR_S:
        kept = (now, apart_below(view.root, places.folders()))
        with _APART_LOCK:
            if len(_APART) >= APART_KEPT:
                _APART.clear()
            _APART[key] = kept
    return View(view.root, view.also, kept[1]) if kept[1] else view


# apart_below's answers by (root, the places' generation), for APART_FOR_S: it stats the
# folders on the way to every place under the root (~20 ms for 2,000 places on the 2-core
# test machine), and a recall from one folder comes again and again. A repository made
# or removed below a root without a memory stored (which changes the generation) is seen
# that much later.
APART_FOR_S = 5.0
APART_KEPT = 256
_APART: dict[tuple[str, int], tuple[float, tuple[str, ...]]] = {}
_APART_LOCK = threading.Lock()


def apart_below(root: str, places: Iterable[str | None]) -> tuple[str, ...]:
    """The roots of other projects below `root`, a folder, among the folders on the way
    to the stored places under it (issue 24): a folder sees its subfolders' memories,
    not another project's. From a folder in no project (a home, /tmp/x) every folder
    holding a project marker below is another project; from a project, a git repository
    of its own below it (a nested clone, a submodule checked out without a remote): a
    package of the same repository with a marker of its own (a monorepo's) is the
    project's, as its key says when the repository has a remote. A root keyed by its
    remote (`git:...`) has no folders under it to look at: its places are keys."""
    if not root.startswith("/"):
        return ()
    prefix = root.rstrip("/") + "/"
    in_project = marked(root)
    found: dict[str, None] = {}  # in order: a set, and the view's key alike each time
    looked: set[str] = set()
    for path in sorted({p for p in places if p is not None and p.startswith(prefix)}):
        parts = path[len(prefix) :].split("/")
        for i in range(1, len(parts) + 1):
            folder = prefix + "/".join(parts[:i])
            if folder in looked:
                if folder in found:
                    break
                continue
            looked.add(folder)
            if os.path.exists(folder + "/.git") or (not in_project and marked(folder)):
                found[folder] = None
                break
    return tuple(found)


def view_around(
    level: ScopeLevel, scope_path: str | None, cwd: str | None, places: StoredPlaces | None = None
) -> View | None:
    """Every memory some place sees together with one stored at this scope (given as
    remember takes it): a global one is seen from everywhere (None: no limit); a
    workspace's from each project in it; a project's or a file's from its project only.
    A place sent as such (`git:...`) names no folder here: its project's alone."""
    if level == "global":
        return None
    stored = resolve_scope_path(level, scope_path, cwd)
    assert stored is not None  # only global has no path
    if level == "workspace":
        return View(stored)
    if scope_path is not None and is_place(scope_path):
        return View(stored)
    where = absolute(scope_path, cwd) if scope_path is not None else absolute(cwd or "/", None)
    return view_of_project(project_of(where), places)

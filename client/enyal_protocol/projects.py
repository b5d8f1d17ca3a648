"""Project identity: which project a path belongs to, said so another checkout of the same
repository (another path, a worktree, another machine) says it the same way.

A project's root is the nearest folder at or above the path holding a project marker
(.git first, then pyproject.toml and the other build files); a path with none above it
is its own project. Its key is:

- `git:<host>/<path>` when the git repository holding the root has a remote (`origin`,
  else the first by name), its URL normalised (normal_url); a project nested below the
  repository's top (a monorepo's package with its own pyproject.toml) adds its path
  from there: `git:github.com/org/mono/services/api`;
- else the root's absolute path, as every project was keyed before keys existed.

A file's place is its project's key, `/`, and its path from the root, so the same file
in two checkouts has one place. The git facts are read from the files git keeps (the
`.git` folder or, in a worktree or submodule, the `.git` file's `gitdir:` and the
worktree's `commondir`), never by running git: this runs on every request that names a
folder. The remote URL is read as git reads it, includes and `insteadOf` rules
of the user's and system's config too (git_config.py), and cached while those files
hold.

Shared (standard library only): the daemon places paths with it (service/rules/scopes.py, and
the migration that turned stored absolute paths into places, m016), and a client that
selects one project's memories (`enyal export --format markdown --project`) places its
folder the same way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import git_config

PROJECT_MARKERS = (".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod", ".hg")
GIT_PREFIX = "git:"


@dataclass(frozen=True)
class Project:
    key: str  # git:<host>/<path>[/<nested>] or the root's absolute path
    root: str  # the root's absolute path on this machine
    remote: str | None = None  # the URL the key came from, as git fetches (insteadOf applied)
    top: str | None = None  # the git working tree's top holding the root, if any

    @property
    def workspace(self) -> str:
        """The folder holding the project: a place on this machine, kept as a path."""
        return os.path.dirname(self.root.rstrip("/")) or "/"

    def place(self, path: str) -> str:
        """How `path` (absolute, at or under the root) is stored: the key, then its path
        from the root."""
        rel = os.path.relpath(path, self.root)
        if rel == ".":
            return self.key
        if rel == ".." or rel.startswith("../"):
            raise ValueError(f"{path} is not in the project at {self.root}")
        return self.key + "/" + rel


def within(place: str | None, key: str) -> bool:
    """Whether `place` (as stored) is the project or folder `key` itself or a file or
    folder in it."""
    return place is not None and (place == key or place.startswith(key.rstrip("/") + "/"))


def _exists(path: str) -> bool:
    # os.path.exists, not Path.exists: it says False for a name too long or holding a NUL
    # (a path from an old store or an import), where Path.exists raises.
    return os.path.exists(path)


def _upward(here: Path) -> list[tuple[str, str]]:
    """`here` and every folder above it, each as (itself, what a name in it starts with):
    the markers are joined as strings, as a pathlib join per marker cost every recall
    ~1 ms (issue 30)."""
    return [(d, d if d.endswith("/") else d + "/") for d in map(str, (here, *here.parents))]


def project_root(path: str) -> str:
    start = Path(path)
    here = start if os.path.isdir(start) else start.parent
    for d, inside in _upward(here):
        if _holds_marker(inside):
            return d
    return str(here)


def marked(root: str) -> bool:
    """Whether `root` holds a project marker: a project found, not the folder a walk that
    found none fell back on (a home, /tmp, `/` for a path not there)."""
    return _holds_marker(root if root.endswith("/") else root + "/")


def _holds_marker(inside: str) -> bool:
    """`inside`: a folder's path and its "/", as _upward gives it."""
    return any(_exists(inside + marker) for marker in PROJECT_MARKERS)


def project_of(path: str) -> Project:
    """The project holding `path` (absolute, normalised; need not exist)."""
    root = project_root(path)
    return project_at(root, repository_top(root))


def project_at(root: str, top: str | None) -> Project:
    """The project whose root is `root`, in the working tree at `top` (repository_top of
    the root): its key read from the remote now. What a cache of the folders' walk
    (the daemon's project_cache) still asks on every look."""
    if top is None:
        return Project(root, root)
    url = remote_url(top)
    if url is None:
        return Project(root, root, top=top)
    key = GIT_PREFIX + normal_url(url, top)
    rel = os.path.relpath(root, top)
    return Project(key if rel == "." else key + "/" + rel, root, url, top)


def repository_top(root: str) -> str | None:
    """The working tree's top at or above `root`: the nearest folder holding `.git`."""
    for d, inside in _upward(Path(root)):
        if _exists(inside + ".git"):
            return d
    return None


def git_dir(top: str) -> str | None:
    """The git directory of the working tree at `top`: `.git` itself, or where a `.git`
    file's `gitdir:` line points (a worktree, a submodule), relative to `top`."""
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8", errors="replace") as f:
            first = f.readline(4096)
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(top, first[len("gitdir:") :].strip()))


def common_dir(gitdir: str) -> str:
    """Where a git directory's shared parts (config, objects) live: a worktree's gitdir
    names it in `commondir` (relative to itself); any other gitdir is its own."""
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as f:
            common = f.readline(4096).strip()
    except OSError:
        return gitdir
    return os.path.normpath(os.path.join(gitdir, common)) if common else gitdir


def remote_url(top: str) -> str | None:
    """The URL of the remote of the working tree at `top`: `origin`'s, else the first
    remote's by name; None without one."""
    gitdir = git_dir(top)
    if gitdir is None:
        return None
    return _REMOTES.url(os.path.join(common_dir(gitdir), "config"), gitdir)


_REMOTES = git_config.RemoteCache()


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")
_SCP = re.compile(r"^(?:[^@/:]+@)?([^/:]+):(.*)$")


def normal_url(url: str, top: str) -> str:
    """`host/path` of a remote URL, the same for every way of writing one repository:
    scheme, user and port dropped, the host lower-cased, a trailing `.git` and slashes
    cut (https://u@GitHub.com/org/repo.git, git@github.com:org/repo and
    ssh://git@github.com:22/org/repo.git are all github.com/org/repo). The path keeps
    its case: only some hosts ignore it. A remote on this machine (a path, file://) is
    its absolute path, resolved from `top` as git does."""
    url = url.strip()
    m = _SCHEME.match(url)
    if m is not None and m.group(1).lower() != "file":
        rest = m.group(2)
        authority, _, path = rest.partition("/")
        host = authority.rsplit("@", 1)[-1]
        # The port goes too ([ipv6]:port keeps its brackets).
        host = host[: host.find("]") + 1] if host.startswith("[") else host.split(":", 1)[0]
        return _tidy(host.lower(), path)
    if m is not None:  # file://
        local = m.group(2)
        local = local[local.find("/") :] if not local.startswith("/") else local
        return _tidy("", os.path.normpath(local))
    s = _SCP.match(url)
    if s is not None and not os.path.isabs(url) and not url.startswith("."):
        return _tidy(s.group(1).lower(), s.group(2).lstrip("~"))
    return _tidy("", os.path.normpath(os.path.join(top, os.path.expanduser(url))))


def _tidy(host: str, path: str) -> str:
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1][: -len(".git")]
    parts = [p for p in parts if p]
    return host + "/" + "/".join(parts)


# What may follow the path in a file source_ref: a line (src/app.py:12, :12:4) or an
# anchor (README.md#install, app.py#L12). Kept in the stored ref, left out of the path.
_SUFFIX = re.compile(r"(#[^/]*|:\d+(?::\d+)?)$")


def split_ref(ref: str) -> tuple[str, str]:
    """(path, suffix) of a file source_ref."""
    m = _SUFFIX.search(ref)
    if m is None or m.start() == 0:
        return ref, ""
    return ref[: m.start()], ref[m.start() :]


def place(path: str) -> str:
    """How an absolute path is stored: its project's key and its path from the root."""
    return project_of(path).place(path)


def place_ref(ref: str) -> str:
    """A file source_ref whose path is absolute, as stored: its path's place, the line or
    anchor after it kept. Any other ref as it is."""
    path, suffix = split_ref(ref)
    return place(path) + suffix if os.path.isabs(path) else ref

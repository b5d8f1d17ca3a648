"""The project of a folder, remembered across requests (issue 30).

Finding a folder's project walks up from it asking each folder above for every project
marker (projects.project_root), then for `.git` up to the working tree's top: six stats
a level, ~25 for an agent a few folders below a repository, ~60 outside any project, on
every request that sends a cwd. What that walk saw is all in the folders it went
through: a marker or `.git` added, removed or renamed in, a folder moved, replaced or
made unreadable, each changes the status-change time (ctime) of a folder on the way, or
leaves its path naming another folder (device, inode). So the walk's answer (root and
top) is kept per folder with the (device, inode, ctime) of each folder from it up to the
top (or `/`), and a later look re-stats only those: one stat a level instead of six.
The remote is not kept here: projects.project_at reads it on every look, through the
config cache it has (mtime and size), so a changed remote is seen as before.

A folder changed within RACY_NS before the walk is not trusted: file systems stamp
times from a clock that ticks every few milliseconds, and a change in the same tick as
the look would leave the ctime as it was (git's "racy" entries). Such an answer is not
kept; a later look walks again. Only a folder (an agent's cwd) is kept; a file's path,
or one not there in a folder that is, is its folder's. A path in no folder that is there
(a worktree removed under a session, a cwd sent from another machine) is kept from the
nearest folder above it that is: those below it hold no marker, and none can appear
there without changing that folder (its first missing child created).

A marker that is a symbolic link (pyproject.toml -> ../shared/pyproject.toml) is a
marker while its target is there, and the target may appear or vanish elsewhere without
changing any folder on the way: the walk also keeps, for each marker name that is a link
in those folders, what its target was (device, inode, ctime, or missing), and a later
look stats those targets too (none, in the usual checkout).
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from enyal_protocol import projects
from enyal_protocol.projects import Project

from . import clock

SIZE = 256  # folders kept, the least recently looked at dropped first
RACY_NS = 50_000_000  # 5 ticks of a 100 Hz clock: a change this recent may not show yet

_Seen = tuple[int, int, int]  # a folder's (device, inode, ctime_ns)


@dataclass(frozen=True)
class _Walk:
    root: str
    top: str | None
    folders: tuple[tuple[str, _Seen], ...]  # the folder looked at first, then up
    links: tuple[tuple[str, _Seen | None], ...] = ()  # marker links there: their targets


def _seen(st: os.stat_result) -> _Seen:
    return (st.st_dev, st.st_ino, st.st_ctime_ns)


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._walks: OrderedDict[str, _Walk] = OrderedDict()
        self.hits = 0  # looks answered from a kept walk: what the tests count

    def project_of(self, path: str) -> Project:
        try:
            here: os.stat_result | None = os.stat(path)
        except OSError:
            here = None
        if here is None or not stat.S_ISDIR(here.st_mode):
            # A file's project, or that of a name not there yet, is its folder's: the walk
            # starts at the folder holding it (projects.project_root). So a tool's file
            # (PreToolUse, recall_by_scope) is answered from its folder's kept walk.
            folder = os.path.dirname(path)
            if folder != path and os.path.isdir(folder):
                return self.project_of(folder)
            above = _nearest_folder(folder) if here is None else None
            if above is None:
                return projects.project_of(path)
            return self._kept(path, *above)
        return self._kept(path, path, here)

    def _kept(self, path: str, start: str, here: os.stat_result) -> Project:
        """`path`'s project from its kept walk if every folder from `start` (the path
        itself, or the nearest folder above it that is there) up is as the walk saw it;
        `here`: start's stat."""
        with self._lock:
            walk = self._walks.get(path)
        if walk is not None and _holds(walk, here):
            with self._lock:
                self.hits += 1
                if path in self._walks:
                    self._walks.move_to_end(path)
            return projects.project_at(walk.root, walk.top)
        return self._walk(path, start)

    def _walk(self, path: str, start: str) -> Project:
        # The folders are stat-ed before the walk: a change after it then shows as a
        # ctime that moved, never as one recorded after the change.
        now = clock.file_time_ns()
        seen: list[tuple[str, _Seen]] = []
        for d in map(str, (Path(start), *Path(start).parents)):
            try:
                st = os.stat(d)
            except OSError:
                return projects.project_of(path)
            seen.append((d, _seen(st)))
        links = [link for d, _ in seen for link in _links_in(d)]  # before the walk, as above
        root = projects.project_root(path)
        top = projects.repository_top(root)
        last = next((i for i, (d, _) in enumerate(seen) if d == top), len(seen) - 1)
        folders = tuple(seen[: last + 1])
        kept = {d for d, _ in folders}
        marker_links = tuple((at, t) for at, t in links if os.path.dirname(at) in kept)
        times = [s[2] for _, s in folders] + [t[2] for _, t in marker_links if t is not None]
        if all(now - t > RACY_NS for t in times):
            with self._lock:
                self._walks[path] = _Walk(root, top, folders, marker_links)
                self._walks.move_to_end(path)
                while len(self._walks) > SIZE:
                    self._walks.popitem(last=False)
        return projects.project_at(root, top)


def _nearest_folder(path: str) -> tuple[str, os.stat_result] | None:
    """The nearest folder at or above `path` that is there, and its stat (None: `path`
    is not absolute, or no folder above it can be read)."""
    if not os.path.isabs(path):
        return None
    while True:
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None:
            return (path, st) if stat.S_ISDIR(st.st_mode) else None
        up = os.path.dirname(path)
        if up == path:
            return None
        path = up


def _links_in(folder: str) -> list[tuple[str, _Seen | None]]:
    """The project markers in `folder` that are symbolic links, with what each leads to
    (None: nothing, a dangling link, which is no marker)."""
    out: list[tuple[str, _Seen | None]] = []
    for marker in projects.PROJECT_MARKERS:
        at = os.path.join(folder, marker)
        try:
            if not stat.S_ISLNK(os.lstat(at).st_mode):
                continue
        except OSError:
            continue
        out.append((at, _target(at)))
    return out


def _target(link: str) -> _Seen | None:
    try:
        return _seen(os.stat(link))
    except OSError:
        return None


def _holds(walk: _Walk, here: os.stat_result) -> bool:
    """Whether every folder the walk went through is still the one it saw, unchanged."""
    if _seen(here) != walk.folders[0][1]:
        return False
    for d, was in walk.folders[1:]:
        try:
            if _seen(os.stat(d)) != was:
                return False
        except OSError:
            return False
    return all(_target(link) == was for link, was in walk.links)


CACHE = _Cache()


def project_of(path: str) -> Project:
    """projects.project_of(path), the folders' walk kept while they are unchanged."""
    return CACHE.project_of(path)

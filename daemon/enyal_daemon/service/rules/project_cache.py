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
kept; a later look walks again. Only a folder (an agent's cwd) is kept; a file's path
or one not there is walked every time.

What it does not see, as it stats folders and not the markers in them: a marker that
is a symbolic link whose target appears or vanishes elsewhere.
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


def _seen(st: os.stat_result) -> _Seen:
    return (st.st_dev, st.st_ino, st.st_ctime_ns)


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._walks: OrderedDict[str, _Walk] = OrderedDict()
        self.hits = 0  # looks answered from a kept walk: what the tests count

    def project_of(self, path: str) -> Project:
        try:
            here = os.stat(path)
        except OSError:
            return projects.project_of(path)
        if not stat.S_ISDIR(here.st_mode):
            return projects.project_of(path)
        with self._lock:
            walk = self._walks.get(path)
        if walk is not None and _holds(walk, here):
            with self._lock:
                self.hits += 1
                if path in self._walks:
                    self._walks.move_to_end(path)
            return projects.project_at(walk.root, walk.top)
        return self._walk(path)

    def _walk(self, path: str) -> Project:
        # The folders are stat-ed before the walk: a change after it then shows as a
        # ctime that moved, never as one recorded after the change.
        now = clock.file_time_ns()
        seen: list[tuple[str, _Seen]] = []
        for d in map(str, (Path(path), *Path(path).parents)):
            try:
                st = os.stat(d)
            except OSError:
                return projects.project_of(path)
            seen.append((d, _seen(st)))
        root = projects.project_root(path)
        top = projects.repository_top(root)
        last = next((i for i, (d, _) in enumerate(seen) if d == top), len(seen) - 1)
        folders = tuple(seen[: last + 1])
        if all(now - s[2] > RACY_NS for _, s in folders):
            with self._lock:
                self._walks[path] = _Walk(root, top, folders)
                self._walks.move_to_end(path)
                while len(self._walks) > SIZE:
                    self._walks.popitem(last=False)
        return projects.project_at(root, top)


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
    return True


CACHE = _Cache()


def project_of(path: str) -> Project:
    """projects.project_of(path), the folders' walk kept while they are unchanged."""
    return CACHE.project_of(path)

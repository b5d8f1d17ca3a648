"""A folder's project walk kept across requests (issue 30, service/rules/project_cache.py):
a repeated look from the same folder stats fewer times, and every change the walk would
see (a checkout renamed into its place, a marker added or removed, a remote changed, a
repository made or replaced) gives the answer a fresh walk gives. Real folders, real git;
the oracle is projects.project_of, the walk the cache stands in for."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.service.rules import project_cache
from enyal_protocol import projects
from test_identity import git


def settled(path: Path) -> None:
    """Wait out the file-system clock's granularity after the last change to the folders
    from `path` up: the cache does not trust a folder changed within RACY_NS of a look
    (at most 50 ms here; an agent's cwd is always older than that)."""
    newest = max(os.stat(d).st_ctime_ns for d in (path, *path.parents))
    left = newest + project_cache.RACY_NS - time.time_ns()
    if left >= 0:
        time.sleep(left / 1e9 + 0.001)


def kept(
    cwd: Path, stats: Callable[[], int] = lambda: 0, there: Path | None = None
) -> tuple[projects.Project, int]:
    """Look from `cwd` until its walk is kept, then once more from the kept walk, which
    must say what a fresh walk says; and the stats that look made. A few tries: another
    process may change a folder above (/tmp) between the wait and the look. `there`: the
    folder the walk starts from, when `cwd` is not there (cwd itself otherwise)."""
    for _ in range(5):
        settled(there or cwd)
        project_cache.project_of(str(cwd))
        hits, before = project_cache.CACHE.hits, stats()
        found = project_cache.project_of(str(cwd))
        made = stats() - before
        if project_cache.CACHE.hits == hits + 1:
            assert found == projects.project_of(str(cwd))
            return found, made
    raise AssertionError(f"the walk from {cwd} was never kept")


def fresh(cwd: Path) -> projects.Project:
    """The cache's answer after a change, which must be a fresh walk's."""
    found = project_cache.project_of(str(cwd))
    assert found == projects.project_of(str(cwd))
    return found


@pytest.fixture
def world(tmp_path: Path) -> Path:
    origin = tmp_path / "srv" / "app.git"
    origin.mkdir(parents=True)
    git("init", "-q", "--bare", str(origin))
    git("clone", "-q", str(origin), str(tmp_path / "a"))
    (tmp_path / "a" / "pkg" / "sub").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def stats(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], int]]:
    """The os.stat calls made (os.path.exists and isdir are os.stat underneath)."""
    real = os.stat
    calls = [0]

    def counting(*args: Any, **kwargs: Any) -> os.stat_result:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    yield lambda: calls[0]


def test_a_repeated_look_stats_fewer_times(world: Path, stats: Callable[[], int]) -> None:
    deep = world / "out" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    for cwd in (world / "a" / "pkg" / "sub", deep):
        before = stats()
        projects.project_of(str(cwd))
        walk = stats() - before
        cached = kept(cwd, stats)[1]
        # One stat per folder from the cwd up to the top (or /) against six a level.
        assert cached < walk, (cwd, cached, walk)
        top = projects.project_of(str(cwd)).top
        assert cached <= len(Path(cwd).parents) + 1 + (3 if top else 0), (cwd, cached)


def test_a_files_project_is_its_folders_kept_walk(world: Path, stats: Callable[[], int]) -> None:
    """A tool's file (PreToolUse's recall_by_scope asks the project of a file) is answered
    from its folder's kept walk, a file there and one not written yet alike, with what a
    fresh walk from the file says; a name in no folder is walked (at its first look: the
    next test keeps it)."""
    folder = world / "a" / "pkg" / "sub"
    there = folder / "billing.py"
    there.write_text("x = 1\n")
    kept(folder)
    for path in (there, folder / "not_yet.py"):
        hits, before = project_cache.CACHE.hits, stats()
        found = project_cache.project_of(str(path))
        made = stats() - before
        assert project_cache.CACHE.hits == hits + 1, path
        assert found == projects.project_of(str(path))
        before = stats()
        projects.project_of(str(path))
        assert made < stats() - before, path
    nowhere = folder / "gone" / "x.py"
    hits = project_cache.CACHE.hits
    assert project_cache.project_of(str(nowhere)) == projects.project_of(str(nowhere))
    assert project_cache.CACHE.hits == hits


def test_a_path_in_no_folder_is_kept_from_the_nearest_folder_there(
    world: Path, stats: Callable[[], int]
) -> None:
    """A cwd that is not there (a worktree removed under a session; the bench's cwds, of
    another machine) was walked on every request, six stats a level of it and above: now
    its walk is kept from the nearest folder above it that is there, and a folder made on
    its way (with a marker) or that folder removed is seen."""
    base = world / "a" / "pkg"
    cwd = base / "gone" / "deeper"
    found, made = kept(cwd, stats, there=base)
    assert found.root == str(world / "a")
    before = stats()
    projects.project_of(str(cwd))
    assert made < stats() - before
    (base / "gone").mkdir()
    (base / "gone" / "pyproject.toml").write_text("")
    assert fresh(cwd).root == str(base / "gone")
    shutil.rmtree(base)  # now the nearest folder there is the checkout's top
    assert fresh(cwd).root == str(world / "a")


def test_a_marker_added_or_removed_below_the_root_is_seen(world: Path) -> None:
    cwd = world / "a" / "pkg" / "sub"
    assert kept(cwd)[0].root == str(world / "a")
    (world / "a" / "pkg" / "pyproject.toml").write_text("")
    nested = fresh(cwd)
    assert nested.root == str(world / "a" / "pkg")
    assert nested.key.endswith("/app/pkg")
    kept(cwd)
    (world / "a" / "pkg" / "pyproject.toml").unlink()
    assert fresh(cwd).root == str(world / "a")


def test_a_changed_remote_is_seen(world: Path) -> None:
    cwd = world / "a" / "pkg"
    assert kept(cwd)[0].key.endswith("/srv/app")
    git("remote", "set-url", "origin", "https://example.com/org/moved.git", cwd=world / "a")
    assert fresh(cwd).key == "git:example.com/org/moved"


def test_another_checkout_renamed_into_the_folders_place_is_seen(world: Path) -> None:
    plain = world / "plain"
    (plain / "pkg" / "sub").mkdir(parents=True)
    cwd = world / "a" / "pkg" / "sub"
    assert kept(cwd)[0].key.startswith("git:")
    (world / "a").rename(world / "gone")
    plain.rename(world / "a")  # the same path now holds folders of no project
    assert fresh(cwd) == projects.Project(str(cwd), str(cwd))


def test_a_symlinked_markers_target_appearing_or_vanishing_is_seen(world: Path) -> None:
    """A marker that is a link to a file elsewhere: its target made or removed changes no
    folder on the walk's way, yet makes or unmakes the project (os.path.exists follows
    the link)."""
    cwd = world / "linked" / "x"
    cwd.mkdir(parents=True)
    elsewhere = world / "elsewhere"
    elsewhere.mkdir()
    (world / "linked" / "pyproject.toml").symlink_to(elsewhere / "pyproject.toml")
    assert kept(cwd)[0].root == str(cwd)  # a dangling link is no marker
    (elsewhere / "pyproject.toml").write_text("")
    assert fresh(cwd).root == str(world / "linked")
    settled(elsewhere / "pyproject.toml")  # a target changed just now is not trusted either
    kept(cwd)
    (elsewhere / "pyproject.toml").unlink()
    assert fresh(cwd).root == str(cwd)


def test_a_repository_made_above_a_plain_folder_is_seen(world: Path) -> None:
    cwd = world / "plain" / "x" / "y"
    cwd.mkdir(parents=True)
    outside = kept(cwd)[0]
    assert outside.top is None and outside.root == str(cwd)
    git("init", "-q", str(world / "plain"))
    inside = fresh(cwd)
    assert inside.top == str(world / "plain") and inside.root == str(world / "plain")


def test_a_checkout_replaced_by_a_new_clone_is_seen(world: Path) -> None:
    # Another repository whose pkg/ is a project of its own (a monorepo's package).
    other = world / "srv" / "other.git"
    git("init", "-q", "--bare", str(other))
    seed = world / "seed"
    git("clone", "-q", str(other), str(seed))
    (seed / "pkg" / "sub").mkdir(parents=True)
    (seed / "pkg" / "pyproject.toml").write_text("")
    (seed / "pkg" / "sub" / "keep").write_text("")
    git("add", "-A", cwd=seed)
    git("commit", "-qm", "pkg", cwd=seed)
    git("push", "-q", "origin", "HEAD", cwd=seed)
    cwd = world / "a" / "pkg" / "sub"
    assert kept(cwd)[0].key.endswith("/srv/app")
    shutil.rmtree(world / "a")
    git("clone", "-q", str(other), str(world / "a"))
    new = fresh(cwd)
    assert new.root == str(world / "a" / "pkg") and new.key.endswith("/srv/other/pkg")


def test_a_folder_changed_just_now_is_walked_again(tmp_path: Path) -> None:
    """A walk right after a change is not kept: the change's tick may hide the next."""
    for i in range(5):
        d = tmp_path / f"new{i}"
        d.mkdir()
        project_cache.project_of(str(d))
        if time.time_ns() - os.stat(d).st_ctime_ns < project_cache.RACY_NS:
            assert str(d) not in project_cache.CACHE._walks
            return
    raise AssertionError("this machine never looked within RACY_NS of a mkdir")


def test_the_cache_is_bounded(tmp_path: Path) -> None:
    # The folders are in a repository at tmp_path, so every walk stops there: a walk up
    # to / would depend on /tmp, which other processes change all the time, and a walk
    # through a folder changed just now is not kept (not a bug: a marker may have come
    # with the change), so the test would keep fewer than SIZE + 1 walks now and then.
    git("init", "-q", str(tmp_path))
    folders = [tmp_path / f"f{i}" for i in range(project_cache.SIZE + 1)]
    for f in folders:
        f.mkdir()
    settled(folders[-1])  # the newest of them, and the repository above
    for f in folders:
        project_cache.project_of(str(f))
    held = project_cache.CACHE._walks
    assert projects.project_of(str(folders[0])).top == str(tmp_path)
    # Every walk was kept, and the first one dropped for the last: SIZE held, no more.
    assert list(held) == [str(f) for f in folders[1:]]

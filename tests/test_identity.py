"""Project identity (issue 27): a project is its repository, keyed by its remote's
normalised URL (else its root's path), and its memories and their files are stored by
that key and the path from the root. Real git (a bare repository and clones in tmp
folders, `git` run as a user runs it), one real daemon for the module, the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from daemon_support import RunningDaemon, export_all, isolated_env, open_db, running
from enyal_client.transport import RpcError
from enyal_daemon.store import migrations
from enyal_protocol import projects
from enyal_protocol.wire import INVALID_VALUE
from test_nvim import LIVE_AFTER, run_nvim, stale_note


def git(*args: str, cwd: Path | None = None) -> str:
    """git as a user runs it, but blind to this machine's own git config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    base = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    base += ["-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"]
    done = subprocess.run(
        [*base, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@dataclass
class World:
    root: Path
    origin: Path  # the bare repository every clone's origin is
    a: Path  # a clone
    b: Path  # another clone of it, at another path
    wt: Path  # a worktree of a
    lone: Path  # a repository with no remote

    def clone(self, name: str) -> Path:
        git("clone", "-q", str(self.origin), str(self.root / name))
        return self.root / name


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("git")
    origin = root / "srv" / "app.git"
    origin.mkdir(parents=True)
    git("init", "-q", "--bare", str(origin))
    seed = root / "seed"
    git("clone", "-q", str(origin), str(seed))
    (seed / "src").mkdir()
    (seed / "src" / "app.py").write_text("print('app')\n")
    (seed / "svc" / "api").mkdir(parents=True)
    (seed / "svc" / "api" / "pyproject.toml").write_text("[project]\nname = 'api'\n")
    (seed / "svc" / "web").mkdir(parents=True)
    (seed / "svc" / "web" / "package.json").write_text("{}\n")
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "seed", cwd=seed)
    git("push", "-q", "origin", "HEAD", cwd=seed)
    w = World(root, origin, root / "a", root / "elsewhere" / "b", root / "wt", root / "lone")
    git("clone", "-q", str(origin), str(w.a))
    git("clone", "-q", str(origin), str(w.b))
    git("worktree", "add", "-q", "-b", "feature", str(w.wt), cwd=w.a)
    git("init", "-q", str(w.lone))
    return w


@pytest.fixture(scope="module")
def host(world: World) -> Path:
    """A clone of the app holding another repository (lib) as a submodule."""
    lib = world.origin.with_name("lib.git")
    git("init", "-q", "--bare", str(lib))
    seed = world.clone("libseed")
    (seed / "README").write_text("lib\n")
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "lib", cwd=seed)
    git("push", "-q", str(lib), "HEAD:main", cwd=seed)
    host = world.clone("host")
    git("submodule", "add", "-q", str(lib), "vendor/lib", cwd=host)
    return host


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("identity") / "home") as daemon:
        yield daemon
        assert "Traceback" not in daemon.log.text(), daemon.log.text()


def remember(d: RunningDaemon, text: str, cwd: Path, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = d.call("remember", {"content": text, "cwd": str(cwd), **extra})["entry"]
    return entry


def seen_from(d: RunningDaemon, cwd: Path, query: str = "memory") -> set[str]:
    """The ids recall returns to an agent working in `cwd` (its view: no scope asked)."""
    hits = d.call("recall", {"query": query, "cwd": str(cwd), "limit": 100})["results"]
    return {h["id"] for h in hits}


def own_repository(clone: Path) -> None:
    """Point a clone at a remote of its own: a project no other test shares."""
    url = f"https://example.org/own/{clone.name}.git"
    git("remote", "set-url", "origin", url, cwd=clone)


def key_of(origin: Path) -> str:
    return "git:" + str(origin.with_suffix(""))


# --- the resolver, on real repositories ---------------------------------------------------


def test_every_way_of_writing_a_remote_names_one_repository() -> None:
    forms = [
        "https://github.com/Org/Repo.git",
        "https://user@GitHub.COM/Org/Repo",
        "https://user:ghp_secret@github.com/Org/Repo.git",  # a token never reaches the key
        "http://github.com:443/Org/Repo.git/",
        "git@github.com:Org/Repo.git",
        "github.com:Org/Repo",
        "ssh://git@github.com/Org/Repo.git",
        "ssh://git@github.com:22/Org/Repo",
        "git://github.com/Org/Repo.git",
    ]
    assert {projects.normal_url(u, "/x") for u in forms} == {"github.com/Org/Repo"}
    # The path keeps its case (only some hosts ignore it); another repository differs.
    assert projects.normal_url("git@github.com:org/repo.git", "/x") == "github.com/org/repo"
    assert projects.normal_url("git@gitlab.com:Org/Repo.git", "/x") == "gitlab.com/Org/Repo"
    # A remote on this machine is its absolute path, a relative one resolved from the top.
    assert projects.normal_url("file:///srv/app.git", "/x") == "/srv/app"
    assert projects.normal_url("../srv/app.git", "/x/top") == "/x/srv/app"


def test_a_folder_is_looked_at_once_a_request_and_afresh_by_the_next(tmp_path: Path) -> None:
    """Within one request (scopes.one_look) the cwd's project is found once, for
    identity.follow and the view alike; the next request looks again."""
    from enyal_daemon.service.rules import scopes

    folder = tmp_path / "app" / "src"
    folder.mkdir(parents=True)
    with scopes.one_look():
        first = scopes.project_of(str(folder))
        (tmp_path / "app" / "pyproject.toml").write_text("")
        assert scopes.project_of(str(folder)) is first
    assert first.root == str(folder)  # no marker above it then: its own project
    assert scopes.project_of(str(folder)).root == str(tmp_path / "app")


def test_a_clone_a_worktree_and_a_subfolder_share_the_key(world: World) -> None:
    key = key_of(world.origin)
    for where in (world.a, world.b, world.wt, world.a / "src", world.wt / "src" / "app.py"):
        assert projects.project_of(str(where)).key == key, where
    assert projects.project_of(str(world.b / "src" / "app.py")).root == str(world.b)
    assert projects.project_of(str(world.b / "src" / "app.py")).place(
        str(world.b / "src" / "app.py")
    ) == (key + "/src/app.py")
    # No remote: the root's path, as before keys.
    assert projects.project_of(str(world.lone)).key == str(world.lone)


def test_nested_projects_and_submodules(world: World, host: Path) -> None:
    key = key_of(world.origin)
    # A monorepo's package with a marker of its own: the repository's key and its path.
    assert projects.project_of(str(world.b / "svc" / "api" / "x.py")).key == key + "/svc/api"
    assert projects.project_of(str(world.b / "svc" / "web")).key == key + "/svc/web"
    # A submodule has its own remote, so its own key, in every checkout holding it.
    sub = host / "vendor" / "lib"
    assert (sub / ".git").is_file()  # a gitdir: file, into host/.git/modules
    assert projects.project_of(str(sub / "README")).key == key_of(world.origin.with_name("lib.git"))
    assert projects.project_of(str(host)).key == key


def test_several_remotes_origin_else_the_first_by_name(world: World) -> None:
    repo = world.root / "many"
    git("init", "-q", str(repo))
    git("remote", "add", "zeta", "git@example.org:z/zeta.git", cwd=repo)
    git("remote", "add", "upstream", "https://example.org/u/up.git", cwd=repo)
    assert projects.project_of(str(repo)).key == "git:example.org/u/up"
    git("remote", "add", "origin", "https://example.org/o/main.git", cwd=repo)
    assert projects.project_of(str(repo)).key == "git:example.org/o/main"


# --- through the daemon --------------------------------------------------------------------


def test_a_checkout_at_another_path_and_a_worktree_see_the_projects_memories(
    d: RunningDaemon, world: World
) -> None:
    """The issue's test: what is remembered in one clone is the project's, wherever the
    project is checked out; a repository without the remote does not see it."""
    tag = uuid.uuid4().hex[:8]
    project = remember(d, f"memory {tag}: the app's config lives in settings.toml", world.a)
    file = remember(
        d,
        f"memory {tag}: app.py must stay importable without side effects",
        world.a,
        scope="file",
        scope_path="src/app.py",
        source_type="file",
        source_ref="src/app.py:1",
    )
    key = key_of(world.origin)
    assert project["scope_path"] == key
    assert file["scope_path"] == key + "/src/app.py"
    assert file["source_ref"] == key + "/src/app.py:1"
    ids = {project["id"], file["id"]}
    for where in (world.b, world.wt, world.b / "src"):
        assert ids <= seen_from(d, where, f"memory {tag}"), where
    assert not ids & seen_from(d, world.lone, f"memory {tag}")
    # A file of another checkout: its file memory first, by the file -> global chain.
    hits = d.call(
        "recall_by_scope",
        {"query": f"memory {tag} app.py", "file_path": str(world.b / "src" / "app.py")},
    )["results"]
    assert hits[0]["id"] == file["id"]
    # A listing by the file's path in the other checkout finds it; so does the CLI there.
    listed = d.call("list", {"scope": "file", "scope_path": "src/app.py", "cwd": str(world.wt)})[
        "entries"
    ]
    assert [e["id"] for e in listed] == [file["id"]]
    r = run_cli(
        "recall", f"memory {tag}", "--all", "--json", cwd=world.b, env=isolated_env(d.paths.home)
    )
    assert r.code == 0, r.err
    assert ids <= {h["id"] for h in r.json()["results"]}


def test_a_place_is_taken_as_sent_and_a_bad_one_refused(d: RunningDaemon, world: World) -> None:
    """A client may name a scope by the place an answer showed it (no folder needed); one
    with a NUL is refused as a path is, and changes nothing."""
    tag = uuid.uuid4().hex[:8]
    key = key_of(world.origin)
    stored = remember(d, f"memory {tag}: named by its place", world.lone, scope_path=key)
    assert stored["scope_path"] == key
    listed = d.call("list", {"scope_path": key, "limit": 1000})["entries"]
    assert stored["id"] in {e["id"] for e in listed}
    before = len(export_all(d.call))
    with pytest.raises(RpcError) as info:
        d.call("remember", {"content": f"memory {tag}: bad", "scope_path": key + "/a\x00b"})
    assert info.value.code == INVALID_VALUE
    assert len(export_all(d.call)) == before
    assert d.proc.alive()


def test_a_moved_checkout_keeps_its_memories(d: RunningDaemon, world: World) -> None:
    """Its memories, and the files they cite: checked where the checkout is now."""
    clone = world.clone(f"mover-{uuid.uuid4().hex[:6]}")
    tag = uuid.uuid4().hex[:8]
    stored = remember(d, f"memory {tag}: deploys go through the staging branch", clone)
    cites = remember(
        d,
        f"memory {tag}: app.py prints its name",
        clone,
        source_type="file",
        source_ref="src/app.py:1",
    )
    moved = world.root / "moved" / clone.name
    moved.parent.mkdir(exist_ok=True)
    shutil.move(clone, moved)
    assert {stored["id"], cites["id"]} <= seen_from(d, moved, f"memory {tag}")

    def flags() -> dict[str, Any]:
        hits = d.call("recall", {"query": f"memory {tag} app.py", "cwd": str(moved)})["results"]
        hit = next(h for h in hits if h["id"] == cites["id"])
        stale = {e["id"] for e in d.call("review", {"kind": "stale"})["stale"]}
        return {
            "missing": hit.get("source_missing", False),
            "changed": hit.get("source_changed", False),
            "stale": cites["id"] in stale,
        }

    assert flags() == {"missing": False, "changed": False, "stale": False}
    (moved / "src" / "app.py").write_text("print('changed')\n")
    assert flags() == {"missing": False, "changed": True, "stale": True}
    d.call("confirm", {"id": cites["id"]})  # checked against the file where it is now
    assert flags() == {"missing": False, "changed": False, "stale": False}


def test_nested_projects_see_their_own_and_the_monorepo_sees_them_all(
    d: RunningDaemon, world: World
) -> None:
    tag = uuid.uuid4().hex[:8]
    api = remember(d, f"memory {tag}: the api service pins pydantic 2", world.a / "svc" / "api")
    web = remember(d, f"memory {tag}: the web app builds with vite", world.a / "svc" / "web")
    top = remember(d, f"memory {tag}: the monorepo releases every Tuesday", world.a)
    assert api["scope_path"] == key_of(world.origin) + "/svc/api"
    # From the package (in another checkout): its own, not its sibling's, not the top's.
    from_api = seen_from(d, world.b / "svc" / "api", f"memory {tag}")
    assert api["id"] in from_api
    assert not {web["id"], top["id"]} & from_api
    # From the repository's top: everything under it, as a folder sees its subfolders.
    assert {api["id"], web["id"], top["id"]} <= seen_from(d, world.b, f"memory {tag}")


def test_a_working_folder_not_there_sees_no_project_under_its_parents(
    d: RunningDaemon, tmp_path: Path
) -> None:
    """A hook's cwd that no longer exists (a worktree removed while the session runs):
    the walk up from it found no project and fell back to the nearest folder there, `/`
    for /no/such/dir, whose view holds every project stored by its path. It sees its
    own place and global memories, no project's."""
    tag = uuid.uuid4().hex[:8]
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    kept = remember(d, f"memory {tag}: the app's staging database is Postgres 15", app)
    everywhere = remember(d, f"memory {tag}: answer in English", app, scope="global")
    gone = tmp_path / "removed-worktree"  # never made: under tmp_path, in no project
    for cwd in (gone, Path(f"/no-such-dir-{tag}")):
        seen = seen_from(d, cwd, f"memory {tag}")
        assert kept["id"] not in seen, f"another project's memory seen from {cwd}"
        assert everywhere["id"] in seen
    # A folder gone inside a project still there is that project's.
    assert kept["id"] in seen_from(d, app / "src" / "gone", f"memory {tag}")


def test_a_submodules_memories_are_its_own(d: RunningDaemon, host: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    sub = remember(d, f"memory {tag}: lib keeps a stable C ABI", host / "vendor" / "lib")
    outer = remember(d, f"memory {tag}: host vendors lib as a submodule", host)
    assert outer["id"] not in seen_from(d, host / "vendor" / "lib", f"memory {tag}")
    assert sub["id"] not in seen_from(d, host, f"memory {tag}")


def test_when_the_remote_changes_the_memories_follow(d: RunningDaemon, world: World) -> None:
    """The one checkout of its repository this daemon knows: the repository moved."""
    tag = uuid.uuid4().hex[:8]
    clone = world.clone(f"renamed-{tag}")
    git("remote", "set-url", "origin", f"git@example.org:team/app-{tag}.git", cwd=clone)
    stored = remember(d, f"memory {tag}: the repository moved hosts once", clone)
    other = remember(
        d, f"memory {tag}: app.py is the entry point", clone, scope="file", scope_path="src/app.py"
    )
    assert d.call("brief", {"cwd": str(clone)})["since"] is None
    git("remote", "set-url", "origin", f"https://example.org/team/renamed-{tag}", cwd=clone)
    assert {stored["id"], other["id"]} <= seen_from(d, clone, f"memory {tag}")
    assert d.call("brief", {"cwd": str(clone)})["since"] is not None  # briefed before
    now = {e["id"]: e for e in d.call("list", {"cwd": str(clone), "scope": "project"})["entries"]}
    assert now[stored["id"]]["scope_path"] == f"git:example.org/team/renamed-{tag}"
    got = d.call("get", {"id": other["id"]})
    assert got["scope_path"] == f"git:example.org/team/renamed-{tag}/src/app.py"
    # A first remote added to a repository keyed by its path: its memories follow too.
    repo = world.root / f"local-{uuid.uuid4().hex[:6]}"
    git("init", "-q", str(repo))
    local = remember(d, f"memory {tag}: started without a remote", repo)
    assert local["scope_path"] == str(repo)
    git("remote", "add", "origin", "https://example.org/team/fresh.git", cwd=repo)
    assert local["id"] in seen_from(d, repo, f"memory {tag}")


def test_a_marker_added_below_a_kept_walks_root_places_the_next_memory(
    d: RunningDaemon, world: World
) -> None:
    """The daemon keeps a folder's project walk across requests (project_cache, issue
    30); a marker added on the way up is seen by the very next request."""
    from test_project_cache import settled

    tag = uuid.uuid4().hex[:8]
    clone = world.clone(f"kept-{tag}")
    own_repository(clone)
    cwd = clone / "tools" / "gen"
    cwd.mkdir(parents=True)
    settled(cwd)  # old enough to be kept: the second request is answered from the walk
    key = f"git:example.org/own/{clone.name}"
    for n in range(2):
        assert remember(d, f"memory {tag}: generator {n}", cwd)["scope_path"] == key
    (clone / "tools" / "pyproject.toml").write_text("[project]\nname = 'tools'\n")
    assert remember(d, f"memory {tag}: tools is a package", cwd)["scope_path"] == key + "/tools"


def test_a_remote_changed_in_one_of_two_checkouts_leaves_the_other_its_memories(
    d: RunningDaemon, world: World
) -> None:
    """Two checkouts of one repository, one pointed at a fork: the memories stay with the
    one that keeps the key; the fork starts afresh. Once no checkout known keeps the old
    key (the other is pointed at the new remote too), they move."""
    tag = uuid.uuid4().hex[:8]
    keeps, forked = world.clone(f"keeps-{tag}"), world.clone(f"forked-{tag}")
    for clone in (keeps, forked):
        git("remote", "set-url", "origin", f"https://example.org/team/two-{tag}.git", cwd=clone)
    stored = remember(d, f"memory {tag}: both checkouts know this", keeps)
    assert stored["id"] in seen_from(d, forked, f"memory {tag}")
    git("remote", "set-url", "origin", f"https://example.org/me/fork-{tag}.git", cwd=forked)
    assert stored["id"] not in seen_from(d, forked, f"memory {tag}")
    assert stored["id"] in seen_from(d, keeps, f"memory {tag}")
    assert d.call("get", {"id": stored["id"]})["scope_path"] == f"git:example.org/team/two-{tag}"
    git("remote", "set-url", "origin", f"https://example.org/me/fork-{tag}.git", cwd=keeps)
    assert stored["id"] in seen_from(d, keeps, f"memory {tag}")
    assert stored["id"] in seen_from(d, forked, f"memory {tag}")
    assert d.call("get", {"id": stored["id"]})["scope_path"] == f"git:example.org/me/fork-{tag}"


def test_export_and_import_carry_the_project_to_another_checkout(
    d: RunningDaemon, world: World, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    stored = remember(d, f"memory {tag}: exported with its project", world.a)
    out = tmp_path / "export.jsonl"
    r = run_cli("export", str(out), env=isolated_env(d.paths.home))
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    mine = [x for x in lines if x.get("id") == stored["id"]]
    assert mine and mine[0]["scope_path"] == key_of(world.origin)
    # Another machine: another store, the project checked out at another path.
    elsewhere = world.clone(f"machine2-{uuid.uuid4().hex[:6]}")
    home2 = tmp_path / "home2"
    with running(home2) as d2:
        r = run_cli("import", str(out), "--json", env=isolated_env(home2))
        assert r.code == 0, r.err
        assert stored["id"] in seen_from(d2, elsewhere, f"memory {tag}")
        # A line from before keys (absolute paths of a checkout here) is placed on import.
        old = {
            "content": f"memory {tag}: written when paths were absolute",
            "content_type": "fact",
            "scope_level": "file",
            "scope_path": str(elsewhere / "src" / "app.py"),
            "source_type": "file",
            "source_ref": str(elsewhere / "src" / "app.py") + ":3",
        }
        got = d2.call("import", {"lines": [json.dumps(old)]})["lines"][0]
        assert got["status"] == "stored", got
        entry = d2.call("get", {"id": got["id"]})
        assert entry["scope_path"] == key_of(world.origin) + "/src/app.py"
        assert entry["source_ref"] == key_of(world.origin) + "/src/app.py:3"
        assert "Traceback" not in d2.log.text(), d2.log.text()


def test_a_markdown_export_of_one_checkout_holds_the_projects_memories(
    d: RunningDaemon, world: World, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    remember(d, f"memory {tag}: the project's own", world.a)
    remember(d, f"memory {tag}: the file's own", world.a, scope="file", scope_path="src/app.py")
    remember(d, f"memory {tag}: another project's", world.lone)
    out = tmp_path / "b.md"
    r = run_cli(
        "export", str(out), "--format", "markdown", "--project", str(world.b),
        env=isolated_env(d.paths.home),
    )  # fmt: skip
    assert r.code == 0, r.err
    text = out.read_text()
    assert f"memory {tag}: the project's own" in text
    assert f"memory {tag}: the file's own" in text
    assert f"memory {tag}: another project's" not in text


def test_neovim_refreshes_a_files_memories_named_by_their_place(
    d: RunningDaemon, world: World, tmp_path: Path
) -> None:
    """The plugin's live refresh finds the buffer of a change's file by the place the
    file's memories showed it (tests/nvim/live_refresh.lua, as test_nvim runs it)."""
    clone = world.clone(f"nvim-{uuid.uuid4().hex[:6]}")
    own_repository(clone)  # the app's file memories of the other tests are not this one's
    file = str(clone / "src" / "app.py")
    remember(d, "app.py must stay import-light", clone, scope="file", scope_path=file)
    r = run_nvim(
        "live_refresh", tmp_path, cwd=clone, ENYAL_TEST_FILE=file, ENYAL_HOME=str(d.paths.home)
    )
    assert r["out"]["listening"] is True, r["out"]
    assert r["out"]["cli_status"] == 0, r["out"]["cli"]
    assert r["out"]["buffer_events"] == 0
    assert r["out"]["virt_after"] == LIVE_AFTER


def test_neovims_enyal_file_marks_stale_memories_named_by_their_place(
    d: RunningDaemon, world: World, tmp_path: Path
) -> None:
    """:EnyalFile marks the file's stale memories (review's, matched by the file's place),
    as tests/nvim/file_memories.lua runs it in test_nvim."""
    clone = world.clone(f"nvimfile-{uuid.uuid4().hex[:6]}")
    own_repository(clone)  # the app's file memories of the other tests are not this one's
    file = str(clone / "src" / "app.py")
    remember(d, "app.py must stay import-light", clone, scope="file", scope_path=file)
    assert d.call("import", {"lines": [stale_note(file)]})["stored"] == 1
    r = run_nvim(
        "file_memories", tmp_path, cwd=clone, ENYAL_TEST_FILE=file, ENYAL_HOME=str(d.paths.home)
    )
    labels = r["selects"][0]["labels"]
    assert len(labels) == 3  # the file's three
    stale = [x for x in labels if x.endswith(" stale")]
    assert len(stale) == 1 and stale[0].startswith("Old note: this module used to call"), labels


def test_the_migration_places_a_stores_absolute_paths(world: World, tmp_path: Path) -> None:
    """A store as m014 left it (absolute paths) opened by this release: each project and
    file path becomes its place, nothing else moves, nothing is lost, and another
    checkout sees the memories."""
    home = tmp_path / "home"
    gone = tmp_path / "gone" / "proj"  # a folder since deleted: kept as its path
    with running(home) as daemon:
        ids = {
            "project": remember(daemon, "memory: the project's own", world.a)["id"],
            "file": remember(
                daemon,
                "memory: the file's own",
                world.a,
                scope="file",
                scope_path="src/app.py",
                source_type="file",
                source_ref="src/app.py#L2",
            )["id"],
            "workspace": remember(daemon, "memory: the workspace's", world.a, scope="workspace")[
                "id"
            ],
            "lone": remember(daemon, "memory: no remote", world.lone)["id"],
            "gone": remember(daemon, "memory: a folder since gone", tmp_path, scope="project")[
                "id"
            ],
        }
        daemon.call("brief", {"cwd": str(world.a)})
        db = daemon.paths.db
    # Back to what m014 stored: absolute paths, no roots table, schema 14.
    conn = open_db(db)
    a = str(world.a)
    with conn:
        conn.execute(
            "UPDATE context_entries SET scope_path = ? || substr(scope_path, ?) "
            "WHERE scope_path LIKE 'git:%'",
            (a, len(key_of(world.origin)) + 1),
        )
        conn.execute(
            "UPDATE context_entries SET source_ref = ? WHERE id = ?",
            (a + "/src/app.py#L2", ids["file"]),
        )
        conn.execute(
            "UPDATE context_entries SET scope_path = ? WHERE id = ?", (str(gone), ids["gone"])
        )
        conn.execute(
            "UPDATE enyal_meta SET key = ? WHERE key = ?",
            ("last_brief:" + a, "last_brief:" + key_of(world.origin)),
        )
        conn.execute("DROP TABLE context_project_roots")
        before_keys = migrations.MIGRATIONS.index(migrations.m016_project_keys)
        conn.execute("DELETE FROM schema_version WHERE version > ?", (before_keys,))
    before = conn.execute("SELECT id, content, scope_level FROM context_entries").fetchall()
    conn.close()
    with running(home) as daemon:
        conn = open_db(db)
        rows = {
            r[0]: r[1:]
            for r in conn.execute("SELECT id, scope_path, source_ref FROM context_entries")
        }
        after = conn.execute("SELECT id, content, scope_level FROM context_entries").fetchall()
        known = dict(conn.execute("SELECT root, key FROM context_project_roots").fetchall())
        briefed = [k for (k,) in conn.execute("SELECT key FROM enyal_meta") if "brief" in k]
        conn.close()
        key = key_of(world.origin)
        assert sorted(after) == sorted(before)
        assert rows[ids["project"]][0] == key
        assert rows[ids["file"]] == (key + "/src/app.py", key + "/src/app.py#L2")
        assert rows[ids["workspace"]][0] == str(world.a.parent)
        assert rows[ids["lone"]][0] == str(world.lone)
        assert rows[ids["gone"]][0] == str(gone)
        assert known[a] == key  # root + path from it gives the absolute path back
        assert briefed == ["last_brief:" + key]
        seen = seen_from(daemon, world.b, "memory")
        assert {ids["project"], ids["file"]} <= seen
        assert "Traceback" not in daemon.log.text(), daemon.log.text()


# --- the remote as git reads it: includes and insteadOf (no git run on the hot path) --------


def _git_as_configured(env: dict[str, str], *args: str, cwd: Path) -> str:
    """git itself, reading the same config files as the resolver: the oracle."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    """A user's git config of the test's own (no system one), for the resolver in this
    process and for git alike."""
    cfg = tmp_path / "gitconfig"
    cfg.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_GLOBAL": str(cfg), "GIT_CONFIG_NOSYSTEM": "1"}
    return cfg, env


def test_insteadof_and_included_rules_name_the_repository_git_fetches(
    tmp_path: Path, user_config: tuple[Path, dict[str, str]]
) -> None:
    """Two clones of one repository, one by a shorthand the user's config rewrites
    (`url.<base>.insteadOf`, in a file included only for repositories under work/), are
    one project, as `git remote get-url` says; the rule does not reach a repository
    outside work/, and a rule added later is seen without a restart."""
    cfg, env = user_config
    rules = tmp_path / "work.inc"
    rules.write_text('[url "git@github.com:"]\n\tinsteadOf = work:\n')
    work = tmp_path / "work"
    cfg.write_text(f'[includeIf "gitdir:{work}/"]\n\tpath = work.inc\n')
    short = work / "app"
    plain = tmp_path / "other" / "app"
    for repo, url in ((short, "work:org/app.git"), (plain, "https://github.com/org/app")):
        repo.mkdir(parents=True)
        _git_as_configured(env, "init", "-q", str(repo), cwd=tmp_path)
        _git_as_configured(env, "remote", "add", "origin", url, cwd=repo)
    assert _git_as_configured(env, "remote", "get-url", "origin", cwd=short) == (
        "git@github.com:org/app.git"
    )
    key = "git:github.com/org/app"
    assert projects.project_of(str(short)).key == key
    assert projects.project_of(str(plain)).key == key
    # Outside work/ the shorthand is not rewritten, for git as for the key.
    stray = tmp_path / "stray"
    stray.mkdir()
    _git_as_configured(env, "init", "-q", str(stray), cwd=tmp_path)
    _git_as_configured(env, "remote", "add", "origin", "work:org/app.git", cwd=stray)
    assert _git_as_configured(env, "remote", "get-url", "origin", cwd=stray) == "work:org/app.git"
    assert projects.project_of(str(stray)).key == "git:work/org/app"
    # A condition naming the git directory itself.
    with cfg.open("a") as f:
        f.write(f'[includeIf "gitdir:{stray}/.git"]\n\tpath = work.inc\n')
    assert _git_as_configured(env, "remote", "get-url", "origin", cwd=stray) == (
        "git@github.com:org/app.git"
    )
    assert projects.project_of(str(stray)).key == key
    cfg.write_text(f'[includeIf "gitdir:{work}/"]\n\tpath = work.inc\n')
    assert projects.project_of(str(stray)).key == "git:work/org/app"
    # A rule for every repository, added now: the next look reads it (the config moved).
    with cfg.open("a") as f:
        f.write('[url "git@github.com:"]\n\tinsteadOf = work:\n')
    assert projects.project_of(str(stray)).key == key


def test_a_remote_from_an_included_file_and_the_longest_rewrite(
    tmp_path: Path, user_config: tuple[Path, dict[str, str]]
) -> None:
    cfg, env = user_config
    cfg.write_text(
        '[url "https://mirror.example/"]\n\tinsteadOf = https://\n'
        '[url "https://git.example.com/team/"]\n\tinsteadOf = https://github.com/team/\n'
    )
    repo = tmp_path / "inc"
    _git_as_configured(env, "init", "-q", str(repo), cwd=tmp_path)
    (repo / ".git" / "remote.inc").write_text(
        '[remote "origin"]\n\turl = https://github.com/team/tool.git\n'
    )
    with (repo / ".git" / "config").open("a") as f:
        f.write("[include]\n\tpath = remote.inc\n")
    got = _git_as_configured(env, "remote", "get-url", "origin", cwd=repo)
    assert got == "https://git.example.com/team/tool.git"  # the longest prefix wins
    assert projects.project_of(str(repo)).remote == got
    assert projects.project_of(str(repo)).key == "git:git.example.com/team/tool"


def test_an_include_on_a_branch_is_read_while_that_branch_is_checked_out(
    tmp_path: Path, user_config: tuple[Path, dict[str, str]]
) -> None:
    cfg, env = user_config
    (tmp_path / "release.inc").write_text('[url "https://github.com/"]\n\tinsteadOf = rel:\n')
    cfg.write_text('[includeIf "onbranch:release/"]\n\tpath = release.inc\n')
    repo = tmp_path / "branchy"
    _git_as_configured(env, "init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    _git_as_configured(env, "remote", "add", "origin", "rel:org/branchy", cwd=repo)
    assert projects.project_of(str(repo)).key == "git:rel/org/branchy"
    _git_as_configured(env, "checkout", "-q", "-b", "release/1.0", cwd=repo)
    got = _git_as_configured(env, "remote", "get-url", "origin", cwd=repo)
    assert got == "https://github.com/org/branchy"
    assert projects.project_of(str(repo)).key == "git:github.com/org/branchy"  # HEAD moved

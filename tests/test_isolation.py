"""Projects kept apart: an agent in a project sees its project's memories (and its files'),
its workspace's and global ones, and another project's only when it asks for every
project, in each client (CLI, prompt hook, MCP) and in the brief and conflict detection.
Driven through a real daemon, the real CLI and hook executables and the real MCP shim."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import pytest

from conftest import run_cli
from daemon_support import RunningDaemon, isolated_env
from test_hooks import env_of, hook
from test_mcp import shim


@dataclass
class Places:
    proj: Path
    proj2: Path  # a sibling: same workspace, its name starting with the other's


@pytest.fixture
def places(tmp_path: Path) -> Places:
    ws = tmp_path / "ws"
    for name in ("proj", "proj2"):
        (ws / name / ".git").mkdir(parents=True)
    return Places(ws / "proj", ws / "proj2")


def remember(d: RunningDaemon, text: str, cwd: Path, **extra: Any) -> str:
    return str(d.call("remember", {"content": text, "cwd": str(cwd), **extra})["id"])


def seed(d: RunningDaemon, at: Places) -> dict[str, str]:
    """The issue's two databases, and memories the project does see: its workspace's,
    a global one, and one of a file in it."""
    (at.proj / "db.py").write_text("")
    return {
        "postgres": remember(d, "The database is PostgreSQL 16", at.proj),
        "mysql": remember(d, "proj2: the database is MySQL 8", at.proj2),
        "workspace": remember(
            d, "Every database in this workspace is backed up nightly", at.proj, scope="workspace"
        ),
        "global": remember(
            d, "The user names database tables in snake_case", at.proj, scope="global"
        ),
        "file": remember(
            d, "db.py opens the database connection pool", at.proj, scope="file", scope_path="db.py"
        ),
    }


def test_cli_recall_sees_its_project_not_the_other(d: RunningDaemon, places: Places) -> None:
    ids = seed(d, places)
    env = isolated_env(d.paths.home)

    def recall(*flags: str, cwd: Path = places.proj) -> list[str]:
        r = run_cli("recall", "database engine", *flags, "--json", cwd=cwd, env=env)
        assert r.code == 0, r.err
        return [h["id"] for h in r.json()["results"]]

    assert recall()[0] == ids["postgres"]
    # Not even below the floors: proj2's memory is not there to be found from proj.
    seen = recall("--all")
    assert ids["mysql"] not in seen
    assert {ids["postgres"], ids["workspace"], ids["global"], ids["file"]} <= set(seen)
    assert ids["postgres"] not in recall("--all", cwd=places.proj2)
    assert ids["mysql"] in recall("--all", "--all-projects")
    batch = run_cli(
        "recall",
        "-q",
        "database engine",
        "-q",
        "MySQL",
        "--all",
        "--json",
        cwd=places.proj,
        env=env,
    )
    assert batch.code == 0, batch.err
    assert all(
        ids["mysql"] not in [h["id"] for h in one["results"]] for one in batch.json()["results"]
    )
    # The text output too: no other project's memory reaches the agent.
    plain = run_cli("recall", "database engine", cwd=places.proj, env=env)
    assert "PostgreSQL" in plain.out and "MySQL" not in plain.out
    wrong = run_cli("recall", "x", "--all-projects", "--scope", "global", cwd=places.proj, env=env)
    assert wrong.code == 2 and "--all-projects" in wrong.err


def test_every_project_asked_from_one_ranks_its_own_first(d: RunningDaemon, places: Places) -> None:
    """Issue 24 item 1's query with --all-projects: proj2's MySQL, the closer text, ranked
    over proj's own answer at full weight; from proj, its own comes first and the other
    still shows; from proj2, the other way round."""
    ids = seed(d, places)
    env = isolated_env(d.paths.home)

    def ranked(cwd: Path) -> list[dict[str, Any]]:
        r = run_cli("recall", "database engine", "--all-projects", "--json", cwd=cwd, env=env)
        assert r.code == 0, r.err
        return [h for h in r.json()["results"] if h["id"] in (ids["postgres"], ids["mysql"])]

    here, there = ranked(places.proj), ranked(places.proj2)
    assert [h["id"] for h in here] == [ids["postgres"], ids["mysql"]]
    assert [h["id"] for h in there] == [ids["mysql"], ids["postgres"]]
    # The same two memories, each scored lower where it is another project's.
    score = {(h["id"], "here"): h["score"] for h in here} | {
        (h["id"], "there"): h["score"] for h in there
    }
    assert score[ids["mysql"], "here"] < score[ids["mysql"], "there"]
    assert score[ids["postgres"], "there"] < score[ids["postgres"], "here"]
    # Asked from no place (no cwd), nothing is elsewhere: the unweighted order.
    bare = d.call("recall", {"query": "database engine", "min_confidence": 0.0})["results"]
    both = [h["id"] for h in bare if h["id"] in (ids["postgres"], ids["mysql"])]
    assert both == [ids["mysql"], ids["postgres"]]


def test_wire_scope_all_and_no_cwd_search_everything(d: RunningDaemon, places: Places) -> None:
    ids = seed(d, places)
    for params in ({"scope": "all", "cwd": str(places.proj)}, {}):
        found = d.call("recall", {"query": "database engine", "min_confidence": 0.0, **params})
        assert ids["mysql"] in [h["id"] for h in found["results"]], params


def test_prompt_hook_injects_only_this_projects_memories(
    d: RunningDaemon, places: Places, tmp_path: Path
) -> None:
    seed(d, places)
    prompt = {
        "session_id": "s1",
        "cwd": str(places.proj),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which database engine do we use?",
    }
    r = hook(env_of(d, tmp_path / "user"), "prompt-submit", prompt)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "PostgreSQL 16" in context and "MySQL" not in context


def test_mcp_recall_sees_its_project_unless_asked_for_all(
    places: Places, tmp_path: Path, autostarted: None
) -> None:
    import anyio

    async def body(log: TextIO) -> None:
        async with shim("auto", places.proj2, log) as s:
            await s.call("enyal_remember", {"content": "proj2: the database is MySQL 8"})
        async with shim("auto", places.proj, log) as s:
            await s.call("enyal_remember", {"content": "The database is PostgreSQL 16"})
            mine = await s.call("enyal_recall", {"query": "database engine"})
            assert [h["content"] for h in mine["results"]] == ["The database is PostgreSQL 16"]
            batch = await s.call("enyal_recall_batch", {"queries": ["database engine"]})
            assert [h["content"] for h in batch["results"][0]["results"]] == [
                "The database is PostgreSQL 16"
            ]
            every = await s.call("enyal_recall", {"query": "database engine", "scope": "all"})
            assert "proj2: the database is MySQL 8" in [h["content"] for h in every["results"]]

    with (tmp_path / "mcp.stderr").open("w+") as log:
        anyio.run(body, log)


def test_conflict_detection_stays_within_what_a_project_sees(
    d: RunningDaemon, places: Places
) -> None:
    remember(d, "Indent with tabs.", places.proj2, content_type="convention")
    ws_rule = remember(
        d, "Indent with tabs.", places.proj, content_type="convention", scope="workspace"
    )
    ask = {"content_type": "convention", "detect_conflicts": True, "suggest_supersedes": True}
    mine = d.call(
        "remember", {"content": "Never indent with tabs.", "cwd": str(places.proj), **ask}
    )
    # The workspace's rule holds in proj too: a real conflict; proj2's own rule is not one.
    assert [c["id"] for c in mine["conflicts"]] == [ws_rule]


def test_brief_reviews_no_conflict_with_another_project(d: RunningDaemon, places: Places) -> None:
    mine = remember(d, "Indent with spaces.", places.proj, content_type="convention")
    theirs = remember(d, "Indent with tabs.", places.proj2, content_type="convention")
    same = remember(d, "Indent with tabs in Makefiles.", places.proj, content_type="convention")
    d.call("link", {"source_id": theirs, "target_id": mine, "edge_type": "conflicts_with"})
    brief = d.call("brief", {"cwd": str(places.proj), "record": False})["markdown"]
    assert f"conflicting (convention) Indent with spaces. · `{mine[:8]}`" not in brief
    d.call("link", {"source_id": same, "target_id": mine, "edge_type": "conflicts_with"})
    brief = d.call("brief", {"cwd": str(places.proj), "record": False})["markdown"]
    assert f"conflicting (convention) Indent with spaces. · `{mine[:8]}`" in brief


def test_a_folder_in_no_project_sees_its_subfolders_but_no_project_below_it(
    d: RunningDaemon, places: Places, tmp_path: Path
) -> None:
    """Issue 24: an agent in a folder in no project (a home, /tmp/x) sees what was said
    in it and its plain subfolders, never the memories of a project below it (a git
    repository, a folder with a project marker) unless it asks for every project."""
    ids = seed(d, places)
    ws = places.proj.parent
    (ws / "notes" / "deeper").mkdir(parents=True)
    plain = remember(d, "Scratch notes: the database dump is in notes/", ws / "notes" / "deeper")
    (ws / "lib").mkdir()
    (ws / "lib" / "pyproject.toml").write_text("[project]\nname = 'lib'\n")
    marked = remember(d, "lib: the database driver is asyncpg", ws / "lib")
    here = remember(d, "The database backups of this folder are kept a week", ws)
    env = isolated_env(d.paths.home)
    for cwd in (ws, tmp_path):
        r = run_cli("recall", "database", "--all", "--json", cwd=cwd, env=env)
        assert r.code == 0, r.err
        seen = {h["id"] for h in r.json()["results"]}
        assert {plain, here} <= seen, cwd
        assert not {ids["postgres"], ids["mysql"], ids["file"], marked} & seen, cwd
        every = run_cli("recall", "database", "--all", "--all-projects", "--json", cwd=cwd, env=env)
        assert {ids["postgres"], ids["mysql"], marked} <= {h["id"] for h in every.json()["results"]}
    prompt = {
        "session_id": "s-outside",
        "cwd": str(ws),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which database engine and driver do we use?",
    }
    r = hook(env_of(d, tmp_path / "user"), "prompt-submit", prompt)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout).get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "PostgreSQL" not in context and "MySQL" not in context and "asyncpg" not in context
    # Nor can a project's memory contradict one said in a folder above its workspace (a
    # project does see its workspace's: that folder's memories are seen from both).
    svc = ws / "team" / "svc"
    (svc / ".git").mkdir(parents=True)
    ask = {"content_type": "convention", "detect_conflicts": True, "suggest_supersedes": True}
    remember(d, "Indent with tabs.", svc, content_type="convention")
    outside = d.call("remember", {"content": "Never indent with tabs.", "cwd": str(ws), **ask})
    assert outside["conflicts"] == []

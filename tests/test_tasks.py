"""Tasks through the real daemon, the CLI and the MCP shim; and m009's upgrade of a
database made by the schema before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import apsw
import pytest

from conftest import old_store, run_cli
from daemon_support import RunningDaemon, isolated_env
from enyal_client.transport import RpcError
from enyal_protocol import wire as p
from test_mcp import run, shim


def refused(d: RunningDaemon, method: str, params: dict[str, Any]) -> RpcError:
    with pytest.raises(RpcError) as info:
        d.call(method, params)
    return info.value


def test_tasks_through_the_daemon(d: RunningDaemon, project: Path) -> None:
    def add(text: str, **extra: Any) -> str:
        r = d.call("task_add", {"content": text, "cwd": str(project), **extra})
        assert r["action"] == "created"
        e = r["entry"]
        assert (e["content_type"], e["status"], e["scope_level"]) == ("task", "open", "project")
        assert e["scope_path"] == str(project)
        return str(r["id"])

    low = add("Tidy the changelog wording", priority=1)
    urgent = add("Fix the failing release build on arm64", priority=5, due="2026-03-01")
    soon = add("Write the migration guide for the new config", due="2026-02-01")
    later = add("Write the migration guide for the old plugins", due="2026-04-01")
    fact = d.call("remember", {"content": "Releases are cut on Tuesdays.", "cwd": str(project)})

    listed = d.call("task_list", {"cwd": str(project)})["tasks"]
    assert [t["id"] for t in listed] == [urgent, soon, later, low]
    assert d.call("task_update", {"id": soon, "status": "in_progress"})["previous"] == "open"
    d.call("task_update", {"id": later, "status": "blocked"})
    done = d.call("task_update", {"id": urgent, "status": "done"})
    assert done["status"] == "done" and done["changed"] is True
    again = d.call("task_update", {"id": urgent, "status": "done"})
    assert again["changed"] is False
    listed = d.call("task_list", {"cwd": str(project)})["tasks"]
    assert [t["id"] for t in listed] == [soon, later, low], "in progress, blocked, open"
    only_done = d.call("task_list", {"status": ["done"]})["tasks"]
    assert [t["id"] for t in only_done] == [urgent]

    # Each change is a version of its own, holding the status then; a repeat wrote none.
    history = d.call("history", {"id": urgent})["versions"]
    assert [(v["change_type"], v["status"]) for v in history] == [
        ("status", "done"),
        ("created", "open"),
    ]
    assert d.call("history", {"id": fact["id"]})["versions"][0]["status"] is None

    # Done tasks leave default recall; the task type, or include_done, brings them back.
    query = {"query": "fix the failing release build", "min_confidence": 0}
    assert urgent not in [h["id"] for h in d.call("recall", query)["results"]]
    typed = d.call("recall", {**query, "content_type": "task"})["results"]
    assert typed[0]["id"] == urgent
    flagged = d.call("recall", {**query, "include_done": True})["results"]
    assert flagged[0]["id"] == urgent
    by_file = {"query": query["query"], "file_path": str(project / "x.py"), "min_confidence": 0}
    assert urgent not in [h["id"] for h in d.call("recall_by_scope", by_file)["results"]]
    d.call("task_update", {"id": urgent, "status": "open"})
    assert d.call("recall", query)["results"][0]["id"] == urgent, "reopened: back in recall"

    # Two tasks that read alike are two tasks: consolidation leaves tasks alone.
    merged = d.call("consolidate", {"threshold": 0.8, "dry_run": False})
    assert merged["merged"] == 0
    assert d.call("stats")["by_type"]["task"] == 4

    # The same words as a fact are a task of their own; the same task twice is one.
    twin = d.call("task_add", {"content": "Releases are cut on Tuesdays.", "cwd": str(project)})
    assert twin["action"] == "created" and twin["id"] != fact["id"]
    same = d.call("task_add", {"content": "Tidy the changelog wording", "cwd": str(project)})
    assert same["action"] == "existing" and same["id"] == low


def test_bad_task_input_is_refused_and_changes_nothing(d: RunningDaemon, project: Path) -> None:
    made = d.call("task_add", {"content": "Ship it", "cwd": str(project)})["id"]
    fact = d.call("remember", {"content": "Shipping is automatic.", "cwd": str(project)})["id"]
    before = d.call("export", {"versions": True})
    cases: list[tuple[str, dict[str, Any], int]] = [
        ("task_add", {"content": "x", "due": "2026-02-30"}, p.INVALID_VALUE),
        ("task_add", {"content": "x", "due": "tomorrow"}, p.INVALID_PARAMS),
        ("task_add", {"content": "x", "priority": 9}, p.INVALID_PARAMS),
        ("task_add", {"content": ""}, p.INVALID_PARAMS),
        ("task_add", {"content": "x", "status": "done"}, p.INVALID_PARAMS),
        ("task_update", {"id": made, "status": "finished"}, p.INVALID_PARAMS),
        ("task_update", {"id": fact, "status": "done"}, p.INVALID_VALUE),
        ("task_update", {"id": "nope-nope", "status": "done"}, p.NOT_FOUND),
        ("task_list", {"status": ["someday"]}, p.INVALID_PARAMS),
        ("remember", {"content": "x", "content_type": "task"}, p.INVALID_PARAMS),
        ("update", {"id": made, "content_type": "fact"}, p.INVALID_VALUE),
    ]
    for method, params, code in cases:
        err = refused(
            d, method, {"cwd": str(project), **params} if method == "task_add" else params
        )
        assert err.code == code, (method, params, err.message)
    assert d.call("export", {"versions": True}) == before


def test_task_cli(d: RunningDaemon, project: Path) -> None:
    assert d.paths.home is not None
    env = isolated_env(d.paths.home)

    def cli(*args: str) -> Any:
        r = run_cli(*args, cwd=project, env=env)
        assert r.code == 0, r.err
        return r

    made = cli(
        "task",
        "add",
        "Port the scheduler to asyncio",
        "--due",
        "2026-05-01",
        "--priority",
        "4",
        "--tag",
        "core",
        "--json",
    ).json()
    tid = made["id"]
    assert made["entry"]["status"] == "open" and made["entry"]["written_by"] == "user"
    assert "Port the scheduler" in cli("task", "list").out
    for verb, status in [("start", "in_progress"), ("block", "blocked"), ("done", "done")]:
        moved = cli("task", verb, tid[:8], "--json").json()
        assert moved["status"] == status
    assert cli("task", "list").out.strip() == "no tasks"
    assert "[x]" in cli("task", "list", "--all").out
    assert cli("task", "reopen", tid[:8]).out.startswith("done -> open")
    history = cli("history", tid, "--json").json()["versions"]
    assert [v["status"] for v in history] == ["open", "done", "blocked", "in_progress", "open"]
    assert "-> done" in cli("history", tid).out
    bad = run_cli("task", "add", "x", "--priority", "7", cwd=project, env=env)
    assert bad.code == 2 and "--priority" in bad.err
    bad = run_cli("task", "add", "x", "--due", "2026-13-45", cwd=project, env=env)
    assert bad.code == 2 and "due" in bad.err
    bad = run_cli("task", "done", "0000000000", cwd=project, env=env)
    assert bad.code == 1 and "no entry" in bad.err


def test_task_tools(project: Path, tmp_path: Path, autostarted: None) -> None:
    with (tmp_path / "mcp.stderr").open("w+") as stderr:
        run(_task_tools, project, stderr)


async def _task_tools(project: Path, stderr: TextIO) -> None:
    async with shim("auto", project, stderr) as s:
        made = await s.call(
            "enyal_task_add", {"content": "Add retries to the fetcher", "priority": 4}
        )
        assert made["entry"]["written_by"] == "agent" and made["entry"]["scope_path"] == str(
            project
        )
        listed = await s.call("enyal_task_list", {})
        assert [t["id"] for t in listed["tasks"]] == [made["id"]]
        moved = await s.call("enyal_task_update", {"id": made["id"], "status": "done"})
        assert (moved["previous"], moved["status"]) == ("open", "done")
        assert (await s.call("enyal_task_list", {}))["tasks"] == []
        found = await s.call("enyal_recall", {"query": "retries fetcher", "content_type": "task"})
        assert found["results"][0]["status"] == "done"
        # A value outside the schema and a task the store refuses are both tool errors the
        # agent reads (MCP 2025-11-25 on, SEP-1303).
        bad = await s.client.call_tool("enyal_task_update", {"id": made["id"], "status": "x"})
        assert bad.is_error and "invalid arguments" in str(bad.content)
        fact = await s.call("enyal_remember", {"content": "The fetcher uses httpx."})
        wrong = await s.client.call_tool("enyal_task_update", {"id": fact["id"], "status": "done"})
        assert wrong.is_error and "not a task" in str(wrong.content)


def test_m009_upgrades_a_database_of_m008(home: Path, embedder: Any) -> None:
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.service.memory import memories, validity
    from enyal_daemon.service.session import tasks
    from enyal_daemon.store import migrations

    db = home / "enyal.db"
    conn = old_store(db, 8)
    with conn:
        conn.execute(
            "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
            "created_at, updated_at) VALUES ('old', 'Old convention.', 'h', 'convention', "
            "'global', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
        )
        conn.execute(
            "INSERT INTO context_vectors(rowid, embedding) VALUES (last_insert_rowid(), ?)",
            (embedder.embed("Old convention.").tobytes(),),
        )
        conn.execute(
            "INSERT INTO context_versions (entry_id, version, change_type, changed_at, content, "
            "content_type, confidence, tags, metadata, is_deprecated) VALUES ('old', 1, "
            "'created', '2026-01-01T00:00:00Z', 'Old convention.', 'convention', 1, '[]', "
            "'{}', 0)"
        )
        with pytest.raises(apsw.ConstraintError):  # the old schema knows no tasks
            conn.execute("UPDATE context_entries SET content_type = 'task' WHERE id = 'old'")
    conn.close()

    m = Engine(db, embedder)
    try:
        old = memories.get(m, p.GetParams(id="old"))
        assert (old.content_type, old.status, old.due) == ("convention", None, None)
        made = tasks.add(m, p.TaskAddParams(content="New task", scope="global"))
        tasks.update(m, p.TaskUpdateParams(id=made.id, status="blocked"))
        versions = validity.history(m, p.HistoryParams(id=made.id)).versions
        assert [(v.change_type, v.status) for v in versions] == [
            ("status", "blocked"),
            ("created", "open"),
        ]
    finally:
        m.close()
    check = apsw.Connection(str(db))
    assert [r[0] for r in check.execute("PRAGMA integrity_check")] == ["ok"]
    (version,) = check.execute("SELECT max(version) FROM schema_version").fetchone()
    assert version == len(migrations.MIGRATIONS)
    with pytest.raises(apsw.ConstraintError):  # widened, not dropped: still checked
        check.execute("UPDATE context_entries SET content_type = 'note' WHERE id = 'old'")
    check.close()

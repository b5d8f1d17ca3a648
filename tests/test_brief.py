"""The session brief through the real daemon, the CLI and the MCP shim (tool and prompt,
in both protocol eras): its sections, its budget by the real tokenizer, and "changed
since the last brief" across briefs."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp.shared.exceptions import MCPError
from tokenizers import Tokenizer

from conftest import run_cli, tokens
from daemon_support import RunningDaemon, isolated_env
from enyal_client.transport import RpcError
from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from test_mcp import MODES, run, shim

SECTIONS = [
    "## Open tasks",
    "## Conventions and decisions",
    "## Changed since the last brief",
    "## To review",
    "## Log",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def seed(d: RunningDaemon, project: Path) -> dict[str, str]:
    cwd = str(project)

    def remember(text: str, **extra: Any) -> str:
        return str(d.call("remember", {"content": text, "cwd": cwd, **extra})["id"])

    ids = {
        "ruff": remember("Lint with ruff, line length 100.", content_type="convention"),
        "typed": remember(
            "Every public function is typed; mypy --strict must pass.",
            content_type="convention",
            importance=5,
        ),
        "sqlite": remember("We chose SQLite over Postgres.", content_type="decision"),
        "pg": remember("We run Postgres 16 in production.", content_type="decision"),
        "pref": remember("The user wants terse commit messages.", content_type="preference"),
        "other": remember(
            "Use tabs in the other project.",
            content_type="convention",
            scope_path=str(project.parent / "elsewhere"),
        ),
    }
    d.call(
        "link", {"source_id": ids["sqlite"], "target_id": ids["pg"], "edge_type": "conflicts_with"}
    )
    ids["task"] = d.call(
        "task_add", {"content": "Port the CLI to Typer", "cwd": cwd, "priority": 4}
    )["id"]
    ids["gone"] = d.call("task_add", {"content": "Old finished chore", "cwd": cwd})["id"]
    d.call("task_update", {"id": ids["gone"], "status": "done"})
    yesterday = (datetime.now().astimezone() - timedelta(days=1)).date().isoformat()
    old = json.dumps(
        {
            "content": "The API returns XML.",
            "content_type": "fact",
            "scope_level": "project",
            "scope_path": cwd,
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
        }
    )
    past_log = json.dumps(
        {
            "content": f"Log {yesterday}\n- 17:02 Found the flaky test in test_io.py",
            "content_type": "log",
            "scope_level": "project",
            "scope_path": cwd,
            "metadata": {"log_date": yesterday},
        }
    )
    imported = d.call("import", {"lines": [old, past_log]})
    assert imported["stored"] == 2, imported
    ids["stale"] = imported["lines"][0]["id"]
    d.call("log_append", {"text": "Began the Typer port", "cwd": cwd})
    return ids


def test_brief_sections_order_and_changes(d: RunningDaemon, project: Path, tok: Tokenizer) -> None:
    ids = seed(d, project)
    first = d.call("brief", {"cwd": str(project / "src")})
    md = first["markdown"]
    assert first["project"] == str(project) and first["since"] is None
    assert [line for line in md.splitlines() if line.startswith("## ")] == SECTIONS
    assert "_First brief of this project._" in md
    assert first["used_tokens"] == tokens(tok, md) <= first["budget_tokens"] == 1500

    def section(text: str, title: str) -> str:
        return text.split(title, 1)[1].split("\n## ", 1)[0]

    tasks = section(md, "## Open tasks")
    assert "Port the CLI to Typer (p4)" in tasks and "Old finished chore" not in md
    knowledge = section(md, "## Conventions and decisions")
    assert knowledge.index("mypy --strict") < knowledge.index("Lint with ruff"), "importance"
    assert "terse commit" in knowledge and "tabs" not in md, "other projects stay out"
    review = section(md, "## To review")
    assert "conflicting (decision) We chose SQLite" in review
    assert "conflicting (decision) We run Postgres" in review
    assert "stale since 2020-01-01 (fact) The API returns XML." in review
    logged = section(md, "## Log")
    assert "yesterday 17:02 Found the flaky test" in logged and "Began the Typer port" in logged
    assert logged.index("yesterday") < logged.index("today")

    # Changes after the first brief are what the second one lists.
    new = d.call(
        "remember",
        {"content": "Tests run with pytest -x.", "content_type": "convention", "cwd": str(project)},
    )
    d.call("task_update", {"id": ids["task"], "status": "in_progress"})
    second = d.call("brief", {"path": str(project)})
    assert second["since"] == first["briefed_at"]
    changed = section(second["markdown"], "## Changed since the last brief")
    assert f"new (convention) Tests run with pytest -x. · `{new['id'][:8]}`" in changed
    assert "changed (task, in_progress) Port the CLI to Typer" in changed
    assert "Lint with ruff" not in changed, "unchanged since the first brief"
    assert "[~] Port the CLI to Typer" in section(second["markdown"], "## Open tasks")

    # Nothing changed since: no such section; a brief that is not recorded moves nothing.
    third = d.call("brief", {"cwd": str(project), "record": False})
    assert "## Changed since" not in third["markdown"] and third["since"] == second["briefed_at"]
    fourth = d.call("brief", {"cwd": str(project), "record": False})
    assert fourth["since"] == second["briefed_at"]
    # Deterministic: the same store gives the same brief (the time line aside).
    assert third["markdown"].splitlines()[2:] == fourth["markdown"].splitlines()[2:]


def test_a_teammates_edit_made_before_the_last_brief_but_pulled_after_it_is_listed(
    d: RunningDaemon, project: Path
) -> None:
    """ "Changed since the last brief" is what arrived in this store since, by when it
    arrived: a file pulled into `.enyal/` after a brief, though its author edited (or
    wrote) it before that brief, is listed; its `updated` stays the author's."""
    cwd = str(project)
    (project / mf.FOLDER).mkdir()
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    day_ago = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def pull(entry_id: str, content: str, created: str, updated: str) -> None:
        m = mf.MemoryFile(
            id=entry_id,
            content=content,
            content_type="convention",
            created=created,
            updated=updated,
        )
        (project / mf.FOLDER / mf.file_name(entry_id)).write_text(mf.render(m))
        d.call("share_sync", {"path": cwd})

    edited, added = str(uuid.uuid4()), str(uuid.uuid4())
    pull(edited, "Releases are cut on Mondays.", day_ago, day_ago)
    first = d.call("brief", {"cwd": cwd})
    # Both made by the teammate an hour before that brief; both reach this store after it.
    pull(edited, "Releases are cut on Thursdays.", day_ago, hour_ago)
    pull(added, "Changelogs are written by hand.", hour_ago, hour_ago)
    second = d.call("brief", {"cwd": cwd})
    assert second["since"] == first["briefed_at"]
    assert "## Changed since the last brief" in second["markdown"], second["markdown"]
    changed = second["markdown"].split("## Changed since the last brief", 1)[1]
    changed = changed.split("\n## ", 1)[0]
    assert "changed (convention) Releases are cut on Thursdays." in changed
    assert "new (convention) Changelogs are written by hand." in changed
    assert d.call("get", {"id": edited})["updated_at"].startswith(hour_ago[:19])
    third = d.call("brief", {"cwd": cwd, "record": False})
    assert "## Changed since" not in third["markdown"], "nothing arrived since the second"


@pytest.mark.parametrize("budget", [100, 160, 250, 400])
def test_brief_fits_its_budget(
    d: RunningDaemon, project: Path, tok: Tokenizer, budget: int
) -> None:
    seed(d, project)
    for i in range(30):
        d.call(
            "remember",
            {
                "content": f"Convention {i}: modules under src/part{i} keep their own fixtures "
                "in conftest.py and never import from another part's tests.",
                "content_type": "convention",
                "cwd": str(project),
            },
        )
    r = d.call("brief", {"cwd": str(project), "budget_tokens": budget, "record": False})
    assert r["used_tokens"] == tokens(tok, r["markdown"]) <= budget
    assert r["omitted"]["knowledge"] > 0
    assert sum(r["shown"].values()) + sum(r["omitted"].values()) >= 30
    if budget >= 250:  # room for each section's first items: none starves the others
        for title in ("## Open tasks", "## Conventions and decisions", "## To review"):
            assert title in r["markdown"]


def test_a_sessions_brief_records_what_it_lists_whole(d: RunningDaemon, project: Path) -> None:
    """`session_id` (a hook's SessionStart, one round trip): the memories listed whole
    are recorded as shown to the session, keyed as session_seen keys them; one cut to
    fit (` … [enyal get ID]`) is not; `reset` forgets what was shown first."""
    short = d.call(
        "remember",
        {
            "content": "Releases are tagged vX.Y.Z.",
            "content_type": "convention",
            "cwd": str(project),
        },
    )["id"][:8]
    long_text = "Long convention: " + " ".join(f"step{i} runs after step{i - 1}" for i in range(60))
    cut = d.call(
        "remember", {"content": long_text, "content_type": "convention", "cwd": str(project)}
    )["id"][:8]

    def seen(session: str) -> list[str]:
        asked = {"session_id": session, "keys": [short, cut], "record": False}
        return list(d.call("session_seen", asked)["seen"])

    r = d.call("brief", {"cwd": str(project), "record": False, "session_id": "s1"})
    assert f"[enyal get {cut}]" in r["markdown"] and f"`{short}`" in r["markdown"]
    assert seen("s1") == [short] and seen("s2") == []
    d.call("session_seen", {"session_id": "s1", "keys": [cut]})
    d.call("brief", {"cwd": str(project), "record": False, "session_id": "s1", "reset": True})
    assert seen("s1") == [short], "reset: what the session was shown before is forgotten"
    d.call("brief", {"cwd": str(project), "record": False})
    assert seen("s3") == [], "no session: nothing recorded"
    for bad in ("", "x" * 257, 5):
        with pytest.raises(RpcError) as info:
            d.call("brief", {"cwd": str(project), "session_id": bad})
        assert info.value.code == p.INVALID_PARAMS and "session_id" in info.value.message


def test_bad_briefs_are_refused(d: RunningDaemon, project: Path) -> None:
    for bad in (0, 99, p.MAX_BUDGET_TOKENS + 1, "big"):
        with pytest.raises(RpcError) as info:
            d.call("brief", {"cwd": str(project), "budget_tokens": bad})
        assert info.value.code == p.INVALID_PARAMS and "budget_tokens" in info.value.message
    with pytest.raises(RpcError) as info:
        d.call("brief", {})
    assert info.value.code == p.INVALID_VALUE
    with pytest.raises(RpcError) as info:
        d.call("brief", {"path": "relative/dir"})
    assert info.value.code == p.INVALID_VALUE


def test_brief_cli(d: RunningDaemon, project: Path, tok: Tokenizer) -> None:
    seed(d, project)
    assert d.paths.home is not None
    env = isolated_env(d.paths.home)
    r = run_cli("brief", "--path", str(project), "--budget-tokens", "300", env=env)
    assert r.code == 0, r.err
    assert r.out.startswith("# Enyal brief: proj") and tokens(tok, r.out.strip()) <= 300
    as_json = run_cli("brief", "--json", "--no-record", cwd=project / "src", env=env).json()
    assert as_json["project"] == str(project) and as_json["since"] is not None
    bad = run_cli("brief", "--budget-tokens", "5", cwd=project, env=env)
    assert bad.code == 2 and "--budget-tokens" in bad.err


@pytest.mark.parametrize("mode", MODES)
def test_brief_tool_and_prompt(
    mode: str, project: Path, tmp_path: Path, autostarted: None, tok: Tokenizer
) -> None:
    with (tmp_path / "mcp.stderr").open("w+") as stderr:
        run(_tool_and_prompt, mode, project, stderr, tok)


async def _tool_and_prompt(mode: str, project: Path, stderr: TextIO, tok: Tokenizer) -> None:
    async with shim(mode, project, stderr) as s:
        await s.call("enyal_task_add", {"content": "Review the brief prompt"})
        result = await s.client.call_tool("enyal_brief", {"budget_tokens": 400})
        assert not result.is_error
        (block,) = result.content
        assert block.type == "text" and block.text.startswith("# Enyal brief: proj")
        assert result.structured_content is not None
        assert result.structured_content["markdown"] == block.text
        assert "Review the brief prompt" in block.text

        listed = (await s.client.list_prompts()).prompts
        assert [pr.name for pr in listed] == ["enyal_brief"]
        assert [a.name for a in listed[0].arguments or []] == ["budget_tokens"]
        got = await s.client.get_prompt("enyal_brief", {"budget_tokens": "200"})
        (message,) = got.messages
        assert message.role == "user" and message.content.type == "text"
        text = message.content.text
        assert text.startswith("# Enyal brief: proj") and tokens(tok, text) <= 200
        assert "Review the brief prompt" in text
        for bad in ({"budget_tokens": "lots"}, {"budget_tokens": "5"}, {"other": "1"}):
            with pytest.raises(MCPError):
                await s.client.get_prompt("enyal_brief", bad)
        with pytest.raises(MCPError):
            await s.client.get_prompt("no_such_prompt", {})


def test_a_confirmed_memory_is_not_stale_and_leaves_room_for_others(
    d: RunningDaemon, project: Path
) -> None:
    """Stale is neither updated nor confirmed for 180 days, in the brief as in `review`:
    confirming the oldest memories takes them off both lists, and the brief's list is then
    filled by the next oldest rather than left short."""
    cwd = str(project)
    lines = [
        json.dumps(
            {
                "content": f"Old fact number {i} about the API.",
                "scope_level": "project",
                "scope_path": cwd,
                "created_at": f"2020-01-{i + 1:02d}T00:00:00Z",
                "updated_at": f"2020-01-{i + 1:02d}T00:00:00Z",
            }
        )
        for i in range(24)
    ]
    ids = [x["id"] for x in d.call("import", {"lines": lines})["lines"]]
    for entry_id in ids[:21]:  # the 21 oldest, more than the brief's list holds
        d.call("confirm", {"id": entry_id})
    review = d.call("review", {"kind": "stale", "limit": 100})
    assert [e["id"] for e in review["stale"]] == ids[21:]
    md = d.call("brief", {"cwd": cwd, "record": False, "budget_tokens": 4000})["markdown"]
    to_review = md.split("## To review", 1)[1].split("\n## ", 1)[0]
    assert [f"Old fact number {i} " in to_review for i in range(24)] == [False] * 21 + [True] * 3

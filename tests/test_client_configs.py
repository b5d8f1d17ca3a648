"""`enyal mcp config` and `enyal hooks install` for Codex and Cursor besides Claude Code
(issue 29): the right file of each (Codex's config.toml and hooks.json, Cursor's
mcp.json and hooks.json), merged with what is there (comments of a TOML file too), a
backup first, nothing on --print or a second run, an unreadable file refused; and the
hook commands answering each client's JSON, against a real daemon. Fake HOMEs."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

from conftest import BIN, run_cli
from daemon_support import RunningDaemon, isolated_env
from enyal_client.commands.hooks import CODEX_HOOKS, CURSOR_HOOKS

CODEX_CONFIG = """# my Codex settings
model = "gpt-5"   # keep this comment

[mcp_servers.other]
command = "/bin/other"

[mcp_servers.enyal]
command = "/old/enyal-mcp"

[mcp_servers.enyal.env]
STALE = "1"

[profiles.fast]
model = "mini"
"""


def env_for(tmp_path: Path, **more: str) -> dict[str, str]:
    env = isolated_env(tmp_path / "enyal")
    env["HOME"] = str(tmp_path / "user")
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        env.pop(name, None)
    env.update(more)
    return env


def ok(env: dict[str, str], *args: str) -> Any:
    r = run_cli(*args, "--json", env=env)
    assert r.code == 0, r.out + r.err
    return r.json()


def test_mcp_config_codex_sets_its_table_and_keeps_the_file(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    codex = tmp_path / "user" / ".codex"
    printed = run_cli("mcp", "config", "--client", "codex", env=env)
    assert printed.code == 0 and "[mcp_servers.enyal]" in printed.out
    assert not codex.exists()  # printing changes nothing

    codex.mkdir(parents=True)
    (codex / "config.toml").write_text(CODEX_CONFIG)
    r = ok(env, "mcp", "config", "--client", "codex", "--install")
    assert r["action"] == "replaced" and Path(r["backup"]).read_text() == CODEX_CONFIG
    text = (codex / "config.toml").read_text()
    data = tomllib.loads(text)
    assert data["mcp_servers"]["enyal"] == {
        "command": str(BIN / "enyal-mcp"),
        "args": [],
        "env": {"ENYAL_HOME": env["ENYAL_HOME"]},
    }
    assert data["mcp_servers"]["other"] == {"command": "/bin/other"}
    assert data["profiles"] == {"fast": {"model": "mini"}} and data["model"] == "gpt-5"
    assert '"gpt-5"   # keep this comment' in text and "STALE" not in text
    again = ok(env, "mcp", "config", "--client", "codex", "--install")
    assert again["action"] == "unchanged" and again["backup"] is None

    # What it cannot rewrite safely, or read, it refuses, and changes nothing.
    for bad, says in (
        ('mcp_servers.enyal.command = "x"\n', "by hand"),
        ("[mcp_servers\nbroken", "is not valid TOML"),
    ):
        (codex / "config.toml").write_text(bad)
        r2 = run_cli("mcp", "config", "--client", "codex", "--install", env=env)
        assert r2.code == 1 and says in r2.err, r2.err
        assert (codex / "config.toml").read_text() == bad

    # CODEX_HOME moves it; `claude` is Claude Code.
    moved = ok(
        env_for(tmp_path, CODEX_HOME=str(tmp_path / "cx")), "mcp", "config", "--client", "codex"
    )
    assert moved["file"] == str(tmp_path / "cx" / "config.toml")
    claude = ok(env, "mcp", "config", "--client", "claude")
    assert claude["file"] == str(tmp_path / "user" / ".claude.json")
    assert claude["config"]["mcpServers"]["enyal"]["type"] == "stdio"


def test_hooks_install_codex_and_cursor_merge_into_their_files(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    user = tmp_path / "user"
    other = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
    (user / ".codex").mkdir(parents=True)
    (user / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"SessionStart": [other]}}))
    printed = ok(env, "hooks", "install", "--client", "codex", "--print")
    assert set(printed["config"]["hooks"]) == set(CODEX_HOOKS) - {"UserPromptSubmit"}

    r = ok(env, "hooks", "install", "--client", "codex", "--prompt-recall")
    assert r["file"] == str(user / ".codex" / "hooks.json") and r["backup"]
    hooks = json.loads((user / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(CODEX_HOOKS)
    assert hooks["SessionStart"][0] == other  # theirs first, where it was
    (ours,) = hooks["SessionStart"][1]["hooks"]
    assert ours["command"].endswith("/enyal-hook session-start")
    assert "ENYAL_HOME=" in ours["command"]
    assert hooks["SessionStart"][1]["matcher"] == "startup|clear"
    assert ok(env, "hooks", "install", "--client", "codex", "--prompt-recall")["action"] == (
        "unchanged"
    )
    ok(env, "hooks", "install", "--client", "codex")  # without: prompt recall goes
    assert (
        "UserPromptSubmit" not in json.loads((user / ".codex" / "hooks.json").read_text())["hooks"]
    )

    (user / ".cursor").mkdir()
    theirs = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}
    (user / ".cursor" / "hooks.json").write_text(json.dumps(theirs))
    r = ok(env, "hooks", "install", "--client", "cursor")
    cursor = json.loads((user / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1 and cursor["hooks"]["afterFileEdit"] == [{"command": "./fmt.sh"}]
    assert set(cursor["hooks"]) == {"afterFileEdit", *CURSOR_HOOKS}
    (start,) = cursor["hooks"]["sessionStart"]
    assert start["command"].endswith("/enyal-hook session-start --client cursor")
    assert ok(env, "hooks", "install", "--client", "cursor")["action"] == "unchanged"
    assert not (user / ".claude").exists()  # Claude Code's settings untouched


def run_hook(command: str, payload: dict[str, Any], env: dict[str, str]) -> Any:
    r = subprocess.run(
        command, shell=True, input=json.dumps(payload), capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_codex_and_cursor_hooks_hand_over_the_brief(
    d: RunningDaemon, project: Path, tmp_path: Path
) -> None:
    assert d.paths.home is not None
    env = isolated_env(d.paths.home)
    env["HOME"] = str(tmp_path / "user")
    d.call(
        "remember",
        {
            "content": "Deploys need the release checklist signed off",
            "content_type": "convention",
            "scope": "project",
            "cwd": str(project),
        },
    )
    codex = ok(env, "hooks", "install", "--client", "codex", "--print")["config"]["hooks"]
    cursor = ok(env, "hooks", "install", "--client", "cursor", "--print")["config"]["hooks"]
    # Codex's input: Claude Code's fields; its output: Claude Code's too.
    out = run_hook(
        codex["SessionStart"][0]["hooks"][0]["command"],
        {
            "session_id": "codex-1",
            "transcript_path": None,
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "model": "gpt-5",
            "source": "startup",
        },
        env,
    )
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "release checklist" in out["hookSpecificOutput"]["additionalContext"]
    # Cursor's: conversation_id and workspace_roots in, additional_context out.
    out = run_hook(
        cursor["sessionStart"][0]["command"],
        {
            "conversation_id": "cursor-1",
            "generation_id": "g1",
            "hook_event_name": "sessionStart",
            "workspace_roots": [str(project)],
        },
        env,
    )
    assert set(out) == {"additional_context"} and "release checklist" in out["additional_context"]

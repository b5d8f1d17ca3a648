"""The Claude Code plugin (client/claude-code: .claude-plugin/plugin.json,
hooks/hooks.json, the .mcp.json server, commands/; the marketplace in the repository's
.claude-plugin/), checked with the real Claude Code CLI: `claude plugin validate`
(strict) passes for the marketplace and the plugin, and `claude mcp list` reports
enyal-mcp connected. The CLI is the one scripts/test installs with npm into .tools/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN
from daemon_support import RunningDaemon
from enyal_client.commands.hooks import HOOKS, plugin_hooks
from enyal_protocol.hooks.answer import EVENT, FAILURE_EVENT

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "client" / "claude-code"
CLAUDE = ROOT / ".tools" / "claude-code" / "node_modules" / ".bin" / "claude"
needs_claude = pytest.mark.skipif(
    not CLAUDE.exists(),
    reason=f"Claude Code's CLI is not at {CLAUDE}: scripts/test installs it with npm "
    "(npm install --prefix .tools/claude-code @anthropic-ai/claude-code)",
)


def claude(
    home: Path, *args: str, cwd: Path | None = None, **more: str
) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "DISABLE_AUTOUPDATER": "1", **more}
    if "PYTHONPATH" in os.environ:  # the servers it starts run this tree's code
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run(
        [str(CLAUDE), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_the_plugin_hooks_are_the_installed_ones() -> None:
    on_disk = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())
    assert on_disk == plugin_hooks()
    assert set(on_disk["hooks"]) == set(HOOKS)
    plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert servers == {"enyal": {"command": "enyal-mcp"}}
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert [p["name"] for p in market["plugins"]] == [plugin["name"]]
    assert market["plugins"][0]["version"] == plugin["version"]
    for verb in ("remember", "recall", "brief", "review"):
        text = (PLUGIN / "commands" / f"{verb}.md").read_text()
        assert text.startswith("---\ndescription: ") and f"enyal_{verb}" in text


def test_every_installed_event_runs_the_verb_that_answers_it() -> None:
    # HOOKS (event -> `enyal hook` verb) and hooks/answer.EVENT (verb -> the event its
    # output names) say one fact from both ends; a failed command's event is post-tool-use's.
    answered = {event: verb for verb, event in EVENT.items()} | {FAILURE_EVENT: "post-tool-use"}
    assert {event: hook.verb for event, hook in HOOKS.items()} == answered


@needs_claude
def test_claude_validates_the_marketplace_and_the_plugin(tmp_path: Path) -> None:
    for target in (ROOT, PLUGIN / ".claude-plugin" / "plugin.json"):
        for strict in ((), ("--strict",)):
            r = claude(tmp_path / "home", "plugin", "validate", *strict, str(target))
            assert r.returncode == 0, r.stdout + r.stderr
            assert "Validation passed" in r.stdout
    # It does check what the plugin holds: an unknown hook event fails.
    bad = tmp_path / "bad"
    for part in (".claude-plugin", "hooks", "commands"):
        shutil.copytree(PLUGIN / part, bad / part)
    shutil.copy(PLUGIN / ".mcp.json", bad / ".mcp.json")
    hooks = json.loads((bad / "hooks" / "hooks.json").read_text())
    hooks["hooks"]["NoSuchEvent"] = hooks["hooks"]["Stop"]
    (bad / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    r = claude(tmp_path / "home", "plugin", "validate", str(bad / ".claude-plugin" / "plugin.json"))
    assert r.returncode == 1 and "NoSuchEvent" in r.stdout + r.stderr
    # And the shape of an mcp_tool hook (the plugin's no-process path): one without its
    # server fails.
    del hooks["hooks"]["NoSuchEvent"]
    (tool,) = hooks["hooks"]["UserPromptSubmit"][0]["hooks"]
    assert tool["type"] == "mcp_tool"
    del tool["server"]
    (bad / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    r = claude(tmp_path / "home", "plugin", "validate", str(bad / ".claude-plugin" / "plugin.json"))
    assert r.returncode == 1 and "UserPromptSubmit.0.hooks.0.server" in r.stdout + r.stderr


@needs_claude
def test_claude_reports_enyal_mcp_connected(d: RunningDaemon, tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    assert d.paths.home is not None
    add = claude(
        home,
        "mcp",
        "add",
        "enyal",
        "-e",
        f"ENYAL_HOME={d.paths.home}",
        "--",
        str(BIN / "enyal-mcp"),
        cwd=work,
    )
    assert add.returncode == 0, add.stdout + add.stderr
    r = claude(home, "mcp", "list", cwd=work)
    assert r.returncode == 0, r.stdout + r.stderr
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("enyal:")]
    assert "Connected" in line and "Failed" not in line, r.stdout


@needs_claude
def test_the_plugin_installs_and_its_server_connects(d: RunningDaemon, tmp_path: Path) -> None:
    """As a user installs it: the repository added as a marketplace, the plugin installed
    from it; Claude Code sees every hook, the four commands and the server, and starts
    the server (enyal-mcp found on PATH) connected."""
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    for args in (("marketplace", "add", str(ROOT)), ("install", "enyal@enyal")):
        r = claude(home, "plugin", *args, cwd=work)
        assert r.returncode == 0, r.stdout + r.stderr
    r = claude(home, "plugin", "details", "enyal@enyal", cwd=work)
    assert r.returncode == 0, r.stdout + r.stderr
    inventory = {ln.split()[0]: ln for ln in r.stdout.splitlines() if "(" in ln and ln[:2] == "  "}
    assert f"Hooks ({len(HOOKS)})" in inventory["Hooks"]
    assert all(event in inventory["Hooks"] for event in HOOKS)
    assert "Skills (4)" in inventory["Skills"] and "MCP servers (1)" in inventory["MCP"]
    assert d.paths.home is not None
    r = claude(
        home, "mcp", "list", cwd=work, PATH=f"{BIN}:/usr/bin:/bin", ENYAL_HOME=str(d.paths.home)
    )
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("plugin:enyal:enyal:")]
    assert "Connected" in line, r.stdout

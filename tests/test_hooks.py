"""`enyal hooks install` (print, merge, backup, idempotence) and the hook commands Claude
Code runs, against a real daemon, their stdout checked as hook JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import BIN, run_cli
from daemon_support import RunningDaemon, isolated_env
from enyal_client.commands.hooks import HOOKS

OTHER_HOOK = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}


def env_of(d: RunningDaemon, user: Path) -> dict[str, str]:
    assert d.paths.home is not None
    env = isolated_env(d.paths.home)
    env["HOME"] = str(user)
    return env


def settings(user: Path) -> Any:
    return json.loads((user / ".claude" / "settings.json").read_text())


def backups(user: Path) -> list[Path]:
    return sorted((user / ".claude").glob("settings.json.bak-*"))


def test_print_changes_nothing(d: RunningDaemon, tmp_path: Path) -> None:
    user = tmp_path / "user"
    r = run_cli(
        "hooks",
        "install",
        "--client",
        "claude-code",
        "--prompt-recall",
        "--print",
        "--json",
        env=env_of(d, user),
    )
    assert r.code == 0, r.err
    config = r.json()["config"]["hooks"]
    assert set(config) == set(HOOKS), "every event, prompt recall too with --prompt-recall"
    for event, group in config.items():
        assert group[0]["hooks"][0]["command"].endswith(f" hook {HOOKS[event].verb}")
    # Capture runs in the background (nothing reads its output); context hooks cannot.
    assert config["Stop"][0]["hooks"][0]["async"] is True
    assert "async" not in config["PreToolUse"][0]["hooks"][0]
    (start,) = config["SessionStart"][0]["hooks"]
    assert start["type"] == "command" and start["command"].endswith(" hook session-start")
    assert str(BIN / "enyal") in start["command"] and "ENYAL_HOME=" in start["command"]
    assert not (user / ".claude").exists()


def test_install_merges_backs_up_and_is_idempotent(d: RunningDaemon, tmp_path: Path) -> None:
    user = tmp_path / "user"
    env = env_of(d, user)
    (user / ".claude").mkdir(parents=True)
    before = {"model": "opus", "hooks": {"SessionStart": [OTHER_HOOK], "Stop": [OTHER_HOOK]}}
    (user / ".claude" / "settings.json").write_text(json.dumps(before))

    def install(*flags: str) -> Any:
        r = run_cli("hooks", "install", "--client", "claude-code", *flags, "--json", env=env)
        assert r.code == 0, r.err
        return r.json()

    first = install()
    assert first["action"] == "updated"
    after = settings(user)
    assert after["model"] == "opus" and after["hooks"]["Stop"][0] == OTHER_HOOK
    assert after["hooks"]["Stop"][1]["hooks"][0]["command"].endswith(" hook stop")
    assert set(after["hooks"]) == set(HOOKS) - {"UserPromptSubmit"}
    starts = after["hooks"]["SessionStart"]
    assert starts[0] == OTHER_HOOK and starts[1]["hooks"][0]["command"].endswith("session-start")
    assert "UserPromptSubmit" not in after["hooks"]
    (backup,) = backups(user)
    assert json.loads(backup.read_text()) == before and first["backup"] == str(backup)

    again = install()
    assert again["action"] == "unchanged" and again["backup"] is None
    assert settings(user) == after and len(backups(user)) == 1

    with_prompt = install("--prompt-recall")
    assert with_prompt["action"] == "updated"
    hooks = settings(user)["hooks"]
    assert len(hooks["SessionStart"]) == 2, "replaced, not added twice"
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"].endswith(" hook prompt-submit")
    assert install("--prompt-recall")["action"] == "unchanged"
    assert install()["action"] == "updated"  # without the flag: that hook is taken out
    assert settings(user) == after
    assert len(backups(user)) == 3


def test_install_refuses_a_file_it_cannot_parse(d: RunningDaemon, tmp_path: Path) -> None:
    user = tmp_path / "user"
    (user / ".claude").mkdir(parents=True)
    for text in ("{not json", '{"hooks": []}', '{"hooks": {"SessionStart": {}}}'):
        (user / ".claude" / "settings.json").write_text(text)
        r = run_cli("hooks", "install", "--client", "claude-code", env=env_of(d, user))
        assert r.code == 1 and "nothing was changed" in r.err, r.err
        assert (user / ".claude" / "settings.json").read_text() == text
        assert backups(user) == []


def hook(
    env: dict[str, str], event: str, data: Any, *extra: str
) -> subprocess.CompletedProcess[str]:
    stdin = data if isinstance(data, str) else json.dumps(data)
    return subprocess.run(
        [str(BIN / "enyal"), "hook", event, *extra],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_hook_commands_answer_hook_json(d: RunningDaemon, project: Path, tmp_path: Path) -> None:
    env = env_of(d, tmp_path / "user")
    d.call(
        "remember",
        {
            "content": "Lint with ruff, line length 100.",
            "content_type": "convention",
            "cwd": str(project),
        },
    )
    d.call("task_add", {"content": "Wire the hooks into CI", "cwd": str(project)})
    start = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    r = hook(env, "session-start", start)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# Enyal brief: proj") and "Wire the hooks into CI" in context
    small = json.loads(hook(env, "session-start", start, "--budget-tokens", "100").stdout)
    assert len(small["hookSpecificOutput"]["additionalContext"]) < len(context)

    # Another session: in s1 the brief already gave the convention, and a session is not
    # given a memory twice (tests/test_session_hooks.py).
    prompt = {
        **start,
        "session_id": "s2",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "How do we lint here?",
    }
    r = hook(env, "prompt-submit", prompt)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "Lint with ruff" in out["hookSpecificOutput"]["additionalContext"]
    # Nothing related, or nothing asked: valid JSON that adds nothing.
    for quiet in ("zebra migration patterns of the serengeti", "   "):
        r = hook(env, "prompt-submit", {**prompt, "prompt": quiet})
        assert r.returncode == 0 and json.loads(r.stdout) == {}, r.stdout
    # Bad input is a non-blocking error (exit 1, never 2, which would block the prompt).
    for bad, event in (
        ("not json", "prompt-submit"),
        ({"prompt": "x"}, "prompt-submit"),
        ({"cwd": str(project)}, "prompt-submit"),
        ([1], "session-start"),
    ):
        r = hook(env, event, bad)
        assert r.returncode == 1 and r.stderr, (bad, r.stdout)


def test_the_installed_command_runs(d: RunningDaemon, project: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    env = env_of(d, user)
    assert (
        run_cli("hooks", "install", "--client", "claude-code", "--prompt-recall", env=env).code == 0
    )
    command = settings(user)["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    bare = {k: v for k, v in env.items() if k != "ENYAL_HOME"}  # the command carries its own
    r = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({"cwd": str(project)}),
        capture_output=True,
        text=True,
        env=bare,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"

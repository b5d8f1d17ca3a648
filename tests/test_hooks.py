"""`enyal hooks install` (print, merge, backup, idempotence) and the hook commands Claude
Code runs, against a real daemon, their stdout checked as hook JSON."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN, run_cli
from daemon_support import RunningDaemon, isolated_env
from enyal_client.commands.hooks import HOOKS

# The launcher installed beside `enyal` (pyproject's script-files): what install writes.
LAUNCHER = BIN / "enyal-hook"
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
        assert group[0]["hooks"][0]["command"].endswith(f"{LAUNCHER} {HOOKS[event].verb}")
    # Capture runs in the background (nothing reads its output); context hooks cannot.
    assert config["Stop"][0]["hooks"][0]["async"] is True
    assert "async" not in config["PreToolUse"][0]["hooks"][0]
    (start,) = config["SessionStart"][0]["hooks"]
    assert start["type"] == "command" and start["command"].endswith(f"{LAUNCHER} session-start")
    assert "ENYAL_HOME=" in start["command"]
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
    assert after["hooks"]["Stop"][1]["hooks"][0]["command"].endswith(f"{LAUNCHER} stop")
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
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"].endswith(f"{LAUNCHER} prompt-submit")
    assert install("--prompt-recall")["action"] == "unchanged"
    assert install()["action"] == "updated"  # without the flag: that hook is taken out
    assert settings(user) == after
    assert len(backups(user)) == 3


def test_install_upgrades_an_older_installs_hooks_and_doctor_says_so(
    d: RunningDaemon, tmp_path: Path
) -> None:
    """Installs before the launcher wrote `…/enyal hook VERB`: installing again puts
    the launcher in their place (one of ours an event, the user's hooks where they
    were), and `enyal doctor` names the form and the command that upgrades it (with
    --prompt-recall when that hook is there, or the reinstall would drop it)."""
    user = tmp_path / "user"
    env = env_of(d, user)
    (user / ".claude").mkdir(parents=True)
    old = f"ENYAL_HOME={d.paths.home} {BIN / 'enyal'}"
    groups = {
        event: [{"hooks": [{"type": "command", "command": f"{old} hook {hook.verb}"}]}]
        for event, hook in HOOKS.items()
    }
    groups["SessionStart"].insert(0, OTHER_HOOK)
    (user / ".claude" / "settings.json").write_text(json.dumps({"hooks": groups}))

    def hooks_check() -> Any:
        r = run_cli("doctor", "--json", env=env)
        return {c["name"]: c for c in json.loads(r.out)["checks"]}["hooks"]

    before = hooks_check()
    assert before["status"] == "warn", before
    assert f"{len(HOOKS)} via `enyal hook`" in before["detail"], before
    assert before["fix"] == "enyal hooks install --client claude-code --prompt-recall", before

    r = run_cli("hooks", "install", "--client", "claude-code", "--prompt-recall", env=env)
    assert r.code == 0, r.err
    after = settings(user)["hooks"]
    assert after["SessionStart"][0] == OTHER_HOOK
    for event, hook in HOOKS.items():
        ours = [g for g in after[event] if g != OTHER_HOOK]
        assert len(ours) == 1, (event, after[event])
        (entry,) = ours[0]["hooks"]
        assert entry["command"].endswith(f"{LAUNCHER} {hook.verb}"), entry
    now = hooks_check()
    assert now["status"] == "ok" and f"{len(HOOKS)} via enyal-hook" in now["detail"], now


def test_hook_command_falls_back_where_no_launcher_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command install writes follows what is installed beside the interpreter
    running it; both forms are recognised as Enyal's (so either is replaced)."""
    from enyal_client.commands import hooks

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    for name in ("PATH", "ENYAL_HOME", "ENYAL_SOCKET", "ENYAL_DB", "ENYAL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    bare = hooks.hook_command("stop")
    assert bare == shlex.join([str(bin_dir / "python"), "-m", "enyal_client.cli", "hook", "stop"])
    for name in ("enyal", "enyal-hook"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
        if name == "enyal":  # the console script, no launcher: `enyal hook`
            assert hooks.hook_command("stop") == f"{bin_dir / 'enyal'} hook stop"
    assert hooks.hook_command("stop") == f"{bin_dir / 'enyal-hook'} stop"
    cursor = hooks.hook_command("session-start", "cursor")
    assert cursor == f"{bin_dir / 'enyal-hook'} session-start --client cursor"

    def ours(command: str, verb: str = "stop", client: str = "claude-code") -> bool:
        return hooks.is_ours({"type": "command", "command": command}, verb, client)

    assert ours(bare) and ours("enyal hook stop") and ours("'/a b/enyal-hook' stop")
    assert ours(cursor, "session-start", "cursor")
    assert ours("X=1 /usr/bin/enyal hook stop")
    assert not ours("enyal-hook session-start") and not ours("hook stop")
    assert not ours("my-enyal-hooker stop") and not ours("enyal hook stop --client cursor")
    assert not ours("echo 'unclosed")


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
    env: dict[str, str], event: str | None, data: Any, *extra: str
) -> subprocess.CompletedProcess[str]:
    """`enyal hook EVENT EXTRA…` (no EVENT: None) with `data` on stdin."""
    stdin = data if isinstance(data, str) else json.dumps(data)
    return subprocess.run(
        [str(BIN / "enyal"), "hook", *([event] if event is not None else []), *extra],
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
    # So is a hook command line this version does not read (written by another version,
    # or edited by hand): argparse's usage error is exit 2 for every other verb.
    for event, extra in (
        ("notification", ()),
        ("prompt-submit", ("--budget-tokens", "5")),
        ("--bogus", ()),
        (None, ()),
    ):
        r = hook(env, event, prompt, *extra)
        assert r.returncode == 1 and "usage: enyal hook" in r.stderr, (event, extra, r.stderr)
    assert run_cli("recall", "--limit", "0", env=env).code == 2  # the rule for the others


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

"""`enyal hook EVENT` for every Claude Code event, driven with Claude Code's documented
hook input (recorded fixtures in tests/data/hooks), against a real daemon: the output has
the documented shape, nothing is injected twice in one session, a session's transcript
becomes a redacted, deduplicated digest in the day's log, and each event can be off."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN
from daemon_support import RunningDaemon, isolated_env
from enyal_client.commands.hook import EVENT, is_instructions
from enyal_protocol import config
from enyal_protocol.hooks import capture, transcript

DATA = Path(__file__).parent / "data" / "hooks"
RECORDED = "/home/user/proj"  # the cwd the fixtures were recorded in
# Events whose documented output can carry hookSpecificOutput.additionalContext.
CONTEXT_EVENTS = {
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
}
# Claude Code's event for a command that exited non-zero: post-tool-use serves it too.
FAILURE = "post-tool-use-failure"
DIGEST = [
    "changed src/billing.py",
    "ran `pytest tests/test_billing.py -q` -> failed",
    'ran `curl -s -H "Authorization: token ghp_R8x2Lq9Vt4Zk7Wm3Np6Hs1Dc5Fg0Jy8Bu2Ae" '
    "https://api.github.com/user` -> ok",
    "ran `pytest tests/test_billing.py -q` -> ok",
    "`pytest tests/test_billing.py -q` failed, then passed after changing src/billing.py",
    "the user asked to remember: Remember that the billing tests need SQLITE_TMPDIR "
    "set to a writable folder.",
    "the user asked to remember: From now on, run ruff before committing.",
]


def fixture(name: str, project: Path, **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (DATA / f"{name}.json").read_text().replace(RECORDED, str(project))
    )
    return {**data, **over}


def hook(env: dict[str, str], event: str, data: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "enyal"), "hook", event],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def answer(env: dict[str, str], event: str, data: Any) -> dict[str, Any]:
    """The hook's JSON, checked against the documented shape: {} or hookSpecificOutput
    naming the event, with additionalContext only on events that take it."""
    r = hook(env, event, data)
    assert r.returncode == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    if out:
        assert set(out) == {"hookSpecificOutput"}, out
        specific = out["hookSpecificOutput"]
        assert specific["hookEventName"] == data["hook_event_name"]
        assert data["hook_event_name"] == EVENT[event] or event == "post-tool-use"
        assert specific["hookEventName"] in CONTEXT_EVENTS
        assert isinstance(specific["additionalContext"], str) and specific["additionalContext"]
    return out


def context(out: dict[str, Any]) -> str:
    return str(out["hookSpecificOutput"]["additionalContext"]) if out else ""


@pytest.fixture
def env(d: RunningDaemon, tmp_path: Path) -> dict[str, str]:
    assert d.paths.home is not None
    e = isolated_env(d.paths.home)
    e["HOME"] = str(tmp_path / "user")
    return e


def test_the_events_are_the_configs() -> None:
    assert tuple(EVENT) == config.HOOK_EVENTS
    assert {p.stem for p in DATA.glob("*.json")} == {*EVENT, FAILURE}


def test_every_event_answers_its_documented_shape(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    d.call("remember", {"content": "Lint with ruff, line length 100.", "cwd": str(project)})
    for name in (*EVENT, FAILURE):
        data = fixture(name, project, transcript_path=str(project / "missing.jsonl"))
        if name in ("pre-compact", "stop", "session-end"):
            data["transcript_path"] = str(DATA / "transcript.jsonl")
        answer(env, "post-tool-use" if name == FAILURE else name, data)
    # Bad input: a non-blocking error (exit 1, never 2, which would block), nothing else.
    for event in EVENT:
        for bad in ("not json", [1], {"session_id": "x"}):
            r = subprocess.run(
                [str(BIN / "enyal"), "hook", event],
                input=bad if isinstance(bad, str) else json.dumps(bad),
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            assert r.returncode == 1 and r.stderr and not r.stdout, (event, bad, r.stdout)


def test_nothing_is_injected_twice_in_a_session(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "billing.py").write_text("def invoice(): ...\n")
    lint = d.call(
        "remember",
        {
            "content": "Lint with ruff, line length 100.",
            "content_type": "convention",
            "cwd": str(project),
        },
    )
    d.call(
        "remember",
        {
            "content": "billing.py rounds invoice totals half-even, as the tax office requires.",
            "scope": "file",
            "scope_path": str(project / "src" / "billing.py"),
            "cwd": str(project),
        },
    )
    prompt = fixture("prompt-submit", project)
    first = context(answer(env, "prompt-submit", prompt))
    assert "Lint with ruff" in first and lint["id"][:8] in first
    assert answer(env, "prompt-submit", prompt) == {}, "shown once in this session"
    assert "Lint with ruff" in context(answer(env, "prompt-submit", {**prompt, "session_id": "s2"}))

    read = fixture("pre-tool-use", project)
    about = context(answer(env, "pre-tool-use", read))
    assert "half-even" in about and "src/billing.py" in about
    edit = {**read, "tool_name": "Edit", "tool_input": {**read["tool_input"], "old_string": "a"}}
    assert answer(env, "pre-tool-use", edit) == {}, "once per file per session"
    assert answer(env, "pre-tool-use", {**read, "tool_name": "Bash"}) == {}

    # After a compaction the context no longer holds it: the brief gives it again, and
    # what the brief gave is not repeated beside a prompt; a file's notes come again.
    start = fixture("session-start", project, source="compact")
    brief = context(answer(env, "session-start", start))
    assert "Lint with ruff" in brief and lint["id"][:8] in brief
    assert answer(env, "prompt-submit", prompt) == {}, "the brief gave it"
    again = context(answer(env, "pre-tool-use", read))
    assert "half-even" in again or "half-even" in brief
    # A new session's brief: its memories are not repeated beside its first prompt.
    fresh = fixture("session-start", project, session_id="s5")
    assert lint["id"][:8] in context(answer(env, "session-start", fresh))
    assert answer(env, "prompt-submit", {**prompt, "session_id": "s5"}) == {}

    sub = fixture("subagent-start", project)
    brief = context(answer(env, "subagent-start", sub))
    assert "Explore subagent" in brief and "# Enyal brief" in brief
    assert answer(env, "subagent-start", sub) == {}, "one brief per subagent"
    assert answer(env, "subagent-start", {**sub, "agent_id": "agent-2"}) != {}


def test_a_days_log_beside_a_file_is_cut_to_its_lines(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    (project / "src").mkdir()
    for i in range(12):
        d.call("log_append", {"text": f"ran the billing tests, round {i}", "cwd": str(project)})
    d.call("log_append", {"text": "billing.py: split invoice() in two", "cwd": str(project)})
    read = fixture("pre-tool-use", project)
    shown = context(answer(env, "pre-tool-use", read))
    assert "split invoice() in two" in shown and "round" not in shown, shown


def test_a_failed_command_brings_what_was_seen_before(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    fix = d.call(
        "remember",
        {
            "content": "sqlite3.OperationalError database is locked in the billing tests: "
            "a leftover pytest process holds the file; kill it.",
            "content_type": "pattern",
            "cwd": str(project),
        },
    )
    failed = fixture("post-tool-use", project)
    seen = context(answer(env, "post-tool-use", failed))
    assert seen.startswith("## Enyal: seen before") and fix["id"][:8] in seen
    assert answer(env, "post-tool-use", failed) == {}, "not twice in a session"
    exited = answer(env, "post-tool-use", fixture(FAILURE, project, session_id="s4"))
    assert exited["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert fix["id"][:8] in context(exited)
    ok = {
        **failed,
        "tool_response": {"stdout": "1 passed in 0.2s", "stderr": "", "interrupted": False},
    }
    assert answer(env, "post-tool-use", {**ok, "session_id": "other"}) == {}
    exit_code = {
        **failed,
        "session_id": "s3",
        "tool_response": {"stdout": "", "stderr": "locked", "exit_code": 1},
    }
    assert answer(env, "post-tool-use", exit_code) != {}


def test_a_digest_longer_than_a_log_line_waits_for_the_next_event() -> None:
    items = [f"changed src/module_{i:03}.py" for i in range(400)]
    text, held = capture.line("abcdef123456", items)
    assert text.startswith("session abcdef12: changed src/module_000.py · ")
    assert len(text) <= capture.MAX_LINE and held == items[: len(held)] and 0 < len(held) < 400


def test_the_transcript_digest() -> None:
    d = transcript.digest(DATA / "transcript.jsonl", RECORDED)
    assert d.items() == DIGEST


def test_capture_writes_the_digest_once_redacted(
    d: RunningDaemon, env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text((DATA / "transcript.jsonl").read_text().replace(RECORDED, str(project)))
    for event in ("stop", "pre-compact", "stop", "session-end"):
        assert answer(env, event, fixture(event, project, transcript_path=str(path))) == {}
    lines = d.call("log_show", {"cwd": str(project)})["lines"]
    texts = [line.split(" ", 2)[2] for line in lines]  # "- HH:MM text"
    digest = " · ".join(DIGEST)  # one line an event: one append, not one an item
    secret = "ghp_R8x2Lq9Vt4Zk7Wm3Np6Hs1Dc5Fg0Jy8Bu2Ae"
    assert texts == ["session abc123: " + digest.replace(secret, "[REDACTED:github-token]")]
    whole = "\n".join(lines)
    assert "ghp_" not in whole and "IGNORE ALL PREVIOUS" not in whole and "attacker" not in whole
    assert "scratch/notes.md" not in whole, "a subagent's own turns are not the session's"
    # A later turn adds only what is new.
    with path.open("a") as f:
        f.write(
            json.dumps(
                {
                    "type": "user",
                    "message": {"role": "user", "content": "Always keep the changelog short."},
                }
            )
            + "\n"
        )
    answer(env, "stop", fixture("stop", project, transcript_path=str(path)))
    after = d.call("log_show", {"cwd": str(project)})["lines"]
    assert after[:-1] == lines
    assert after[-1].endswith(
        "session abc123: the user asked to remember: Always keep the changelog short."
    )


def test_instruction_files_are_indexed_again(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (project / "CLAUDE.md").write_text(
        "# Testing\n\nRun the suite with pytest -x before pushing.\n"
    )
    (rules / "testing.md").write_text("# Fixtures\n\nFixtures live in tests/data, recorded once.\n")
    (project / "notes.md").write_text("# Notes\n\nNot an instructions file.\n")

    def mirrored() -> list[str]:
        entries = d.call("list", {"cwd": str(project), "limit": 100})["entries"]
        return sorted(e["content"] for e in entries)

    assert answer(env, "instructions-loaded", fixture("instructions-loaded", project)) == {}
    assert any("pytest -x" in c for c in mirrored())
    assert answer(env, "file-changed", fixture("file-changed", project)) == {}
    assert any("recorded once" in c for c in mirrored())
    before = mirrored()
    other = fixture("file-changed", project, file_path=str(project / "notes.md"))
    assert answer(env, "file-changed", other) == {}
    assert mirrored() == before
    assert is_instructions(Path("/x/.claude/rules/a/b.md")) and not is_instructions(
        Path("/x/rules/b.md")
    )


def claude_code_fires(matcher: str, cwd: Path, changed: Path) -> bool:
    """Whether Claude Code runs a FileChanged hook of this matcher when `changed` changes,
    as its file watcher does it (2.1.197, read from the CLI tests/test_plugin.py installs):
    each `|` part of the matcher is a path it watches (relative: under the session's cwd;
    a folder: everything below it), and the hook runs when the whole matcher, as a regex,
    is found in the changed file's name."""
    watched = [Path(cwd, part) for part in matcher.split("|")]
    covered = any(changed == w or w in changed.parents for w in watched)
    return covered and re.search(matcher, changed.name) is not None


def test_a_rule_added_in_a_session_is_found(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    """The issue's table: FileChanged re-indexes `.claude/rules/` as it changes. Claude
    Code watches only what the installed matcher names, so a rule written mid-session
    (no InstructionsLoaded for it yet, no `enyal index` root for the daemon's own
    watcher) reaches Enyal only if that matcher covers the rules folder."""
    from enyal_client.commands.hooks import HOOKS

    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Testing\n\nRun the suite with pytest -x.\n")
    assert answer(env, "instructions-loaded", fixture("instructions-loaded", project)) == {}
    rule = rules / "deploys.md"
    rule.write_text("# Deploys\n\nDeploys go out on Tuesdays through the blue-green switch.\n")
    matcher = HOOKS["FileChanged"].matcher
    assert matcher is not None
    for changed in (rule, rules / "nested" / "x.mdc", project / "CLAUDE.md"):
        assert claude_code_fires(matcher, project, changed), changed
    for quiet in (project / "notes.md", project / "src" / "CLAUDE.txt"):
        assert not claude_code_fires(matcher, project, quiet), quiet
    if claude_code_fires(matcher, project, rule):
        data = fixture("file-changed", project, file_path=str(rule), event="add")
        assert answer(env, "file-changed", data) == {}
    hits = d.call("recall", {"query": "when do deploys go out", "cwd": str(project)})
    assert any("Tuesdays" in h["content"] for h in hits["results"]), hits


def test_an_event_turned_off_prints_nothing(
    d: RunningDaemon, env: dict[str, str], project: Path
) -> None:
    d.call("remember", {"content": "Lint with ruff, line length 100.", "cwd": str(project)})
    assert d.paths.home is not None
    (Path(d.paths.home) / "config.toml").write_text("[hooks]\nprompt_submit = false\n")
    prompt = fixture("prompt-submit", project)
    assert answer(env, "prompt-submit", prompt) == {}
    assert answer(env, "prompt-submit", {**prompt, "session_id": "s9"}) == {}
    # Off means off whatever the input holds: no cwd is no error, and nothing is asked.
    assert answer(env, "prompt-submit", {"prompt": "x"}) == {}
    assert answer(env, "prompt-submit", prompt) == {}
    on = {**env, "ENYAL_HOOKS_PROMPT_SUBMIT": "true"}  # the environment wins over the file
    assert "Lint with ruff" in context(answer(on, "prompt-submit", prompt)), "it was never recorded"
    assert (
        answer(
            {**env, "ENYAL_HOOKS_SESSION_START": "0"},
            "session-start",
            fixture("session-start", project),
        )
        == {}
    )


def test_an_event_reads_the_config_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """config.toml is read once per event (the switch and the recall floors from the same
    read): a read is 1.4 ms under load, and UserPromptSubmit's goal is 15 ms. The Caller
    here answers as a daemon with nothing to recall would, because what is counted is
    this process's reads, which a daemon in another process cannot see."""
    from enyal_protocol.hooks import answer as hook_answer

    reads: list[int] = []
    real = config.load

    def counted(*args: Any, **kwargs: Any) -> config.Config:
        reads.append(1)
        return real(*args, **kwargs)

    class NothingToRecall:
        def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            return {"results": [], "new": []}

    monkeypatch.setattr(config, "load", counted)
    data = {"cwd": str(tmp_path), "prompt": "how do we lint here?", "session_id": "once"}
    assert hook_answer.answer(NothingToRecall(), "prompt-submit", data) == {}
    assert len(reads) == 1

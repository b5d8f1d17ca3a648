"""`enyal hooks install --client claude-code [--prompt-recall] [--print]`: Claude Code
hooks that hand the agent its memory without being asked, and capture its session.

Every event `enyal hook` answers is installed (HOOKS: which event, which matcher, which
timeout); UserPromptSubmit (a budgeted recall for every prompt) only with
--prompt-recall, as it runs before each prompt. The plugin's hooks.json (in
client/claude-code/hooks/) is the same table with a bare `enyal` command (plugin_hooks;
a test keeps the file equal).
They are merged into ~/.claude/settings.json the way `enyal mcp config --install`
merges its entry (mcp_config.merge: the rest of the file kept, a backup first, an
unparsable file refused). Enyal's hooks are recognised by their command (`… hook
session-start`, `… hook stop`, …), so installing again replaces them instead of adding
twice, and installing without --prompt-recall removes that one.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, NamedTuple

from ..transport import ClientError
from .base import Args, Context, Registry, Result
from .mcp_config import PASSED_ENV, installed, merge

CLIENTS = ("claude-code",)


class Hook(NamedTuple):
    verb: str  # `enyal hook VERB`
    matcher: str | None  # Claude Code's matcher for the event; None: every occurrence
    timeout: int  # seconds; a cold daemon start fits
    # Claude Code's `async`: run in the background, nothing waits. For the hooks whose
    # output is not read (capture, re-indexing), whose log append or embedding takes
    # seconds under load. Not SessionEnd: Claude Code is exiting, a background hook
    # could be cut off.
    background: bool = False


# Claude Code's SessionStart sources worth a brief: a new session, after /clear, and
# after a compaction dropped the earlier one from the context (a resume still has it).
SESSION_SOURCES = "startup|clear|compact"
HOOKS: dict[str, Hook] = {
    "SessionStart": Hook("session-start", SESSION_SOURCES, 15),
    "UserPromptSubmit": Hook("prompt-submit", None, 10),
    "PreToolUse": Hook("pre-tool-use", "Read|Edit|Write|MultiEdit", 10),
    "PostToolUse": Hook("post-tool-use", "Bash", 10),
    "PostToolUseFailure": Hook("post-tool-use", "Bash", 10),  # a command that exited non-zero
    "SubagentStart": Hook("subagent-start", None, 15),
    # Capture reads the transcript and writes the log: more time, nothing waits on it.
    "PreCompact": Hook("pre-compact", None, 30, background=True),
    "Stop": Hook("stop", None, 30, background=True),
    "SessionEnd": Hook("session-end", None, 30),
    # Indexing embeds the file's sections: a cold model load fits.
    "InstructionsLoaded": Hook("instructions-loaded", None, 60, background=True),
    "FileChanged": Hook("file-changed", "CLAUDE.md|AGENTS.md|CLAUDE.local.md", 60, background=True),
}
EVENTS = {event: hook.verb for event, hook in HOOKS.items()}
OPT_IN = "UserPromptSubmit"  # before every prompt: only with --prompt-recall


def settings_file() -> Path:
    return Path.home() / ".claude" / "settings.json"


def enyal_command() -> list[str]:
    beside = Path(sys.executable).parent / "enyal"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "enyal_client.cli"]


def hook_command(verb: str) -> str:
    env = [f"{k}={shlex.quote(os.environ[k])}" for k in PASSED_ENV if os.environ.get(k)]
    return " ".join([*env, shlex.join([*enyal_command(), "hook", verb])])


def is_ours(hook: Any, verb: str) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and command.endswith(f" hook {verb}")


def group(event: str, command: str) -> dict[str, Any]:
    hook = HOOKS[event]
    entry: dict[str, Any] = {"type": "command", "command": command, "timeout": hook.timeout}
    if hook.background:
        entry["async"] = True
    return {**({"matcher": hook.matcher} if hook.matcher else {}), "hooks": [entry]}


def wanted(prompt_recall: bool) -> dict[str, dict[str, Any]]:
    return {
        event: group(event, hook_command(hook.verb))
        for event, hook in HOOKS.items()
        if prompt_recall or event != OPT_IN
    }


def plugin_hooks() -> dict[str, Any]:
    """The plugin's hooks/hooks.json: every event, `enyal` found on PATH."""
    return {
        "description": "Enyal: the brief, memories beside prompts, files and failures, and "
        "a digest of the session into the day's log; no LLM",
        "hooks": {e: [group(e, f"enyal hook {h.verb}")] for e, h in HOOKS.items()},
    }


def merged(data: dict[str, Any], groups: dict[str, dict[str, Any]], path: Path) -> dict[str, Any]:
    """`data` with Enyal's hooks as `groups` says, and every other hook kept in place."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ClientError(f"{path}: hooks is not an object; nothing was changed")
    for event, verb in EVENTS.items():
        entries = hooks.get(event, [])
        if not isinstance(entries, list):
            raise ClientError(f"{path}: hooks.{event} is not a list; nothing was changed")
        kept = []
        placed = False
        for group in entries:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h, verb) for h in inner):
                kept.append(group)
                continue
            others = [h for h in inner if not is_ours(h, verb)]
            if others:
                kept.append({**group, "hooks": others})
            if event in groups and not placed:  # ours goes back where it was
                kept.append(groups[event])
                placed = True
        if event in groups and not placed:
            kept.append(groups[event])
        if kept:
            hooks[event] = kept
        else:
            hooks.pop(event, None)
    if hooks:
        data["hooks"] = hooks
    else:
        data.pop("hooks", None)
    return data


def cmd_hooks(ctx: Context, a: Args) -> Result:
    path = settings_file()
    groups = wanted(a.prompt_recall)
    snippet = {"hooks": {event: [group] for event, group in groups.items()}}
    if a.print:
        text = f"# merge into {path}:\n{json.dumps(snippet, indent=2)}"
        text += "\n# or: enyal hooks install --client claude-code" + (
            " --prompt-recall" if a.prompt_recall else ""
        )
        return {"client": a.client, "file": str(path), "config": snippet}, text
    changed, backup = merge(path, lambda data: merged(data, groups, path))
    action = "updated" if changed else "unchanged"
    what = f"the Enyal hooks ({', '.join(groups)})"
    return installed(a.client, path, snippet, action, backup, what, "start a new session")


def register(reg: Registry) -> None:
    h = reg.verb(
        "hooks", "install the client hooks that inject memory and capture the session", cmd_hooks
    )
    h.add_argument("action", choices=("install",))
    h.add_argument("--client", choices=CLIENTS, required=True)
    h.add_argument(
        "--prompt-recall",
        action="store_true",
        help="also inject a budgeted recall for every prompt (UserPromptSubmit)",
    )
    h.add_argument("--print", action="store_true", help="print the hooks; change nothing")

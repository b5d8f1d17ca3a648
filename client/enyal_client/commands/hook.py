"""`enyal hook EVENT`: what Claude Code runs for Enyal's hooks, one EVENT per hook event.

Each reads the hook's JSON from stdin and prints the hook JSON Claude Code reads: the
events that can take context (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse
and PostToolUseFailure, SubagentStart) put it in `hookSpecificOutput.additionalContext`;
the others act and print `{}` (PreCompact, Stop and SessionEnd write the session's
digest into the day's log; InstructionsLoaded and FileChanged re-index an instructions
file). A hook must never stand in the user's way: nothing here exits 2 (which would
block); a failure is exit 1, a non-blocking error Claude Code notes and moves past.
Nothing to say prints `{}`, as does an event config.toml's [hooks] turned off.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enyal_protocol import config
from enyal_protocol import wire as p

from ..params import call
from ..session_hooks import capture, inject
from ..transport import ClientError, Connection, RpcError
from . import contract as ct
from .base import Args, Context, Registry, Result, UsageError

# Claude Code's name of each event; the ones it takes additionalContext on.
EVENT = {
    "session-start": "SessionStart",
    "prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "subagent-start": "SubagentStart",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
    "instructions-loaded": "InstructionsLoaded",
    "file-changed": "FileChanged",
}
FAILURE_EVENT = "PostToolUseFailure"
INSTRUCTION_FILES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"})

Run = Callable[[Connection, dict[str, Any], str, str, int | None], str]


def _input() -> dict[str, Any]:
    try:
        data = json.loads(sys.stdin.read() or "{}")
    except json.JSONDecodeError as exc:
        raise ClientError(f"the hook input on stdin is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ClientError("the hook input on stdin is not a JSON object")
    return data


def _output(event: str, context: str) -> Result:
    if not context:
        return {}, "{}"
    out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return out, json.dumps(out, ensure_ascii=False)


def _event_name(event: str, data: dict[str, Any]) -> str:
    """The event the output answers: post-tool-use serves a failed command's
    PostToolUseFailure too (Claude Code's event for a command that exits non-zero)."""
    if event == "post-tool-use" and data.get("hook_event_name") == FAILURE_EVENT:
        return FAILURE_EVENT
    return EVENT[event]


def _capture(c: Connection, data: dict[str, Any], session: str, cwd: str, _: int | None) -> str:
    if session:  # without a session id a digest could not be kept from repeating
        capture.capture(c, data, session, cwd)
    return ""


def is_instructions(path: Path) -> bool:
    """CLAUDE.md, AGENTS.md, or a rule under .claude/rules/."""
    parts = path.parts
    in_rules = any(parts[i : i + 2] == (".claude", "rules") for i in range(len(parts) - 1))
    return path.name in INSTRUCTION_FILES or (in_rules and path.suffix in (".md", ".mdc"))


def _reindex(c: Connection, data: dict[str, Any], session: str, cwd: str, _: int | None) -> str:
    path = Path(cwd, inject.text_field(data, "file_path"))
    if is_instructions(path) and path.is_file():
        call(c, "index", {"paths": [str(path)], "cwd": cwd}, p.IndexResult)
    return ""


RUN: dict[str, Run] = {
    "session-start": inject.session_start,
    "prompt-submit": inject.prompt_submit,
    "pre-tool-use": inject.pre_tool_use,
    "post-tool-use": inject.post_tool_use,
    "subagent-start": inject.subagent_start,
    "pre-compact": _capture,
    "stop": _capture,
    "session-end": _capture,
    "instructions-loaded": _reindex,
    "file-changed": _reindex,
}


def cmd_hook(ctx: Context, a: Args) -> Result:
    try:
        data = _input()
        cwd = inject.text_field(data, "cwd")
        if not config.load().hook_enabled(a.event):  # off: not even a daemon is started
            return {}, "{}"
        session = data.get("session_id")
        session = session if isinstance(session, str) and 0 < len(session) <= 256 else ""
        context = RUN[a.event](ctx.connection(), data, session, cwd, a.budget_tokens)
        return _output(_event_name(a.event, data), context)
    except (UsageError, RpcError, config.ConfigError) as exc:  # exit 1, never 2: never block
        raise ClientError(str(exc)) from None


def register(reg: Registry) -> None:
    h = reg.verb(
        "hook",
        "run a client hook: read its JSON on stdin, print the hook JSON",
        cmd_hook,
    )
    h.add_argument("event", choices=tuple(EVENT))
    h.add_argument(
        "--budget-tokens",
        type=ct.number(p.BriefParams, "budget_tokens"),
        metavar="N",
        help="tokens of context (default: 1500 for the brief, 600 beside a prompt, "
        "400 about a file, 500 for a subagent or a failed command)",
    )

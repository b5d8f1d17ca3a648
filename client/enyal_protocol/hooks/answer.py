"""One hook event answered: Claude Code's hook JSON in, the hook JSON it reads out.

The events that can take context (SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse and PostToolUseFailure, SubagentStart) put it in
`hookSpecificOutput.additionalContext`; the others act and answer `{}` (PreCompact, Stop
and SessionEnd write the session's digest into the day's log; InstructionsLoaded and
FileChanged re-index an instructions file). Nothing to say is `{}`, as is an event
config.toml's [hooks] turned off: then the daemon is not even called.
"""

from __future__ import annotations

from enyal_protocol import config
from enyal_protocol.well_formed import well_formed

from . import inject

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from .caller import Caller

    Run = Callable[[Caller, dict[str, Any], str, str, int | None, config.Config], str]

# Enyal's name of each event (`enyal hook EVENT`) -> Claude Code's.
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
# In order: commands/hooks.py joins them into the FileChanged matcher.
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md", "CLAUDE.local.md")
RULES_FOLDER = (".claude", "rules")  # its *.md and *.mdc, at any depth
RULE_SUFFIXES = (".md", ".mdc")

# What each event reads of Claude Code's input besides session_id, cwd and
# hook_event_name: the fields an mcp_tool hook passes as `${field}` (it cannot pass the
# whole input; commands/hooks.py writes them, the MCP shim's enyal_hook takes them).
FIELDS = {
    "prompt-submit": ("prompt",),
    "pre-tool-use": ("tool_name", "tool_input"),
    "post-tool-use": ("tool_name", "tool_input", "tool_response", "error"),
    "subagent-start": ("agent_id", "agent_type"),
}
COMMON_FIELDS = ("session_id", "cwd", "hook_event_name")


def output(event: str, context: str) -> dict[str, Any]:
    if not context:
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}


def _event_name(event: str, data: dict[str, Any]) -> str:
    """The event the output answers: post-tool-use serves a failed command's
    PostToolUseFailure too (Claude Code's event for a command that exits non-zero)."""
    if event == "post-tool-use" and data.get("hook_event_name") == FAILURE_EVENT:
        return FAILURE_EVENT
    return EVENT[event]


def _capture(
    c: Caller, data: dict[str, Any], session: str, cwd: str, _: int | None, __: config.Config
) -> str:
    if session:  # without a session id a digest could not be kept from repeating
        # Imported here: the transcript reader is only for these background events, and
        # every `enyal hook prompt-submit` process would pay for it.
        from . import capture

        capture.capture(c, data, session, cwd)
    return ""


def is_instructions(path: Path) -> bool:
    """CLAUDE.md, AGENTS.md, or a rule under .claude/rules/."""
    parts = path.parts
    in_rules = any(parts[i : i + 2] == RULES_FOLDER for i in range(len(parts) - 1))
    return path.name in INSTRUCTION_FILES or (in_rules and path.suffix in RULE_SUFFIXES)


def _reindex(
    c: Caller, data: dict[str, Any], session: str, cwd: str, _: int | None, __: config.Config
) -> str:
    from pathlib import Path  # these two events' alone: pathlib is 17.7 M of a hook's start

    path = Path(cwd, inject.text_field(data, "file_path"))
    if is_instructions(path) and path.is_file():
        c.call("index", {"paths": [str(path)], "cwd": cwd})
    return ""


def _instructions_loaded(
    c: Caller,
    data: dict[str, Any],
    session: str,
    cwd: str,
    budget: int | None,
    settings: config.Config,
) -> str:
    """An instructions file re-indexed, and Claude Code's auto memory of the project
    imported again (enyal_protocol/automemory.py): both load as a session starts, so
    the plugin follows Claude's notes without a command. Unchanged files cost a stat."""
    _reindex(c, data, session, cwd, budget, settings)
    if cwd:
        from enyal_protocol import automemory  # this event's alone: git and project lookups

        project = automemory.project_of(cwd)
        folder = automemory.memory_dir(project)
        if folder.is_dir():
            c.call("index", automemory.index_params(folder, project, cwd))
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
    "instructions-loaded": _instructions_loaded,
    "file-changed": _reindex,
}


# The events whose input can tell from a field or two that the answer is `{}` with no
# daemon call (inject.py's own tests, read here, not repeated): the hosts that stay
# running (the MCP shim, the daemon's HTTP endpoint) answer those where they read the
# request, without handing it to a thread that may wait on the daemon. A PreToolUse of
# a tool that touches no file and a PostToolUse of a tool other than Bash are most of a
# session's hook events (one before and one after every tool call).
ALONE: dict[str, Callable[[dict[str, Any]], bool]] = {
    "pre-tool-use": lambda data: inject.touched_file(data) is None,
    "post-tool-use": lambda data: not inject.ran_command(data),
}


def answered_alone(event: str, data: dict[str, Any]) -> bool:
    """Whether `answer` gives this event `{}` without calling the daemon, as told from the
    input alone (an event turned off is too, but that reads config.toml: not here)."""
    test = ALONE.get(event)
    return test is not None and test(data)


def answer(
    c: Caller, event: str, data: dict[str, Any], budget: int | None = None
) -> dict[str, Any]:
    """The hook JSON for `event` (a key of EVENT) given Claude Code's input `data`.
    Raises HookInputError for input the event cannot use, ConfigError for a bad
    config.toml, and whatever `c` raises for a daemon that refuses."""
    settings = config.current()  # once per event: the switch, and the recall floors
    if not settings.hook_enabled(event):  # off: the input is not even read
        return {}
    data = well_formed(data)  # a lone surrogate would fail every call to the daemon
    cwd = inject.text_field(data, "cwd")
    session = data.get("session_id")
    session = session if isinstance(session, str) and 0 < len(session) <= 256 else ""
    return output(_event_name(event, data), RUN[event](c, data, session, cwd, budget, settings))

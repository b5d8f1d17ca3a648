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

from enyal_protocol import config
from enyal_protocol.hooks.answer import COMMON_FIELDS, FIELDS
from enyal_protocol.hooks.token import hook_token, token_file
from enyal_protocol.paths import resolve

from ..mcp.hook_tool import NAME as HOOK_TOOL
from ..transport import ClientError
from .base import Args, Context, Registry, Result, UsageError
from .mcp_config import PASSED_ENV, config_file, installed, merge

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
    if not isinstance(hook, dict):
        return False
    command, url, args = hook.get("command"), hook.get("url"), hook.get("input")
    return (
        (isinstance(command, str) and command.endswith(f" hook {verb}"))
        or (isinstance(url, str) and url.endswith(f"{HTTP_PATH}{verb}"))
        or (hook.get("tool") == HOOK_TOOL and isinstance(args, dict) and args.get("event") == verb)
    )


# How a hook reaches Enyal (docs/ARCHITECTURE.md, "Hooks and what they cost"):
#   command  a process per event (`enyal hook VERB`): works everywhere, costs a start;
#   mcp      Claude Code's `type: "mcp_tool"` hook, answered by the enyal-mcp already
#            connected to the session: no process. Only for the events FIELDS lists: not
#            SessionStart (Claude Code fires it while MCP servers are still connecting,
#            so the call would fail with "not connected" and the brief would be lost),
#            not SessionEnd (servers are closing) and not the background ones (an
#            mcp_tool hook cannot be `async`, and capture must not hold up a turn);
#   http     Claude Code's `type: "http"` hook, POSTed to the daemon's loopback endpoint
#            ([hooks] http = true): no process either, for the same events.
VIAS = ("auto", "command", "mcp", "http")
# A plugin's MCP server is named plugin:<plugin>:<server> in Claude Code (2.1.197).
PLUGIN_SERVER = "plugin:enyal:enyal"
HTTP_PATH = "/hook/"
TOKEN_VAR = "ENYAL_HOOK_TOKEN"  # the header's token, from Claude Code's environment


def mcp_input(verb: str) -> dict[str, str]:
    """The enyal_hook tool's arguments: the fields the event reads, as `${field}`."""
    return {"event": verb, **{f: f"${{{f}}}" for f in (*COMMON_FIELDS, *FIELDS[verb])}}


def group(
    event: str, command: str, via: str = "command", server: str = PLUGIN_SERVER
) -> dict[str, Any]:
    hook = HOOKS[event]
    entry: dict[str, Any]
    if via == "mcp" and hook.verb in FIELDS:
        entry = {"type": "mcp_tool", "server": server, "tool": HOOK_TOOL}
        entry |= {"input": mcp_input(hook.verb), "timeout": hook.timeout}
    elif via == "http" and hook.verb in FIELDS:
        port = config.load().hook_http_port
        entry = {"type": "http", "url": f"http://127.0.0.1:{port}{HTTP_PATH}{hook.verb}"}
        entry |= {"headers": {"Authorization": f"Bearer ${TOKEN_VAR}"}}
        entry |= {"allowedEnvVars": [TOKEN_VAR], "timeout": hook.timeout}
    else:
        entry = {"type": "command", "command": command, "timeout": hook.timeout}
        if hook.background:
            entry["async"] = True
    return {**({"matcher": hook.matcher} if hook.matcher else {}), "hooks": [entry]}


def mcp_server_installed(name: str) -> bool:
    """Whether Claude Code's user config has an MCP server `name` (enyal mcp config)."""
    try:
        servers = json.loads(config_file("claude-code").read_text()).get("mcpServers")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(servers, dict) and name in servers


def wanted(
    prompt_recall: bool, via: str = "command", server: str = "enyal"
) -> dict[str, dict[str, Any]]:
    return {
        event: group(event, hook_command(hook.verb), via, server)
        for event, hook in HOOKS.items()
        if prompt_recall or event != OPT_IN
    }


def plugin_hooks() -> dict[str, Any]:
    """The plugin's hooks/hooks.json: every event, the frequent ones through the
    plugin's own enyal-mcp, the rest `enyal` found on PATH."""
    return {
        "description": "Enyal: the brief, memories beside prompts, files and failures, and "
        "a digest of the session into the day's log; no LLM",
        "hooks": {e: [group(e, f"enyal hook {h.verb}", "mcp")] for e, h in HOOKS.items()},
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
    if a.action == "token":  # what Claude Code's http hooks send (--via http)
        paths = resolve()
        token = hook_token(paths)
        return {"token": token, "file": str(token_file(paths)), "variable": TOKEN_VAR}, token
    if a.client is None:
        raise UsageError("hooks install needs --client")
    path = settings_file()
    via = a.via
    if via == "auto":  # no process where the session's enyal-mcp can answer
        via = "mcp" if mcp_server_installed(a.mcp_server) else "command"
    groups = wanted(a.prompt_recall, via, a.mcp_server)
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
    h.add_argument(
        "action", choices=("install", "token"), help="token: print the http hooks' token"
    )
    h.add_argument("--client", choices=CLIENTS)
    h.add_argument(
        "--prompt-recall",
        action="store_true",
        help="also inject a budgeted recall for every prompt (UserPromptSubmit)",
    )
    h.add_argument(
        "--via",
        choices=VIAS,
        default="auto",
        help="how the frequent events reach Enyal: mcp (the session's enyal-mcp, no "
        "process), http (the daemon's endpoint, [hooks] http = true and ENYAL_HOOK_TOKEN), "
        "command (a process each); auto: mcp when Claude Code has the MCP server, else command",
    )
    h.add_argument(
        "--mcp-server",
        default="enyal",
        help="the MCP server's name in Claude Code (default: enyal)",
    )
    h.add_argument("--print", action="store_true", help="print the hooks; change nothing")

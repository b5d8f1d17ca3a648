"""`enyal hooks install --client claude-code|claude|codex|cursor [--prompt-recall]
[--via auto|command|mcp|http] [--print]` and `enyal hooks token`: the hooks that hand
the agent its memory without being asked, and (Claude Code) capture its session.

Every event `enyal hook` answers is installed (HOOKS: which event, which matcher, which
timeout); UserPromptSubmit (a budgeted recall for every prompt) only with
--prompt-recall, as it runs before each prompt. The plugin's hooks.json (in
client/claude-code/hooks/) is the same table with a bare `enyal-hook` command (plugin_hooks;
a test keeps the file equal).
They are merged into ~/.claude/settings.json the way `enyal mcp config --install`
merges its entry (mcp_config.merge: the rest of the file kept, a backup first, an
unparsable file refused). A command hook is the `enyal-hook` launcher installed beside
the running `enyal` (`enyal hook` started without site: a third less per event), by its
absolute path as Claude Code's PATH may lack the venv; `enyal hook` where no launcher is
installed. Enyal's hooks are recognised by their command (`… enyal-hook session-start`,
`… hook stop`, …: both forms, so an older install is upgraded in place), URL or
enyal_hook tool, so installing again replaces them instead of adding twice, and
installing without --prompt-recall removes that one.

Codex (`$CODEX_HOME/hooks.json`, ~/.codex by default) takes Claude Code's shape and JSON,
for the events it has (CODEX_HOOKS). Cursor (`~/.cursor/hooks.json`) has a shape and JSON
of its own (CURSOR_HOOKS; `enyal hook … --client cursor` speaks it). Both are merged the
same way: the rest of the file kept, a backup first.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, NamedTuple

from enyal_protocol import config
from enyal_protocol.hooks.answer import (
    COMMON_FIELDS,
    FIELDS,
    INSTRUCTION_FILES,
    RULES_FOLDER,
)
from enyal_protocol.hooks.token import hook_token, token_file
from enyal_protocol.paths import resolve

from ..mcp.hook_tool import NAME as HOOK_TOOL
from ..transport import ClientError
from .base import Args, Context, Registry, Result, UsageError
from .mcp_config import (
    CLAUDE_CODE,
    PASSED_ENV,
    beside,
    codex_home,
    config_file,
    installed,
    merge,
)

CLIENTS = (*CLAUDE_CODE, "codex", "cursor")


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
# Claude Code's FileChanged matcher is two things at once (2.1.197, read from its file
# watcher): each `|` part is a path it watches (under the session's cwd; a folder with
# everything below it), and the whole, as a regex, must be found in a changed file's NAME
# for the hook to run. So the instruction files, the rules folder (watched, but a rule's
# name `deploys.md` is not found by the parts before), and a last part that finds a
# rule's name: as a path it names no file, so it watches nothing more.
# RULE_SUFFIXES as one regex with no `|`, which would split it into two paths.
RULE_NAME = r"\.mdc?$"
FILE_CHANGED = "|".join((*INSTRUCTION_FILES, "/".join(RULES_FOLDER), RULE_NAME))
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
    "FileChanged": Hook("file-changed", FILE_CHANGED, 60, background=True),
}
OPT_IN = "UserPromptSubmit"  # before every prompt: only with --prompt-recall
# Codex's hooks get Claude Code's input and read its hookSpecificOutput, for the events
# it has. Not PreToolUse: Codex edits files by patch (apply_patch), with no file_path
# to look up. Not the capture (PreCompact, Stop): its transcript is not Claude Code's.
CODEX_HOOKS: dict[str, Hook] = {
    "SessionStart": Hook("session-start", "startup|clear", 15),  # Codex has no compact source
    "UserPromptSubmit": HOOKS["UserPromptSubmit"],
    "PostToolUse": HOOKS["PostToolUse"],
    "SubagentStart": HOOKS["SubagentStart"],
}
# Cursor's only event whose output an agent reads as context (`additional_context`).
CURSOR_HOOKS: dict[str, Hook] = {"sessionStart": HOOKS["SessionStart"]._replace(matcher=None)}


def table(client: str) -> dict[str, Hook]:
    return {"codex": CODEX_HOOKS, "cursor": CURSOR_HOOKS}.get(client, HOOKS)


def settings_file(client: str = "claude-code") -> Path:
    if client == "codex":
        return codex_home() / "hooks.json"
    if client == "cursor":
        return Path.home() / ".cursor" / "hooks.json"
    return Path.home() / ".claude" / "settings.json"


def hook_verb(client: str, verb: str) -> str:
    """How a hook command ends: `hook VERB`, and Cursor's JSON asked for."""
    return f"hook {verb} --client cursor" if client == "cursor" else f"hook {verb}"


LAUNCHER = "enyal-hook"  # client/scripts/enyal-hook: `enyal hook` without site


def enyal_command() -> list[str]:
    enyal = beside("enyal")
    return [str(enyal)] if enyal else [sys.executable, "-m", "enyal_client.cli"]


def hook_command(verb: str, client: str = "claude-code") -> str:
    """The command a hook runs: the launcher where it is installed (its words are
    `hook_verb`'s without the leading `hook`), else `enyal hook`."""
    env = [f"{k}={shlex.quote(os.environ[k])}" for k in PASSED_ENV if os.environ.get(k)]
    launcher = beside(LAUNCHER)
    words = hook_verb(client, verb).split()
    if launcher:
        return " ".join([*env, shlex.join([str(launcher), *words[1:]])])
    return " ".join([*env, shlex.join(enyal_command()), *words])


def command_form(command: str, verb: str, client: str = "claude-code") -> str | None:
    """Which of Enyal's forms a hook command is: "launcher" (`…/enyal-hook VERB`),
    "console" (`… enyal hook VERB`, how installs before the launcher wrote it), with
    the client's flags after either; None when it is no hook of Enyal's for VERB."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    tail = hook_verb(client, verb).split()  # ["hook", VERB, ...]
    if len(words) < len(tail) or words[-len(tail) + 1 :] != tail[1:]:
        return None
    head = words[-len(tail)]
    if head.rsplit("/", 1)[-1] == LAUNCHER:
        return "launcher"
    return "console" if head == "hook" and len(words) > len(tail) else None


def is_ours(hook: Any, verb: str, client: str = "claude-code") -> bool:
    if not isinstance(hook, dict):
        return False
    command, url, args = hook.get("command"), hook.get("url"), hook.get("input")
    return (
        (isinstance(command, str) and command_form(command, verb, client) is not None)
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
    event: str,
    command: str,
    via: str = "command",
    server: str = PLUGIN_SERVER,
    hooks: dict[str, Hook] = HOOKS,
) -> dict[str, Any]:
    hook = hooks[event]
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
    prompt_recall: bool, via: str = "command", server: str = "enyal", client: str = "claude-code"
) -> dict[str, dict[str, Any]]:
    hooks = table(client)
    out = {
        event: group(event, hook_command(hook.verb, client), via, server, hooks)
        for event, hook in hooks.items()
        if prompt_recall or event != OPT_IN
    }
    if client == "cursor":  # Cursor's entries are bare commands, no matcher group
        return {event: {"command": g["hooks"][0]["command"]} for event, g in out.items()}
    return out


def plugin_hooks() -> dict[str, Any]:
    """The plugin's hooks/hooks.json: every event, the frequent ones through the
    plugin's own enyal-mcp, the rest `enyal-hook` found on PATH (`enyal hook` started
    without site: client/scripts/enyal-hook, installed beside `enyal`)."""
    return {
        "description": "Enyal: the brief, memories beside prompts, files and failures, and "
        "a digest of the session into the day's log; no LLM",
        "hooks": {e: [group(e, f"{LAUNCHER} {h.verb}", "mcp")] for e, h in HOOKS.items()},
    }


def merged(
    data: dict[str, Any],
    groups: dict[str, dict[str, Any]],
    path: Path,
    client: str = "claude-code",
) -> dict[str, Any]:
    """`data` with Enyal's hooks as `groups` says, and every other hook kept in place."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ClientError(f"{path}: hooks is not an object; nothing was changed")
    flat = client == "cursor"  # an entry is the hook itself, not a group of them
    for event, hook in table(client).items():
        verb = hook.verb
        entries = hooks.get(event, [])
        if not isinstance(entries, list):
            raise ClientError(f"{path}: hooks.{event} is not a list; nothing was changed")
        kept = []
        placed = False
        for group in entries:
            inner = [group] if flat else group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h, verb, client) for h in inner):
                kept.append(group)
                continue
            others = [h for h in inner if not is_ours(h, verb, client)]
            if others and not flat:
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
    if flat and hooks:
        data.setdefault("version", 1)  # Cursor's file format
    return data


class Installed(NamedTuple):
    """Enyal's command hooks found in a client's file, by form (`enyal doctor`)."""

    launcher: int  # `…/enyal-hook VERB`
    console: int  # `… enyal hook VERB`: started with site, a third more a hook
    prompt_recall: bool  # UserPromptSubmit among them: a reinstall needs --prompt-recall


def installed_hooks(client: str) -> Installed:
    try:
        hooks = json.loads(settings_file(client).read_text()).get("hooks")
    except (OSError, ValueError, AttributeError):
        hooks = None
    launcher = console = 0
    prompt = False
    for event, hook in table(client).items():
        entries = hooks.get(event) if isinstance(hooks, dict) else None
        for group in entries if isinstance(entries, list) else ():
            flat = client == "cursor"  # an entry is the hook itself, as merged() reads it
            inner = [group] if flat else group.get("hooks") if isinstance(group, dict) else None
            for h in inner if isinstance(inner, list) else ():
                command = h.get("command") if isinstance(h, dict) else None
                if not isinstance(command, str):
                    continue
                form = command_form(command, hook.verb, client)
                launcher += form == "launcher"
                console += form == "console"
                prompt = prompt or (form is not None and event == OPT_IN)
    return Installed(launcher, console, prompt)


# How each client picks new hooks up.
THEN = {
    "codex": "trust them in Codex (it asks for new hooks) and start a new session",
    "cursor": "restart Cursor",
}


def cmd_hooks(ctx: Context, a: Args) -> Result:
    if a.action == "token":  # what Claude Code's http hooks send (--via http)
        paths = resolve()
        token = hook_token(paths)
        return {"token": token, "file": str(token_file(paths)), "variable": TOKEN_VAR}, token
    if a.client is None:
        raise UsageError("hooks install needs --client")
    path = settings_file(a.client)
    via = a.via
    if a.client not in CLAUDE_CODE:  # Codex and Cursor hooks are commands
        via = "command"
    elif via == "auto":  # no process where the session's enyal-mcp can answer
        via = "mcp" if mcp_server_installed(a.mcp_server) else "command"
    groups = wanted(a.prompt_recall, via, a.mcp_server, a.client)
    snippet: dict[str, Any] = {"hooks": {event: [group] for event, group in groups.items()}}
    if a.client == "cursor":
        snippet = {"version": 1, **snippet}
    if a.print:
        text = f"# merge into {path}:\n{json.dumps(snippet, indent=2)}"
        text += f"\n# or: enyal hooks install --client {a.client}" + (
            " --prompt-recall" if a.prompt_recall else ""
        )
        return {"client": a.client, "file": str(path), "config": snippet}, text
    changed, backup = merge(path, lambda data: merged(data, groups, path, a.client))
    action = "updated" if changed else "unchanged"
    what = f"the Enyal hooks ({', '.join(groups)})"
    then = THEN.get(a.client, "start a new session")
    return installed(a.client, path, snippet, action, backup, what, then)


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

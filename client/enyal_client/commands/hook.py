"""`enyal hook EVENT`: what Claude Code runs for Enyal's command hooks, one EVENT per
hook event: the hook's JSON on stdin, the hook JSON Claude Code reads on stdout.

What each event does is enyal_protocol/hooks (answer.py), shared with the MCP shim's
enyal_hook tool and the daemon's HTTP endpoint; this is only the process around it.
A hook must never stand in the user's way: nothing here exits 2 (which would block); a
failure is exit 1, a non-blocking error Claude Code notes and moves past.

`--client cursor`: Cursor's JSON instead (its session id is `conversation_id`, its
folder the first of `workspace_roots`, and the context goes in `additional_context`).
Codex sends and reads Claude Code's, so it needs no flag.

It runs before every prompt, so `enyal hook EVENT` as Claude Code writes it has a path of
its own (run()): the console script (enyal_client/entry.py) comes here before argparse,
cli.py, the contract module or any other verb's module is imported (docs/ARCHITECTURE.md,
"Client start-up"). Everything else (--client, --budget-tokens, --json, -h, a wrong
event) takes cli.py's argparse path, so it reads and fails as every other verb does, but
with exit 1 (enyal_protocol/exits.py: a hook line another version wrote must not block).
"""

from __future__ import annotations

import sys

from enyal_protocol import config, lean_json
from enyal_protocol.exits import EXIT_HOOK_FAILED
from enyal_protocol.hooks.answer import EVENT, answer, is_instructions
from enyal_protocol.hooks.caller import HookInputError

from ..hook_rpc import HookConnection
from ..reach import ClientError

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:  # cli.py's types: msgspec and argparse stay out of run()'s process
    from typing import Any

    from .base import Args, Context, Registry, Result

__all__ = ["EVENT", "is_instructions", "register"]


def _input() -> dict[str, Any]:
    try:
        data = lean_json.loads(sys.stdin.read() or "{}")
    except ValueError as exc:  # json.JSONDecodeError is one
        raise ClientError(f"the hook input on stdin is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ClientError("the hook input on stdin is not a JSON object")
    return data


def from_cursor(data: dict[str, Any]) -> dict[str, Any]:
    """Cursor's hook input with the names Claude Code gives the same things."""
    roots = data.get("workspace_roots")
    first = roots[0] if isinstance(roots, list) and roots else None
    return {
        **data,
        "session_id": data.get("session_id") or data.get("conversation_id"),
        "cwd": data.get("cwd") or first,
    }


def to_cursor(out: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's hook output as Cursor reads it: the context alone."""
    context = out.get("hookSpecificOutput", {}).get("additionalContext")
    return {"additional_context": context} if context else {}


def _answer(event: str, budget: int | None, client: str) -> Result:
    """The hook JSON for one event. The daemon is reached over hook_rpc.py's connection
    (no msgspec), opened at its first call: an event turned off, one with nothing to
    ask, or input the event cannot use starts no daemon."""
    daemon = HookConnection()
    try:
        data = _input()
        if client == "cursor":
            data = from_cursor(data)
        out = answer(daemon, event, data, budget)
    except (HookInputError, config.ConfigError) as exc:
        raise ClientError(str(exc)) from None  # exit 1, never 2: never block
    except ClientError as exc:  # a refusal (RpcError) is exit 1 too, whatever its code
        raise ClientError(str(exc)) from None
    finally:
        daemon.close()
    if client == "cursor":
        out = to_cursor(out)
    return out, lean_json.dumps(out, ensure_ascii=False) if out else "{}"


def cmd_hook(ctx: Context, a: Args) -> Result:
    return _answer(a.event, a.budget_tokens, a.client)


def run(argv: list[str]) -> int | None:
    """`enyal hook EVENT` (argv: what follows `hook`) without argparse, answered as cli.py
    answers it: the hook JSON on stdout and exit 0, or the message on stderr and exit 1.
    None for any other command line: cli.py's parser takes it."""
    if len(argv) != 1 or argv[0] not in EVENT:
        return None
    try:
        _, text = _answer(argv[0], None, "claude-code")  # --client's default
    except BrokenPipeError:
        raise  # cli.main's: the reader went away, not a failure
    except (ClientError, OSError) as exc:
        print(f"enyal hook: {exc}", file=sys.stderr)
        return EXIT_HOOK_FAILED
    print(text)
    return 0


def register(reg: Registry) -> None:
    from enyal_protocol import wire as p

    from . import contract as ct  # argparse's path only: run() never loads it

    h = reg.verb(
        "hook",
        "run a client hook: read its JSON on stdin, print the hook JSON",
        cmd_hook,
    )
    h.add_argument("event", choices=tuple(EVENT))
    h.add_argument(
        "--client",
        choices=("claude-code", "cursor"),
        default="claude-code",
        help="whose hook JSON to read and print (Codex's is Claude Code's)",
    )
    h.add_argument(
        "--budget-tokens",
        type=ct.number(p.BriefParams, "budget_tokens"),
        metavar="N",
        help="tokens of context (default: 1500 for the brief, 600 beside a prompt, "
        "400 about a file, 500 for a subagent or a failed command)",
    )

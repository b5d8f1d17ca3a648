"""`enyal recall QUERY` on a plain command line, without argparse and msgspec (issue 30:
`enyal recall` within 3× a bare `python -c pass`; msgspec's import alone is 4.45×, and
argparse, the wire's Structs and the verb modules come on top: docs/ARCHITECTURE.md,
"Client start-up").

The console script (enyal_client/entry.py) sends `enyal recall` here first. What this
path reads: one query, --json (before or after the verb), --limit N, --asked-at DATE and
--all, each at most once. It sends what the full path (commands/memory.py cmd_recall)
sends for them, over hook_rpc.py's standard-library connection, and prints what the
full path prints: the text from recall_text.py, the one place both paths format hits
in; with --json the result as the daemon wrote it, which is what the full path's
msgspec writes again after decoding it (hook_rpc.member_text).

Anything else goes to cli.py's argparse path, so it reads and fails as every other
verb does: any other option or form (--limit=5, -q, --help, a second query), a query
or value that starts with '-', a limit that is not plain digits, no daemon on our
socket (the full path checks the command line before it starts one), and every
failure (the running daemon's refusal of a value, a bad config.toml), which the full
path then meets and reports itself: recall changes nothing when it fails, so asking
twice is harmless."""

from __future__ import annotations

import os
import sys

from enyal_protocol import config

from ..hook_rpc import HookConnection
from ..reach import ClientError
from .recall_text import hits_text

TYPE_CHECKING = False  # typing's own constant would import typing
if TYPE_CHECKING:
    from typing import Any

# The options with a value this path reads, and the param each fills.
VALUED = {"--limit": "limit", "--asked-at": "asked_at"}


def parse(argv: list[str]) -> tuple[str, dict[str, Any], set[str]] | None:
    """(query, the options' params, the flags given) of a command line this path reads,
    None for any other."""
    words = [w for w in argv if w != "--json"]
    if words[:1] != ["recall"]:
        return None
    query: str | None = None
    params: dict[str, Any] = {}
    flags = {"--json"} if len(words) < len(argv) else set()
    rest = iter(words[1:])
    for word in rest:
        if word in VALUED and VALUED[word] not in params:
            value = next(rest, "-")
            if value.startswith("-"):
                return None
            if word == "--limit":
                if not (value.isascii() and value.isdigit()):
                    return None
                params["limit"] = int(value)
            else:
                params[VALUED[word]] = value
        elif word == "--all" and word not in flags:
            flags.add(word)
        elif word.startswith("-") or query is not None:
            return None
        else:
            query = word
    return None if query is None else (query, params, flags)


def run(argv: list[str]) -> int | None:
    """`enyal recall` as cli.py answers it (argv: the whole command line after `enyal`):
    exit 0 with the hits on stdout. None for a command line or an outcome this path
    leaves to cli.py (the module's docstring)."""
    parsed = parse(argv)
    if parsed is None:
        return None
    query, options, flags = parsed
    # No daemon on our socket: cli.py's path finds or starts one, after checking the
    # command line, so that a value it refuses starts nothing.
    daemon = HookConnection(autostart=False)
    try:
        params = {"query": query, **options, **config.load().recall_floors("--all" in flags)}
        result, text = daemon.call_with_text("recall", params | {"cwd": os.getcwd()})
    except (ClientError, OSError, config.ConfigError):
        return None
    finally:
        daemon.close()
    if "--json" in flags:
        sys.stdout.buffer.write(text.encode() + b"\n")
    else:
        print(hits_text(result["results"], result.get("budget")))
    return 0

"""`enyal`: the command line. A thin client: it parses, calls the daemon, prints.

Exit codes: 0 ok, 1 an error from Enyal (message on stderr), 2 a usage error.
Every verb takes --json and then prints exactly one JSON document on stdout
(export without a file prints JSONL, one entry a line, which is its format).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import msgspec

from .commands import config, daemon, doctor, graph, logs, mcp_config, memory, model, service
from .commands.base import Context, Registry, UsageError
from .transport import ClientError, RpcError

VERB_MODULES = [
    memory,
    graph,
    daemon,
    model,
    service,
    doctor,
    config,
    logs,
    mcp_config,
]


def build_parser() -> tuple[argparse.ArgumentParser, Registry]:
    # --json is accepted before or after the verb; SUPPRESS keeps the verb's parser from
    # resetting a --json given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
    )
    parser = argparse.ArgumentParser(
        prog="enyal", description="Persistent memory for AI coding agents."
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    reg = Registry(sub, common)
    for module in VERB_MODULES:
        module.register(reg)
    return parser, reg


def _print_json(value: Any) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(value) + b"\n")
    sys.stdout.flush()


def _fail(args: argparse.Namespace, code: int | None, message: str) -> None:
    if args.json:
        _print_json({"error": {"code": code, "message": message}})
    print(f"enyal {args.verb}: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `enyal export | head`: the reader has what it wanted. Point stdout at /dev/null so
        # the interpreter's final flush does not fail a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    parser, reg = build_parser()
    args = parser.parse_args(argv)
    ctx = Context()
    try:
        result, text = reg.handlers[args.verb](ctx, args)
    except daemon.DaemonExit as exc:
        return exc.code
    except UsageError as exc:
        print(f"enyal {args.verb}: {exc}", file=sys.stderr)
        return 2
    except RpcError as exc:
        _fail(args, exc.code, exc.message)
        return 1
    except BrokenPipeError:
        raise
    except (ClientError, OSError) as exc:
        _fail(args, None, str(exc))
        return 1
    finally:
        ctx.close()
    if args.json:
        if result is not None:
            _print_json(result)
    elif text:
        print(text)
    failed = isinstance(result, dict) and bool(result.get("failed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

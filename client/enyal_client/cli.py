"""`enyal`: the command line. A thin client: it parses, calls the daemon, prints.

Exit codes: 0 ok, 1 an error from Enyal (message on stderr), 2 a usage error: one
argparse sees, one the protocol's types reject before anything is sent, or a value
the daemon refuses (-32602, -32002), each said in plain words; 3 done, but something
was left for a person to look at (`share --sync` with items to review; on stderr).
Every verb takes --json and then prints exactly one JSON document on stdout, errors
included ({"error": {code, message}}; code null for a usage error), usage errors
argparse finds too (export without a file prints JSONL, one entry a line, which is its
format; `watch`, a stream, prints one document a line). Ctrl-C: exit 130, a line on
stderr and nothing more on stdout (entry.py), but for the streams `watch` and `logs -f`,
which it ends (exit 0) once they stream.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, NoReturn

import msgspec

from enyal_protocol import __version__
from enyal_protocol.exits import EXIT_HOOK_FAILED, EXIT_USAGE

from .commands.base import Context, LeftForReview, Registry, UsageError
from .commands.daemon import DaemonExit
from .entry import reader_gone, requested_verb
from .interrupts import go
from .transport import ClientError, RpcError

# The module of each verb. A run imports only its verb's module (the others cost tens of
# milliseconds the user waits for); `enyal --help` and a mistyped verb import them all.
# tests/test_docs.py checks this table against what the modules register.
VERB_MODULES: dict[str, tuple[str, ...]] = {
    "memory": tuple(
        "remember recall list get update confirm release forget restore stats status".split()
    ),
    "transfer": ("import", "export", "backup"),
    "hygiene": ("scan",),
    "consolidate": ("consolidate",),
    "tasks": ("task",),
    "daylog": ("log",),
    "brief": ("brief",),
    "hooks": ("hooks",),
    "hook": ("hook",),
    "indexing": ("index",),
    "automemory": ("automemory",),
    "graph": tuple("link unlink edges traverse impact history health review analytics".split()),
    "daemon": ("daemon",),
    "model": ("model", "reindex"),
    "service": ("service",),
    "doctor": ("doctor",),
    "config": ("config",),
    "logs": ("logs",),
    "mcp_config": ("mcp",),
    "ui": ("ui",),
    "watch": ("watch",),
    "sharing": ("share", "unshare"),
    "hub": ("hub",),
}
MODULE_OF = {verb: module for module, verbs in VERB_MODULES.items() for verb in verbs}


class ArgsError(Exception):
    """A command line argparse refused: raised instead of its exit, so that --json can
    still print its one document (the error)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class HelpAsked(Exception):
    """-h/--help: its text is printed by _main, as a JSON document with --json."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgsError(self, message)

    def print_help(self, file: Any = None) -> NoReturn:  # only the help action calls it
        raise HelpAsked(self.format_help())


class _Version(argparse.Action):
    """`enyal --version`: answered before a verb is required."""

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise VersionAsked


class VersionAsked(Exception):
    pass


def build_parser(verb: str | None = None) -> tuple[argparse.ArgumentParser, Registry]:
    """The parser for `verb` alone if it is known, else for every verb."""
    # --json is accepted before or after the verb; SUPPRESS keeps the verb's parser from
    # resetting a --json given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
    )
    parser = _Parser(prog="enyal", description="Persistent memory for AI coding agents.")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the release")
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    reg = Registry(sub, common)
    modules = [MODULE_OF[verb]] if verb in MODULE_OF else list(VERB_MODULES)
    for name in modules:
        importlib.import_module(f"{__package__}.commands.{name}").register(reg)
    return parser, reg


def _print_json(value: Any) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(value) + b"\n")
    sys.stdout.flush()


def _fail(args: argparse.Namespace, code: int | None, message: str) -> None:
    if args.json:
        _print_json({"error": {"code": code, "message": message}})
    print(f"enyal {args.verb}: {message}", file=sys.stderr)


def _usage_exit(argv: list[str]) -> int:
    """The exit of a command line refused as asked: never 2 for `enyal hook` (exits.py)."""
    return EXIT_HOOK_FAILED if requested_verb(argv) == "hook" else EXIT_USAGE


def _wants_json(argv: list[str]) -> bool:
    """--json on a command line argparse could not read (the options before `--`)."""
    return "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv


def main(argv: list[str] | None = None) -> int:
    """entry.py's dispatch, for `python -m enyal_client.cli` and an install whose console
    script still names this function."""
    from .entry import main as dispatch

    return dispatch(argv)


def run(argv: list[str]) -> int:
    """A command line through argparse (entry.py sends every one here but `enyal hook`)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        return reader_gone()


def _main(argv: list[str] | None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    parser, reg = build_parser(requested_verb(args_in))
    go()  # every import this verb needs is done: Ctrl-C raises again (interrupts.py)
    try:
        args = parser.parse_args(args_in)
    except VersionAsked:
        if _wants_json(args_in):
            _print_json({"version": __version__})
        else:
            print(f"enyal {__version__}")
        return 0
    except HelpAsked as asked:
        if _wants_json(args_in):
            _print_json({"help": asked.text})
        else:
            sys.stdout.write(asked.text)
        return 0
    except ArgsError as exc:
        if _wants_json(args_in):
            _print_json({"error": {"code": None, "message": exc.message}})
        exc.parser.print_usage(sys.stderr)
        print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
        return _usage_exit(args_in)
    ctx = Context()
    left: LeftForReview | None = None
    try:
        result, text = reg.handlers[args.verb](ctx, args)
    except LeftForReview as exc:
        left, result, text = exc, exc.result, exc.text
    except DaemonExit as exc:
        return exc.code
    except UsageError as exc:
        _fail(args, None, str(exc))
        return _usage_exit(args_in)
    except RpcError as exc:
        _fail(args, exc.code, exc.message)
        return _usage_exit(args_in) if exc.usage else 1  # "you asked for what cannot be"
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
    if left is not None:
        print(f"enyal {args.verb}: {left.note}", file=sys.stderr)
        return left.code
    failed = isinstance(result, dict) and bool(result.get("failed"))  # import's lines
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

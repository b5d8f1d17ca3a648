"""python -m enyal_daemon: what `enyal daemon` runs (and what clients spawn); with a
tool's name first (`model`, `reindex`, `doctor`), the daemon-only work the CLI runs as a
subprocess instead (tools/), so that the client never imports this package."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TYPE_CHECKING

from enyal_protocol import config as enyal_config
from enyal_protocol import paths as enyal_paths
from enyal_protocol.exits import EXIT_ALREADY_RUNNING
from enyal_protocol.tools import TOOLS

from . import heap
from .errors import EnyalError

if TYPE_CHECKING:
    from .service.rules.clock import Clock


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (never) or more")
    return value


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in and args_in[0] in TOOLS:
        from .tools import entry

        return entry.main(args_in)
    return run_daemon(args_in)


def run_daemon(argv: list[str], clock: Clock | None = None) -> int:
    """clock: None, the system's. No argument, variable or file of a user's sets another:
    only a program that calls this function does (the tests' harness, scripts/harnesslib),
    so a daemon a user runs can never be told the wrong time by accident."""
    parser = argparse.ArgumentParser(
        prog="enyal daemon",
        description="Run the Enyal daemon.",
        epilog=f"`python -m enyal_daemon {{{','.join(TOOLS)}}} --help`: the daemon-only "
        "work the enyal CLI runs as a subprocess.",
    )
    parser.add_argument(
        "--log-file", action="store_true", help="log to the rotating file in the log dir"
    )
    parser.add_argument("--log-level", help="default: daemon.log_level in config.toml (INFO)")
    parser.add_argument(
        "--idle-timeout",
        type=_seconds,
        help="exit after this many seconds without a connection (0: never). Default: "
        "daemon.idle_timeout when a service manager's socket started us, else never",
    )
    args = parser.parse_args(argv)
    heap.limit_arenas()  # before any thread starts
    # Everything the daemon creates (database, WAL, logs) holds the user's memories.
    os.umask(0o077)
    paths = enyal_paths.resolve()
    try:
        cfg = enyal_config.load(paths)
    except enyal_config.ConfigError as exc:
        print(f"enyal daemon: {exc}", file=sys.stderr)
        return 1
    enyal_config.export_env(cfg)  # e.g. model.dir reaches the model locator as ENYAL_MODEL_DIR
    from .server import logs

    logs.setup(paths.log_file if args.log_file else None, args.log_level or cfg.log_level)
    if not args.log_file and os.environ.get("JOURNAL_STREAM"):
        # stderr goes to journald, which stamps every line with the time and our pid itself.
        for handler in logging.getLogger().handlers:
            handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    from .errors import AlreadyRunning
    from .server.daemon import main as run
    from .service.rules.clock import SYSTEM

    try:
        return run(paths, idle_timeout=args.idle_timeout, cfg=cfg, clock=clock or SYSTEM)
    except EnyalError as exc:
        logging.getLogger("enyal.daemon").error("%s", exc.message)
        if args.log_file:  # the log went to a file; the person at the terminal still hears why
            print(f"enyal daemon: {exc.message}", file=sys.stderr)
        return EXIT_ALREADY_RUNNING if isinstance(exc, AlreadyRunning) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Parse `python -m enyal_daemon <tool> ...`, run the job, write its one JSON document.

Errors are a ToolError on stdout and an exit code (enyal_protocol.tools), never text:
the client says them in its own voice, and --json callers of `enyal` get them as JSON.
"""

from __future__ import annotations

import argparse
import sys

import msgspec

from enyal_protocol.config import ConfigError
from enyal_protocol.exits import EXIT_ALREADY_RUNNING, EXIT_INTERRUPTED
from enyal_protocol.tools import EXIT_FAILED, LIFELINE_FLAG, ToolError

from ..errors import AlreadyRunning, EnyalError
from . import doctor, lifeline, model, reindex


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m enyal_daemon",
        description="Daemon-only work for the enyal CLI; each tool prints one JSON document.",
    )
    sub = parser.add_subparsers(dest="tool", required=True)
    for name, job in (("model", model), ("reindex", reindex), ("doctor", doctor)):
        p = sub.add_parser(name, help=job.HELP, description=job.HELP)
        p.add_argument(
            LIFELINE_FLAG, action="store_true", help="exit when stdin closes (set by enyal)"
        )
        job.arguments(p)
        p.set_defaults(job=job.run)
    return parser


def _write(doc: msgspec.Struct) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(doc) + b"\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.lifeline:
        lifeline.hold()
    try:
        result: msgspec.Struct = args.job(args)
    except AlreadyRunning as exc:
        _write(ToolError(exc.message))
        return EXIT_ALREADY_RUNNING
    except EnyalError as exc:
        _write(ToolError(exc.message))
        return EXIT_FAILED
    except ConfigError as exc:
        _write(ToolError(str(exc)))
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED  # a job with something to say about it has said it
    _write(result)
    return 0

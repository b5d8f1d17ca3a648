"""python -m enyal_daemon: what `enyal daemon` runs (and what clients spawn)."""

from __future__ import annotations

import argparse
import sys

from enyal_client import paths as enyal_paths

from .errors import EnyalError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="enyal daemon", description="Run the Enyal daemon.")
    parser.add_argument(
        "--log-file", action="store_true", help="log to the rotating file in the log dir"
    )
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    paths = enyal_paths.resolve()
    from .server import logs

    logs.setup(paths.log_file if args.log_file else None, args.log_level)
    from .server.daemon import main as run

    try:
        return run(paths)
    except EnyalError as exc:
        import logging

        logging.getLogger("enyal.daemon").error("%s", exc.message)
        if args.log_file:  # the log went to a file; the person at the terminal still hears why
            print(f"enyal daemon: {exc.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

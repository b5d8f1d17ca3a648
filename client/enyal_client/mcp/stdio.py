"""The MCP server on stdio, whole: its options, its log on stderr, and the loop that hands
each line of stdin to the server until stdin closes (shim.py starts it when the first
messages are not lean_start.py's)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import IO

from enyal_protocol import wire as p

from ..pool import Pool
from .server import Server
from .wire import LineReader, Oversized, Writer, lines


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="enyal-mcp",
        description="Enyal's MCP server on stdio. MCP clients start it; people rarely do.",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="what to log on stderr (default: WARNING)",
    )
    return parser.parse_args(argv)


def run(argv: list[str], stdin: LineReader, out: IO[bytes], negotiated: str | None) -> int:
    """Serve until stdin closes. `negotiated`: the version an initialize answered before
    (lean_start.py) settled, None if none was."""
    args = _parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level,
        format="enyal-mcp %(levelname)s %(name)s: %(message)s",
    )
    writer = Writer(out)
    server = Server(writer, Pool(), negotiated=negotiated)
    try:
        for line in lines(stdin):
            if isinstance(line, Oversized):  # answered under its id, so the client stops waiting
                writer.error(
                    line.request_id, p.TOO_LARGE, f"frame larger than {p.MAX_FRAME_BYTES} bytes"
                )
            else:
                server.handle(line)
            if server.client_gone:
                break
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0

"""The MCP server on stdio, whole: its options, its log on stderr, and the loop that hands
each line of stdin to the server until stdin closes (shim.py starts it when the first
messages are not lean_start.py's)."""

from __future__ import annotations

import argparse
import gc
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
    # What start-up built (the modules, the server) lives as long as the process: out of
    # the cyclic GC's sight from here on, as the daemon's (heap.freeze). A full collection
    # walked all of it (~18,000 objects: 2.8-18 ms at load 12, on whichever call's
    # allocation set it off, where a hook answered alone takes 0.15 ms); after the freeze
    # it walks what calls have kept since (under 0.1 ms). Not collected first: that would
    # cost the first call that loads the server those milliseconds, and import leaves
    # next to no garbage to freeze.
    gc.freeze()
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

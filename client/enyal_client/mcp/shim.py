"""`enyal-mcp`: Enyal as an MCP server on stdio, forwarding tool calls to the daemon.

An MCP client starts it as a subprocess: JSON-RPC messages a line each on
stdin and stdout, logs on stderr, exit 0 when stdin closes. It is a thin
client: it imports msgspec and the standard library, never the engine, so it
answers initialize in milliseconds; the daemon (started on the first tool
call if none runs) holds the model and the database.
"""

from __future__ import annotations

import argparse
import logging
import sys

from enyal_protocol import wire as p

from ..pool import Pool
from .server import Server
from .wire import Oversized, Writer, lines


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
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


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level,
        format="enyal-mcp %(levelname)s %(name)s: %(message)s",
    )
    out = sys.stdout.buffer
    # stdout is the MCP stream: a stray print anywhere must land on stderr instead.
    sys.stdout = sys.stderr
    writer = Writer(out)
    server = Server(writer, Pool())
    try:
        for line in lines(sys.stdin.buffer):
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


if __name__ == "__main__":
    sys.exit(main())

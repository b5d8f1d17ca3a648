"""`enyal-mcp`: Enyal as an MCP server on stdio, forwarding tool calls to the daemon.

An MCP client starts it as a subprocess: JSON-RPC messages a line each on
stdin and stdout, logs on stderr, exit 0 when stdin closes. It is a thin
client: it imports msgspec and the standard library, never the engine; the
daemon (started on the first tool call if none runs) holds the model and the
database. The session's first messages (initialize, a recall) are answered
before even msgspec is loaded (lean_start.py); the first other one loads the
server (stdio.py), which reads the rest.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out, stdin = sys.stdout.buffer, sys.stdin.buffer
    # stdout is the MCP stream: a stray print anywhere must land on stderr instead.
    sys.stdout = sys.stderr
    negotiated = None
    reader = stdin
    if not args:  # an option (--log-level, --help) is the server's to read
        from .lean_start import serve

        try:
            handover = serve(stdin, out)
        except KeyboardInterrupt:
            return 0
        if handover is None:  # stdin closed, or stdout did
            return 0
        negotiated, reader = handover.negotiated, handover.stream
    try:
        # msgspec's _core imports datetime's C API without checking that import: a SIGINT
        # landing inside it (a terminal's Ctrl-C reaches the host's whole process group)
        # leaves msgspec importable but broken, its first Decoder reading through NULL
        # (SIGSEGV; enyal_client/interrupts.py). Imported first, it is a plain interrupt.
        import datetime  # noqa: F401

        from .stdio import run
    except KeyboardInterrupt:
        return 0
    return run(args, reader, out, negotiated)


if __name__ == "__main__":
    sys.exit(main())

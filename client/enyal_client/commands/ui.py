"""`enyal ui`: serve the local web view until Ctrl-C or SIGTERM (enyal_client/ui/)."""

from __future__ import annotations

import argparse
import os
import sys

import msgspec

from .base import Args, Context, Registry, Result


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("must be 0-65535")
    return port


def _can_show_a_browser() -> bool:
    graphical = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return sys.stdout.isatty() and (graphical or sys.platform == "darwin")


def cmd_ui(ctx: Context, a: Args) -> Result:
    from ..ui.server import run  # http.server costs the other verbs nothing this way

    def announce(url: str) -> None:
        if a.json:
            sys.stdout.buffer.write(msgspec.json.encode({"url": url}) + b"\n")
        else:
            print(f"enyal ui: {url}", flush=True)
            print("(this address carries a token for this run; Ctrl-C stops)", file=sys.stderr)
        sys.stdout.flush()

    opening = _can_show_a_browser() if a.open is None else a.open
    run(a.port, announce, open_browser=opening)
    print("enyal ui: stopped", file=sys.stderr)
    return None, ""


def register(reg: Registry) -> None:
    u = reg.verb(
        "ui",
        "a local web page onto your memory: search, a memory's history and links, the graph, "
        "health (127.0.0.1 only, with a per-run token)",
        cmd_ui,
    )
    u.add_argument("--port", type=_port, default=0, help="default: a free one")
    u.add_argument(
        "--open",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="open it in a browser (default: when run in a terminal with a display)",
    )

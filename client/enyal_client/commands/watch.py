"""`enyal watch`: changes to memories as they happen, from a subscription on the daemon's
socket (`subscribe`), a line each (or a JSON document each with --json) until Ctrl-C."""

from __future__ import annotations

import os
import sys

import msgspec

from enyal_protocol import wire as p

from ..transport import DaemonUnavailable
from . import contract as ct
from .base import Args, Context, Registry, Result, drop_none

FLAGS = {
    "scope": "--scope",
    "scope_path": "--scope-path",
    "under": "--under",
    "content_types": "--type",
}

_change = msgspec.json.Decoder(p.Change)
_resync = msgspec.json.Decoder(p.Resync)
_encoder = msgspec.json.Encoder()


def change_line(c: p.Change) -> str:
    where = c.scope_level + (f" {c.scope_path}" if c.scope_path else "")
    edge = f" ({c.edge_type})" if c.edge_type else ""
    return f"{c.at}  {c.kind}{edge}  {c.content_type}  {c.id}  [{where}]"


def cmd_watch(ctx: Context, a: Args) -> Result:
    params = drop_none(
        {
            "scope": a.scope,
            "scope_path": a.scope_path,
            "under": a.under,
            "content_types": a.types or None,
            "cwd": os.getcwd(),
        }
    )
    c = ctx.connection()
    sub = ct.call(c, "subscribe", params, p.SubscribeResult, FLAGS)
    f = sub.filter
    shown = ", ".join(
        part
        for part in (
            f.scope and f"scope {f.scope}",
            f.scope_path and f"path {f.scope_path}",
            f.under and f"under {f.under}",
            f.content_types and f"types {' '.join(f.content_types)}",
        )
        if part
    )
    print(f"watching {shown or 'every memory'} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        for method, raw in c.notifications():
            if method == p.CHANGED:
                change = _change.decode(raw)
                out = _encoder.encode(change).decode() if a.json else change_line(change)
            elif method == p.RESYNC:
                lost = _resync.decode(raw)
                if a.json:
                    out = _encoder.encode({"resync": True, "dropped": lost.dropped}).decode()
                else:
                    out = f"resync: {lost.dropped} changes were dropped while this lagged"
            else:
                continue
            print(out, flush=True)
    except KeyboardInterrupt:
        return None, ""
    # The daemon hung up (stopped or restarted): changes from now on would go unseen.
    raise DaemonUnavailable("the daemon closed the connection")


def register(reg: Registry) -> None:
    w = reg.verb("watch", "print changes to memories as they happen (until Ctrl-C)", cmd_watch)
    w.add_argument(
        "--scope", choices=ct.choices(p.SubscribeParams, "scope"), help="only this scope"
    )
    w.add_argument("--scope-path", help="only memories stored at this path")
    w.add_argument("--under", help="only memories stored at this folder or inside it")
    w.add_argument(
        "--type",
        dest="types",
        action="append",
        choices=p.ALL_TYPES,
        help="only this type (repeatable)",
    )

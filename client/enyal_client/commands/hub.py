"""`enyal hub init|join|rule|status`: this home as a replica of a team hub (issue 28)."""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, UsageError, on_daemon

FLAGS = {"url": "URL", "space": "SPACE", "project": "PROJECT", "role": "ROLE"}


def status_lines(s: p.HubStatusResult) -> list[str]:
    """The hub's state in a few lines (`hub status`, and `doctor`)."""
    if not s.configured:
        return ["hub: none (`enyal hub init URL` to share memories through a team hub)"]
    lag = "unknown (hub not reached yet)" if s.lag is None else str(s.lag)
    lines = [
        f"hub: {s.url} ({'connected' if s.connected else 'not connected'}), device {s.device}",
        f"  spaces: {', '.join(f'{x.space} ({x.memories})' for x in s.spaces) or 'none'}",
        f"  lag: {lag}, outbox: {s.outbox}, conflicts: {s.conflicts}, refused: {s.refused}",
        f"  last push: {s.last_push or 'never'}, last pull: {s.last_pull or 'never'}",
    ]
    if s.psycopg is not None:
        lines.append(f"  psycopg: {s.psycopg} build")
    lines += [f"  rule: {k} -> {v}" for k, v in s.rules.items()]
    if s.last_error:
        lines.append(
            f"  last error: {s.last_error}" + (f" at {s.last_error_at}" if s.last_error_at else "")
        )
    return lines


def cmd_hub(c: Connection, a: Args) -> Result:
    if a.action == "init":
        r = ct.call(c, "hub.init", {"url": a.url}, p.HubInitResult, FLAGS)
        return r, f"hub recorded: {r.url} (schema {r.schema_version}); this device: {r.device}"
    if a.action == "join":
        j = ct.call(c, "hub.join", {"space": a.space}, p.HubJoinResult, FLAGS)
        return j, f"{'joined' if j.changed else 'already a member of'} space {j.space}"
    if a.action == "invite":
        iv = ct.call(c, "hub.invite", {"space": a.space, "role": a.role}, p.HubInviteResult, FLAGS)
        return iv, f"{iv.role} may join space {iv.space} now (`enyal hub join {iv.space}`)"
    if a.action == "rule" and a.remove:
        if a.space is not None:
            raise UsageError("--remove takes the project alone, not a space")
        gone = {"cwd": os.getcwd(), **({"project": a.project} if a.project else {})}
        ur = ct.call(c, "hub.unrule", gone, p.HubUnruleResult, FLAGS)
        return ur, f"rule removed: memories of {ur.project} no longer join space {ur.space}"
    if a.action == "rule":
        if a.space is None:
            raise UsageError("give the project's folder and the space (or --remove PROJECT)")
        params = {"space": a.space, "cwd": os.getcwd()}
        if a.project is not None:
            params["project"] = a.project
        rr = ct.call(c, "hub.rule", params, p.HubRuleResult, FLAGS)
        return rr, f"memories of {rr.project} join space {rr.space} as they are written"
    s = ct.call(c, "hub.status", {}, p.HubStatusResult, FLAGS)
    return s, "\n".join(status_lines(s))


def register(reg: Registry) -> None:
    h = reg.verb("hub", "a team hub: init, join, invite, rule, status", on_daemon(cmd_hub))
    sub = h.add_subparsers(dest="action", required=True, metavar="ACTION")
    i = sub.add_parser(
        "init",
        help="record the hub (a PostgreSQL URL, no password) and create its schema",
        parents=[reg.common],
    )
    i.add_argument("url")
    j = sub.add_parser(
        "join", help="join a space: its memories replicate here", parents=[reg.common]
    )
    j.add_argument("space")
    iv = sub.add_parser("invite", help="let a teammate's role join SPACE", parents=[reg.common])
    iv.add_argument("space")
    iv.add_argument("role")
    r = sub.add_parser(
        "rule", help="a project's memories join SPACE as they are written", parents=[reg.common]
    )
    r.add_argument("project", help="a folder of the project (. for this one)")
    r.add_argument("space", nargs="?")
    r.add_argument(
        "--remove",
        action="store_true",
        help="remove the project's rule (PROJECT: a folder of it, or the rule as "
        "`enyal hub status` shows it, / too)",
    )
    sub.add_parser("status", help="spaces, lag, outbox, last error", parents=[reg.common])

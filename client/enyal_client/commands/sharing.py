"""The sharing verbs: share, unshare (a memory's file in the repository's `.enyal/`),
and `share --sync` / `share --rule` (read the folder now; set the project's rule)."""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, LeftForReview, Registry, Result, UsageError, on_daemon

FLAGS = {"id": "ID", "rule": "--rule", "path": "--path", "space": "--space"}
# `share --sync`'s exit when items wait for review: neither done (0) nor failed (1, 2).
EXIT_REVIEW = 3


def cmd_share(c: Connection, a: Args) -> Result:
    if a.space is not None:
        if a.id is None or a.sync or a.rule is not None:
            raise UsageError("--space takes the ID of a memory, and no --sync / --rule")
        rs = ct.call(c, "share", {"id": a.id, "space": a.space}, p.ShareResult, FLAGS)
        what = "shared" if rs.changed else "already shared"
        return rs, f"{what} {rs.id} into space {a.space} (through the team hub)"
    if a.id is not None:
        if a.sync or a.rule is not None:
            raise UsageError("give an ID, or --sync / --rule, not both")
        r = ct.call(c, "share", {"id": a.id, "cwd": os.getcwd()}, p.ShareResult, FLAGS)
        what = "shared" if r.changed else "already shared"
        return r, f"{what} {r.id}: {r.file} (commit it for the team)"
    if not a.sync and a.rule is None:
        raise UsageError("give the ID of a memory to share, or --sync, or --rule TYPES")
    params: dict[str, object] = {"cwd": os.getcwd()}
    if a.path is not None:
        params["path"] = a.path
    if a.rule is not None:
        params["rule"] = [t for t in a.rule.split(",") if t.strip()]
    r2 = ct.call(c, "share_sync", params, p.ShareSyncResult, FLAGS)
    lines = [
        f"{r2.root}/.enyal: {r2.added} added, {r2.updated} updated, {r2.forgotten} forgotten, "
        f"{r2.unchanged} unchanged, {r2.written} written",
        f"rule: {', '.join(r2.rule) or 'none (share memories one by one)'}",
    ]
    lines += [f"  needs a look: {x.file}: {x.reason}" for x in r2.problems]
    if r2.review:
        note = f"{r2.review} left for review in {r2.root}: enyal review --kind shared"
        raise LeftForReview(r2, "\n".join(lines), EXIT_REVIEW, note)
    return r2, "\n".join(lines)


def cmd_unshare(c: Connection, a: Args) -> Result:
    r = ct.call(c, "unshare", {"id": a.id}, p.ShareResult, FLAGS)
    if not r.changed:
        return r, f"{r.id} was not shared: nothing changed"
    return r, f"{r.id} no longer shared (the memory stays here; commit the file's removal)"


def register(reg: Registry) -> None:
    s = reg.verb(
        "share", "share a memory with the project (.enyal/ in the repository)", on_daemon(cmd_share)
    )
    s.add_argument("id", nargs="?")
    s.add_argument(
        "--sync",
        action="store_true",
        help="read this repository's .enyal/ now (and watch it); exits 3 when items are "
        "left for review (enyal review --kind shared)",
    )
    s.add_argument(
        "--rule",
        metavar="TYPES",
        help="share memories of these types as they are remembered, e.g. convention,decision "
        "('' for none)",
    )
    s.add_argument("--path", help="a folder in the repository (default: this one)")
    s.add_argument("--space", help="share it through the team hub into this space instead")
    u = reg.verb("unshare", "stop sharing a memory (its .enyal/ file goes)", on_daemon(cmd_unshare))
    u.add_argument("id")

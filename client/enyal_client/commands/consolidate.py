"""`enyal consolidate`: merge near-duplicate memories and remove expired ones, or (with
--dry-run) say what that would do. The wire's default is a dry run, so that an agent
must ask to merge; a person typing the verb means it, so the CLI sends dry_run itself."""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, drop_none, on_daemon

FLAGS = {"content_type": "--type"}


def _text(r: p.ConsolidateResult) -> str:
    lines = [
        f"{c.survivor[:8]} <- {', '.join(m[:8] for m in c.merged)}  "
        f"(similarity >= {c.similarity_min:.3f})"
        for c in r.clusters
    ]
    lines += [f"{x[:8]} stale: decayed and unused" for x in r.stale_forgotten]
    stale = len(r.stale_forgotten)
    if r.dry_run:
        lines.append(
            f"dry run, nothing changed: would merge {r.merged} entries into "
            f"{len(r.clusters)}, re-point {r.edges_repointed} edges, "
            f"remove {r.expired_removed} expired, forget {stale} stale"
        )
    else:
        lines.append(
            f"merged {r.merged} entries into {len(r.clusters)}, re-pointed "
            f"{r.edges_repointed} edges, removed {r.expired_removed} expired, "
            f"forgot {stale} stale"
            + (" (enyal restore ID brings one back)" if r.merged or stale else "")
        )
    return "\n".join(lines)


def cmd_consolidate(c: Connection, a: Args) -> Result:
    params = drop_none(
        {
            "scope": a.scope,
            "scope_path": a.scope_path,
            "content_type": a.type,
            "threshold": a.threshold,
            "limit": a.limit,
            "stale_below": a.stale_below,
            "stale_days": a.stale_days,
            "dry_run": a.dry_run,
            "cwd": os.getcwd(),
        }
    )
    r = ct.call(c, "consolidate", params, p.ConsolidateResult, FLAGS)
    return r, _text(r)


def register(reg: Registry) -> None:
    C = p.ConsolidateParams
    co = reg.verb(
        "consolidate",
        "merge near-duplicates, remove expired, forget stale memories (undo: enyal restore ID)",
        on_daemon(cmd_consolidate),
    )
    co.add_argument("--dry-run", action="store_true", help="say what would change; change nothing")
    co.add_argument(
        "--threshold",
        type=ct.number(C, "threshold", float),
        help="cosine similarity from which memories are duplicates (default 0.92)",
    )
    co.add_argument("--scope", choices=ct.choices(C, "scope"))
    co.add_argument("--scope-path", help="only entries stored under exactly this path")
    co.add_argument("--type", choices=ct.choices(C, "content_type"))
    co.add_argument("--limit", type=ct.number(C, "limit"), help="at most this many clusters")
    co.add_argument(
        "--stale-below",
        type=ct.number(C, "stale_below", float),
        help="forget entries decayed below this confidence and unused (default 0.1; 0: none)",
    )
    co.add_argument(
        "--stale-days", type=ct.number(C, "stale_days"), help="unused for this long (default 90)"
    )

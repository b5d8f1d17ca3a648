"""The graph and validity verbs: link, unlink, edges, traverse, impact, history, health,
review, analytics."""

from __future__ import annotations

from typing import Any

from enyal_protocol import wire as p

from ..transport import Connection
from .base import Args, Registry, Result, drop_none, on_daemon, unit


def _short(e: dict[str, Any]) -> str:
    text = e["content"] if len(e["content"]) <= 80 else e["content"][:77] + "..."
    return f"{e['id']}  {text}"


def _edge_text(e: dict[str, Any]) -> str:
    auto = " (auto)" if e["metadata"].get("auto_generated") else ""
    return (
        f"{e['source_id']} -{e['edge_type']}-> {e['target_id']}  "
        f"confidence {e['confidence']:.2f}{auto}"
    )


def cmd_link(c: Connection, a: Args) -> Result:
    r = c.call(
        "link",
        drop_none(
            {
                "source_id": a.source,
                "target_id": a.target,
                "edge_type": a.type,
                "confidence": a.confidence,
                "metadata": None,
            }
        ),
    )
    return r, f"linked {_edge_text(r)}"


def cmd_unlink(c: Connection, a: Args) -> Result:
    r = c.call("unlink", {"source_id": a.source, "target_id": a.target, "edge_type": a.type})
    return r, f"unlinked {_edge_text(r)}"


def cmd_edges(c: Connection, a: Args) -> Result:
    r = c.call("edges", drop_none({"id": a.id, "direction": a.direction, "edge_type": a.type}))
    return r, "\n".join(_edge_text(e) for e in r["edges"]) or "no edges"


def cmd_traverse(c: Connection, a: Args) -> Result:
    params = drop_none(
        {
            "id": a.id,
            "query": a.query,
            "direction": a.direction,
            "edge_types": a.type,
            "depth": a.depth,
        }
    )
    r = c.call("traverse", params)
    lines = [f"from {_short(r['start'])}"]
    for n in r["nodes"]:
        lines.append(
            f"{'  ' * n['depth']}[{n['depth']}] {n['via']['edge_type']}: {_short(n['entry'])}"
        )
    return r, "\n".join(lines)


def cmd_impact(c: Connection, a: Args) -> Result:
    r = c.call("impact", drop_none({"id": a.id, "depth": a.depth}))
    lines = [f"changing {_short(r['entry'])} affects:"]
    lines += [f"  directly    {_short(e)}" for e in r["direct"]]
    lines += [f"  via {n['depth']} hops  {_short(n['entry'])}" for n in r["transitive"]]
    lines += [f"  related     {_short(x['entry'])} ({x['confidence']:.2f})" for x in r["related"]]
    return r, "\n".join(lines) if len(lines) > 1 else lines[0] + " nothing"


def cmd_history(c: Connection, a: Args) -> Result:
    r = c.call("history", {"id": a.id})
    lines = [
        f"v{v['version']}  {v['changed_at']}  {v['change_type']:<9}  {v['content']}"
        for v in r["versions"]
    ]
    lines += [f"supersedes     {_short(e)}" for e in r["supersedes"]]
    lines += [f"superseded by  {_short(e)}" for e in r["superseded_by"]]
    return r, "\n".join(lines)


def cmd_health(c: Connection, a: Args) -> Result:
    r = c.call("health", drop_none({"stale_days": a.stale_days}))
    text = (
        f"health {r['health_score']:.2f}: {r['active_entries']} active of {r['total_entries']}; "
        f"{r['superseded_count']} superseded, {r['conflicts_count']} in conflict, "
        f"{r['stale_count']} stale, {r['orphan_count']} unlinked"
    )
    return r, text


def cmd_review(c: Connection, a: Args) -> Result:
    r = c.call("review", drop_none({"kind": a.kind, "stale_days": a.stale_days, "limit": a.limit}))
    lines = []
    for kind in ("stale", "orphan", "conflicted"):
        lines += [f"{kind:<10} {_short(e)}" for e in r[kind]]
    return r, "\n".join(lines) or "nothing to review"


def cmd_analytics(c: Connection, a: Args) -> Result:
    params = drop_none(
        {"entry_id": a.entry, "event_type": a.type, "days": a.days, "limit": a.limit}
    )
    r = c.call("analytics", params)
    s = r["summary"]
    lines = [
        f"{s['total_events']} events: " + ", ".join(f"{k} {v}" for k, v in s["by_type"].items())
    ]
    lines += [f"  {n:>5}  {entry}" for entry, n in list(s["by_entry"].items())[:10]]
    return r, "\n".join(lines)


def register(reg: Registry) -> None:
    for name, fn, help in (
        ("link", cmd_link, "link two entries (SOURCE -TYPE-> TARGET)"),
        ("unlink", cmd_unlink, "remove a link"),
    ):
        v = reg.verb(name, help, on_daemon(fn))
        v.add_argument("source")
        v.add_argument("target")
        v.add_argument("--type", required=True, choices=p.EDGE_TYPES)
        if name == "link":
            v.add_argument("--confidence", type=unit)

    e = reg.verb("edges", "an entry's links", on_daemon(cmd_edges))
    e.add_argument("id")
    e.add_argument("--direction", choices=("outgoing", "incoming", "both"))
    e.add_argument("--type", choices=p.EDGE_TYPES)

    t = reg.verb(
        "traverse",
        "walk the graph from an entry (or the best match of --query)",
        on_daemon(cmd_traverse),
    )
    t.add_argument("id", nargs="?")
    t.add_argument("--query")
    t.add_argument("--direction", choices=("outgoing", "incoming", "both"))
    t.add_argument("--type", action="append", choices=p.EDGE_TYPES, help="repeatable")
    t.add_argument("--depth", type=int, help="1-4 (default 2)")

    i = reg.verb("impact", "what depends on an entry", on_daemon(cmd_impact))
    i.add_argument("id")
    i.add_argument("--depth", type=int, help="1-4 (default 4)")

    reg.verb(
        "history", "an entry's versions and supersession chain", on_daemon(cmd_history)
    ).add_argument("id")

    h = reg.verb(
        "health", "graph health: superseded, conflicts, stale, unlinked", on_daemon(cmd_health)
    )
    h.add_argument("--stale-days", type=int)

    r = reg.verb("review", "entries that need a look", on_daemon(cmd_review))
    r.add_argument("--kind", choices=("all", "stale", "orphan", "conflicted"))
    r.add_argument("--stale-days", type=int)
    r.add_argument("--limit", type=int)

    an = reg.verb("analytics", "usage events and summaries", on_daemon(cmd_analytics))
    an.add_argument("--entry")
    an.add_argument("--type", choices=("recall", "update", "link", "impact"))
    an.add_argument("--days", type=int)
    an.add_argument("--limit", type=int)

"""The graph and validity verbs: link, unlink, edges, traverse, impact, history, health,
review, analytics."""

from __future__ import annotations

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, drop_none, on_daemon
from .memory import shown

FLAGS = {
    "source_id": "SOURCE",
    "target_id": "TARGET",
    "edge_type": "--type",
    "edge_types": "--type",
    "id": "ID",
    "entry_id": "--entry",
    "event_type": "--type",
}
# The README's short spellings, accepted beside the protocol's.
DIRECTION_ALIASES = {"in": "incoming", "out": "outgoing"}


def _direction(value: str | None) -> str | None:
    return DIRECTION_ALIASES.get(value, value) if value is not None else None


def _short(e: p.Entry) -> str:
    # A forgotten link of a supersession chain stays in its history: said, so a reader
    # does not take it for a live memory (it supersedes nothing until restored).
    gone = "  (forgotten)" if e.is_deprecated else ""
    return f"{e.id}  {shown(e.content, 80)}{gone}"


def _edge_text(e: p.Edge) -> str:
    auto = " (auto)" if e.metadata.get("auto_generated") else ""
    return f"{e.source_id} -{e.edge_type}-> {e.target_id}  confidence {e.confidence:.2f}{auto}"


def cmd_link(c: Connection, a: Args) -> Result:
    params = drop_none(
        {
            "source_id": a.source,
            "target_id": a.target,
            "edge_type": a.type,
            "confidence": a.confidence,
        }
    )
    r = ct.call(c, "link", params, p.Edge, FLAGS)
    return r, f"linked {_edge_text(r)}"


def cmd_unlink(c: Connection, a: Args) -> Result:
    params = {"source_id": a.source, "target_id": a.target, "edge_type": a.type}
    r = ct.call(c, "unlink", params, p.Edge, FLAGS)
    return r, f"unlinked {_edge_text(r)}"


def cmd_edges(c: Connection, a: Args) -> Result:
    params = drop_none({"id": a.id, "direction": _direction(a.direction), "edge_type": a.type})
    r = ct.call(c, "edges", params, p.EdgesResult, FLAGS)
    return r, "\n".join(_edge_text(e) for e in r.edges) or "no edges"


def cmd_traverse(c: Connection, a: Args) -> Result:
    params = drop_none(
        {
            "id": a.id,
            "query": a.query,
            "direction": _direction(a.direction),
            "edge_types": a.type,
            "depth": a.depth,
        }
    )
    r = ct.call(c, "traverse", params, p.TraverseResult, FLAGS)
    lines = [f"from {_short(r.start)}"]
    lines += [f"{'  ' * n.depth}[{n.depth}] {n.via.edge_type}: {_short(n.entry)}" for n in r.nodes]
    return r, "\n".join(lines)


def cmd_impact(c: Connection, a: Args) -> Result:
    r = ct.call(c, "impact", drop_none({"id": a.id, "depth": a.depth}), p.ImpactResult, FLAGS)
    lines = [f"changing {_short(r.entry)} affects:"]
    lines += [f"  directly    {_short(e)}" for e in r.direct]
    lines += [f"  via {n.depth} hops  {_short(n.entry)}" for n in r.transitive]
    lines += [f"  related     {_short(x.entry)} ({x.confidence:.2f})" for x in r.related]
    return r, "\n".join(lines) if len(lines) > 1 else lines[0] + " nothing"


def _merge_note(v: p.Version) -> str:
    if v.merged_from:
        return f"  (merged {', '.join(i[:8] for i in v.merged_from)} into it)"
    if v.merged_into:
        return f"  (merged into {v.merged_into[:8]}; enyal restore brings it back)"
    return ""


def cmd_history(c: Connection, a: Args) -> Result:
    r = ct.call(c, "history", {"id": a.id}, p.HistoryResult, FLAGS)
    lines = [
        f"v{v.version}  {v.changed_at}  {v.change_type:<9}  "
        + (f"-> {v.status}  " if v.change_type == "status" else "")
        + shown(v.content, 120)
        + _merge_note(v)
        for v in r.versions
    ]
    lines += [f"supersedes     {_short(e)}" for e in r.supersedes]
    lines += [f"superseded by  {_short(e)}" for e in r.superseded_by]
    return r, "\n".join(lines)


def cmd_health(c: Connection, a: Args) -> Result:
    r = ct.call(c, "health", drop_none({"stale_days": a.stale_days}), p.Health, FLAGS)
    text = (
        f"health {r.health_score:.2f}: {r.active_entries} active of {r.total_entries}; "
        f"{r.superseded_count} superseded, {r.conflicts_count} in conflict, "
        f"{r.stale_count} stale, {r.orphan_count} unlinked"
    )
    return r, text


def cmd_review(c: Connection, a: Args) -> Result:
    params = drop_none({"kind": a.kind, "stale_days": a.stale_days, "limit": a.limit})
    r = ct.call(c, "review", params, p.ReviewResult, FLAGS)
    lines = [
        f"stale      {_short(e)}  ({', '.join(r.stale_reasons.get(e.id, [])).replace('_', ' ')})"
        for e in r.stale
    ]
    lines += [f"orphan     {_short(e)}" for e in r.orphan]
    lines += [f"conflicted {_short(e)}" for e in r.conflicted]
    lines += [f"quarantined {_short(e)}  ({e.quarantine_reason})" for e in r.quarantined]
    lines += [f"shared     {x.file}: {x.reason}" for x in r.shared]
    return r, "\n".join(lines) or "nothing to review"


def cmd_analytics(c: Connection, a: Args) -> Result:
    params = drop_none(
        {"entry_id": a.entry, "event_type": a.type, "days": a.days, "limit": a.limit}
    )
    r = ct.call(c, "analytics", params, p.AnalyticsResult, FLAGS)
    s = r.summary
    lines = [f"{s.total_events} events: " + ", ".join(f"{k} {v}" for k, v in s.by_type.items())]
    lines += [f"  {n:>5}  {entry}" for entry, n in list(s.by_entry.items())[:10]]
    return r, "\n".join(lines)


def register(reg: Registry) -> None:
    L, T = p.LinkParams, p.TraverseParams
    edge_types = ct.choices(L, "edge_type")
    directions = (*ct.choices(p.EdgesParams, "direction"), *DIRECTION_ALIASES)
    for name, fn, help in (
        ("link", cmd_link, "link two entries (SOURCE -TYPE-> TARGET)"),
        ("unlink", cmd_unlink, "remove a link"),
    ):
        v = reg.verb(name, help, on_daemon(fn))
        v.add_argument("source")
        v.add_argument("target")
        v.add_argument("--type", required=True, choices=edge_types)
        if name == "link":
            v.add_argument("--confidence", type=ct.number(L, "confidence", float))

    e = reg.verb("edges", "an entry's links", on_daemon(cmd_edges))
    e.add_argument("id")
    e.add_argument(
        "--direction", choices=directions, help="in and out are short for incoming, outgoing"
    )
    e.add_argument("--type", choices=edge_types)

    t = reg.verb(
        "traverse",
        "walk the graph from an entry (or the best match of --query)",
        on_daemon(cmd_traverse),
    )
    t.add_argument("id", nargs="?")
    t.add_argument("--query")
    t.add_argument("--direction", choices=directions)
    t.add_argument(
        "--type", action="append", choices=ct.choices(T, "edge_types"), help="repeatable"
    )
    t.add_argument("--depth", type=ct.number(T, "depth"), help="1-4 (default 2)")

    i = reg.verb("impact", "what depends on an entry", on_daemon(cmd_impact))
    i.add_argument("id")
    i.add_argument("--depth", type=ct.number(p.ImpactParams, "depth"), help="1-4 (default 4)")

    reg.verb(
        "history", "an entry's versions and supersession chain", on_daemon(cmd_history)
    ).add_argument("id")

    h = reg.verb(
        "health", "graph health: superseded, conflicts, stale, unlinked", on_daemon(cmd_health)
    )
    h.add_argument("--stale-days", type=ct.number(p.HealthParams, "stale_days"))

    R = p.ReviewParams
    r = reg.verb("review", "entries that need a look", on_daemon(cmd_review))
    r.add_argument("--kind", choices=ct.choices(R, "kind"))
    r.add_argument("--stale-days", type=ct.number(R, "stale_days"))
    r.add_argument("--limit", type=ct.number(R, "limit"))

    A = p.AnalyticsParams
    an = reg.verb("analytics", "usage events and summaries", on_daemon(cmd_analytics))
    an.add_argument("--entry")
    an.add_argument("--type", choices=ct.choices(A, "event_type"))
    an.add_argument("--days", type=ct.number(A, "days"))
    an.add_argument("--limit", type=ct.number(A, "limit"))

"""The memory verbs: remember, recall, get, update, forget, restore, stats, status.
Each is a thin translation from argv to one daemon call, checked and decoded through
the protocol's Structs (contract.py)."""

from __future__ import annotations

import argparse
import os
import sys

import msgspec

from enyal_protocol import config
from enyal_protocol import wire as p
from enyal_protocol.kinds import written_by

from ..transport import Connection
from . import contract as ct
from . import struct_flags as sf
from .base import Args, Registry, Result, UsageError, drop_none, on_daemon
from .hygiene import redacted_line
from .recall_text import hits_text, scope_of, source_note
from .recall_text import shown as shown  # graph.py's too

# The CLI's name for a param where it is not `--param-name`.
FLAGS = {
    "content": "content",
    "query": "query",
    "id": "ID",
    "content_type": "--type",
    "tags": "--tag",
    "dedup_threshold": "--threshold",
    "file_path": "--path",
}

# RememberParams fields `enyal remember` has no flag for: who writes and from where the
# CLI fills in itself; the auto-link threshold stays at the daemon's default.
REMEMBER_UNOFFERED = ("written_by", "cwd", "auto_link_threshold")
UPDATE_UNOFFERED = ("written_by",)  # filled in: the person at the command line


def where_pair(text: str) -> tuple[str, object]:
    """--where key=value: the value as JSON when it reads as a scalar (true, 3, 1.5),
    else as the string it is."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("must be key=value")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        value = raw
    if not isinstance(value, str | int | float | bool):
        value = raw
    return key, value


# --- text output ---------------------------------------------------------------------


def _scope(e: p.Entry) -> str:
    return scope_of(msgspec.to_builtins(e))


def entry_text(e: p.Entry) -> str:
    lines = [
        f"{e.id}  {e.content_type}  [{_scope(e)}]" + ("  (forgotten)" if e.is_deprecated else ""),
        f"  {e.content}",
        f"  confidence {e.confidence:.2f}  created {e.created_at}  updated {e.updated_at}",
    ]
    if e.importance != 3 or e.expires_at or e.confirm_count:
        extra = [f"importance {e.importance}"]
        extra += [f"expires {e.expires_at}"] if e.expires_at else []
        extra += (
            [f"confirmed {e.confirm_count}× (last {e.confirmed_at})"] if e.confirm_count else []
        )
        lines.append("  " + "  ".join(extra))
    if e.status:
        lines.append(f"  status: {e.status}" + (f"  due {e.due}" if e.due else ""))
    if e.tags:
        lines.append(f"  tags: {', '.join(e.tags)}")
    if e.written_by:
        lines.append(f"  written by: {written_by(e.written_by, e.metadata)}")
    if e.quarantined:
        lines.append(f"  quarantined: {e.quarantine_reason} (enyal release {e.id[:8]})")
    if e.source_type or e.source_ref:
        lines.append(f"  source: {e.source_type or '-'} {e.source_ref or ''}".rstrip())
    if note := source_note(msgspec.to_builtins(e)):
        lines.append(f"  {note}")
    if e.read_only is True:
        lines.append(f"  read-only: mirrors {e.indexed_from} (edit the file, then enyal index)")
    if e.metadata:
        lines.append(f"  metadata: {msgspec.json.encode(e.metadata).decode()}")
    return "\n".join(lines)


def _stats_text(s: p.Stats) -> str:
    def row(d: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items())

    return "\n".join(
        [
            f"entries: {s.total} ({s.active} active, {s.deprecated} forgotten)",
            f"by type: {row(s.by_type)}",
            f"by scope: {row(s.by_scope)}",
            f"confidence: {row(s.confidence)}",
            f"database: {s.db_bytes / 1e6:.1f} MB",
            f"oldest: {s.oldest or '-'}   newest: {s.newest or '-'}",
        ]
    )


REMEMBERED = {
    "created": "remembered",
    "existing": "already remembered",
    "rejected": "not stored: too similar to",
    "merged": "merged into",
    "stored": "remembered (a similar entry exists)",
}


# --- verbs -----------------------------------------------------------------------------


def cmd_remember(c: Connection, a: Args) -> Result:
    params = sf.params_of(a, p.RememberParams, REMEMBER_UNOFFERED)
    if params.get("content") == "-":  # the text on stdin, as `import -` reads its lines
        params["content"] = sys.stdin.read().strip()
        if not params["content"]:
            raise UsageError("remember -: nothing on stdin to remember")
    params.update(written_by="user", cwd=os.getcwd())
    r = ct.call(c, "remember", params, p.RememberResult, FLAGS)
    sim = f" (similarity {r.similarity:.3f})" if r.similarity is not None else ""
    lines = [f"{REMEMBERED[r.action]} {r.id}{sim}"]
    if r.redacted:
        lines.append(redacted_line(r.redacted))
    if r.entry.quarantined:
        lines.append(
            f"  quarantined ({r.entry.quarantine_reason}): it reads as an instruction to an "
            f"agent, so recall leaves it out; `enyal release {r.id[:8]}` if you meant it"
        )
    lines += [f"  linked: {e.edge_type} -> {e.target_id}" for e in r.edges]
    lines += [f"  may conflict with {x.id} ({x.reason}): {x.content}" for x in r.conflicts]
    lines += [
        f"  may supersede {x.id} ({x.similarity:.2f}): {x.content}" for x in r.supersedes_candidates
    ]
    return r, "\n".join(lines)


def cmd_recall(c: Connection, a: Args) -> Result:
    queries = ([a.query] if a.query is not None else []) + (a.queries or [])
    if not queries:
        raise UsageError("give a query (or several with -q)")
    common = {
        "limit": a.limit,
        "content_type": a.type,
        "min_confidence": a.min_confidence,
        "min_importance": a.min_importance,
        "where": dict(a.where) if a.where else None,
        **config.load().recall_floors(a.all),
        "budget_tokens": a.budget_tokens,
        "cwd": os.getcwd(),
    }
    if a.all_projects and (a.scope or a.scope_path or a.path):
        raise UsageError("--all-projects cannot be combined with --scope, --scope-path or --path")
    # Without a scope the daemon answers with what this folder sees (its project, workspace
    # and global memories); "all" is every project's.
    scope = "all" if a.all_projects else a.scope
    if len(queries) > 1:
        if a.path or a.include_deprecated or a.include_superseded or a.as_of or a.budget_tokens:
            raise UsageError(
                "several queries (-q) cannot be combined with --path, --include-deprecated, "
                "--include-superseded, --as-of or --budget-tokens"
            )
        params = drop_none(
            {
                **common,
                "budget_tokens": None,
                "queries": queries,
                "scope": scope,
                "scope_path": a.scope_path,
                "tags": a.tag or None,
                "asked_at": a.asked_at,
            }
        )
        batch = ct.call(c, "recall_batch", params, p.RecallBatchResult, FLAGS)
        text = "\n\n".join(
            f"# {q}\n{_text(r.results)}" for q, r in zip(queries, batch.results, strict=True)
        )
        return batch, text
    hits: list[p.Hit]
    common["query"] = queries[0]
    if a.path is not None:
        if (
            a.scope
            or a.scope_path
            or a.tag
            or a.include_deprecated
            or a.as_of
            or a.asked_at
            or a.where
        ):
            raise UsageError(
                "--path (scope-aware recall) cannot be combined with --scope, --scope-path, "
                "--tag, --where, --include-deprecated, --as-of or --asked-at"
            )
        params = drop_none({**common, "file_path": a.path, "where": None})
        by_scope = ct.call(c, "recall_by_scope", params, p.RecallByScopeResult, FLAGS)
        result: object = by_scope
        hits, budget = by_scope.results, by_scope.budget
    else:
        params = drop_none(
            {
                **common,
                "scope": scope,
                "scope_path": a.scope_path,
                "tags": a.tag or None,
                "include_deprecated": a.include_deprecated or None,
                "include_quarantined": a.include_quarantined or None,
                "exclude_superseded": False if a.include_superseded else None,
                "as_of": a.as_of,
                "asked_at": a.asked_at,
            }
        )
        plain = ct.call(c, "recall", params, p.RecallResult, FLAGS)
        result, hits, budget = plain, plain.results, plain.budget
    return result, _text(hits, budget)


def _text(hits: list[p.Hit], budget: p.Budget | None = None) -> str:
    """recall_text's, which reads the hits as the daemon's JSON objects."""
    return hits_text(msgspec.to_builtins(hits), msgspec.to_builtins(budget))


def cmd_list(c: Connection, a: Args) -> Result:
    params = drop_none(
        {
            "scope": a.scope,
            "scope_path": a.scope_path,
            "content_type": a.type,
            "tags": a.tag or None,
            "where": dict(a.where) if a.where else None,
            "min_importance": a.min_importance,
            "created_after": a.created_after,
            "created_before": a.created_before,
            "updated_after": a.updated_after,
            "updated_before": a.updated_before,
            "include_deprecated": a.include_deprecated or None,
            "include_quarantined": a.include_quarantined or None,
            "sort": a.sort,
            "order": "asc" if a.asc else None,
            "limit": a.limit,
            "cursor": a.cursor,
            "cwd": os.getcwd(),
        }
    )
    r = ct.call(c, "list", params, p.ListResult, FLAGS)
    lines = [
        f"{e.id[:8]}  {e.updated_at[:10]}  {e.content_type:<10} [{_scope(e)}]  "
        f"{shown(e.content, 100)}"
        + ("  (forgotten)" if e.is_deprecated else "")
        + ("  (quarantined)" if e.quarantined else "")
        + ("  (source changed)" if e.source_changed is True else "")
        + ("  (source missing)" if e.source_missing is True else "")
        for e in r.entries
    ] or ["no entries"]
    if r.next is not None:
        lines.append(f"more: add --cursor {r.next}")
    if r.quarantined:
        lines.append(f"{r.quarantined} quarantined not listed: --include-quarantined shows them")
    return r, "\n".join(lines)


def cmd_get(c: Connection, a: Args) -> Result:
    r = ct.call(c, "get", {"id": a.id}, p.Entry, FLAGS)
    return r, entry_text(r)


def cmd_update(c: Connection, a: Args) -> Result:
    params = sf.params_of(a, p.UpdateParams, UPDATE_UNOFFERED)
    params.update(written_by="user")
    r = ct.call(c, "update", params, p.UpdateResult, FLAGS)
    text = entry_text(r)
    return r, f"{redacted_line(r.redacted)}\n{text}" if r.redacted else text


def cmd_forget(c: Connection, a: Args) -> Result:
    r = ct.call(c, "forget", {"id": a.id, "hard": a.hard}, p.ForgetResult, FLAGS)
    if r.action == "deleted":
        done = "deleted for good"
    elif not r.changed:
        done = "already forgotten: nothing changed"
    else:
        done = "forgotten (enyal restore brings it back)"
    return r, f"{r.id} {done}"


def cmd_restore(c: Connection, a: Args) -> Result:
    params = drop_none({"id": a.id, "version": a.version})
    r = ct.call(c, "restore", params, p.RestoreResult, FLAGS)
    what = f" to version {a.version}" if a.version is not None else ""
    if not r.changed and a.version is not None:
        return r, f"{r.id} already is version {a.version}: nothing changed"
    if not r.changed:
        return r, f"{r.id} is not forgotten: nothing changed"
    return r, f"restored {r.id}{what}"


def cmd_release(c: Connection, a: Args) -> Result:
    r = ct.call(c, "release", {"id": a.id}, p.Entry, FLAGS)
    return r, f"released {r.id}: recall returns it again"


def cmd_confirm(c: Connection, a: Args) -> Result:
    params = drop_none({"id": a.id, "confidence": a.confidence})
    r = ct.call(c, "confirm", params, p.Entry, FLAGS)
    return r, f"confirmed {r.id} ({r.confirm_count} times; last {r.confirmed_at})"


def cmd_stats(c: Connection, a: Args) -> Result:
    r = ct.call(c, "stats", {}, p.Stats)
    return r, _stats_text(r)


def cmd_status(c: Connection, a: Args) -> Result:
    r = ct.call(c, "status", {}, p.Status)
    text = (
        f"enyal daemon {r.version} (pid {r.pid}, up {r.uptime_s:.0f}s)\n"
        f"socket:   {r.socket}\ndatabase: {r.db_path} ({r.entries} entries)\n"
        f"model:    {r.model.id} from {r.model.source}"
        + (f", running its 8-bit build {r.model.runtime}" if _built(r.model) else "")
        + (f"; long texts on {r.model.long_runtime}" if _long_built(r.model) else "")
        + "\n"
        f"sqlite:   {r.sqlite_version}, sqlite-vec {r.sqlite_vec_version}"
    )
    for root in r.shared:
        rule = ", ".join(root.rule) or "none"
        bad = f", {root.problems} files need a look (enyal review)" if root.problems else ""
        text += f"\nshared:   {root.root}/.enyal ({root.shared} memories, rule: {rule}{bad})"
    return r, text


def _built(m: p.ModelInfo) -> bool:
    return m.runtime is not None and m.runtime != m.path


def _long_built(m: p.ModelInfo) -> bool:
    """Long texts run on a build of their own (not where the processor's int8 dot product
    makes the 8-bit build the cheaper at every length: it runs them too)."""
    return m.long_runtime is not None and m.long_runtime not in (m.path, m.runtime)


def register(reg: Registry) -> None:
    R, Q, U = p.RememberParams, p.RecallParams, p.UpdateParams
    r = reg.verb("remember", "store a memory", on_daemon(cmd_remember))
    sf.add_flags(r, R, FLAGS, REMEMBER_UNOFFERED)

    q = reg.verb("recall", "search memories (meaning + words + recency)", on_daemon(cmd_recall))
    q.add_argument("query", nargs="?")
    q.add_argument(
        "-q",
        "--query",
        dest="queries",
        action="append",
        metavar="QUERY",
        help="one of several queries answered in one request (repeatable)",
    )
    q.add_argument(
        "--where",
        action="append",
        type=where_pair,
        metavar="KEY=VALUE",
        help="only entries whose metadata has KEY = VALUE (repeatable)",
    )
    q.add_argument("--limit", type=ct.number(Q, "limit"), default=10)
    q.add_argument(
        "--path", help="scope-aware: the file you work on (file > project > workspace > global)"
    )
    q.add_argument(
        "--scope",
        choices=[c for c in ct.choices(Q, "scope") if c != "all"],
        help="default: this project's memories, its workspace's and global ones",
    )
    q.add_argument("--scope-path")
    q.add_argument("--all-projects", action="store_true", help="search every project's memories")
    q.add_argument("--type", choices=ct.choices(Q, "content_type"))
    q.add_argument("--tag", action="append", help="only entries with this tag (repeatable)")
    q.add_argument("--min-confidence", type=ct.number(Q, "min_confidence", float))
    q.add_argument("--min-importance", type=ct.number(Q, "min_importance"), help="1-5")
    q.add_argument(
        "--all",
        action="store_true",
        help="keep results below the relevance floors (config keys recall.floor and "
        "recall.relative)",
    )
    q.add_argument("--include-deprecated", action="store_true")
    q.add_argument("--include-superseded", action="store_true")
    q.add_argument("--include-quarantined", action="store_true")
    q.add_argument("--as-of", metavar="DATE", help="what was believed then (ISO date or time)")
    q.add_argument(
        "--asked-at",
        metavar="DATE",
        help="ask as if it were then: later memories left out, recency from then",
    )
    q.add_argument(
        "--budget-tokens",
        type=ct.number(Q, "budget_tokens"),
        metavar="N",
        help="pack the best results into N tokens (the last may be cut; the rest are listed)",
    )

    L = p.ListParams
    ls = reg.verb("list", "entries by filter and order, a page at a time", on_daemon(cmd_list))
    ls.add_argument("--type", choices=ct.choices(L, "content_type"))
    ls.add_argument("--scope", choices=ct.choices(L, "scope"))
    ls.add_argument("--scope-path")
    ls.add_argument("--tag", action="append", help="only entries with this tag (repeatable)")
    ls.add_argument("--where", action="append", type=where_pair, metavar="KEY=VALUE")
    ls.add_argument("--min-importance", type=ct.number(L, "min_importance"))
    for bound in ("created-after", "created-before", "updated-after", "updated-before"):
        ls.add_argument(f"--{bound}", metavar="DATE")
    ls.add_argument("--include-deprecated", action="store_true")
    ls.add_argument(
        "--include-quarantined",
        action="store_true",
        help="also quarantined entries (left out by default; see review --kind quarantined)",
    )
    ls.add_argument("--sort", choices=ct.choices(L, "sort"), help="default: updated")
    ls.add_argument("--asc", action="store_true", help="oldest (or least) first")
    ls.add_argument("--limit", type=ct.number(L, "limit"), help="default 50")
    ls.add_argument("--cursor", help="the `more:` cursor of the previous page")

    reg.verb("get", "show one entry (an id or a unique prefix)", on_daemon(cmd_get)).add_argument(
        "id"
    )

    sf.add_flags(
        reg.verb("update", "change an entry", on_daemon(cmd_update)), U, FLAGS, UPDATE_UNOFFERED
    )

    cf = reg.verb(
        "confirm", "the memory was checked and still holds (decay restarts)", on_daemon(cmd_confirm)
    )
    cf.add_argument("id")
    rl = reg.verb(
        "release",
        "let a quarantined entry back into recall (you vouch for it)",
        on_daemon(cmd_release),
    )
    rl.add_argument("id")
    cf.add_argument("--confidence", type=ct.number(p.ConfirmParams, "confidence", float))

    fo = reg.verb("forget", "forget an entry (restorable unless --hard)", on_daemon(cmd_forget))
    fo.add_argument("id")
    fo.add_argument("--hard", action="store_true", help="delete for good")

    rs = reg.verb(
        "restore", "bring back a forgotten entry, or an earlier version", on_daemon(cmd_restore)
    )
    rs.add_argument("id")
    rs.add_argument(
        "--version",
        type=ct.number(p.RestoreParams, "version"),
        help="restore this version's content (see history)",
    )
    reg.verb("stats", "counts and sizes", on_daemon(cmd_stats))
    reg.verb("status", "is the daemon up, and what does it serve", on_daemon(cmd_status))

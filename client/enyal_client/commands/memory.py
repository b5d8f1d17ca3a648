"""The memory verbs: remember, recall, get, update, forget, restore, stats, import,
export, status. Each is a thin translation from argv to one or more daemon calls."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import msgspec

from enyal_protocol import wire as p

from ..transport import ClientError, Connection
from .base import Args, Registry, UsageError, drop_none, json_object, limit, on_daemon, unit

IMPORT_BATCH = 200
EXPORT_PAGE = 500


# --- text output ---------------------------------------------------------------------


def _entry_text(e: dict[str, Any]) -> str:
    scope = e["scope_level"] + (f" {e['scope_path']}" if e.get("scope_path") else "")
    lines = [
        f"{e['id']}  {e['content_type']}  [{scope}]"
        + ("  (forgotten)" if e["is_deprecated"] else ""),
        f"  {e['content']}",
        f"  confidence {e['confidence']:.2f}  created {e['created_at']}  updated {e['updated_at']}",
    ]
    if e.get("tags"):
        lines.append(f"  tags: {', '.join(e['tags'])}")
    if e.get("source_type") or e.get("source_ref"):
        lines.append(
            f"  source: {e.get('source_type') or '-'} {e.get('source_ref') or ''}".rstrip()
        )
    if e.get("metadata"):
        lines.append(f"  metadata: {msgspec.json.encode(e['metadata']).decode()}")
    return "\n".join(lines)


def _hits_text(hits: list[dict[str, Any]]) -> str:
    if not hits:
        return "no memories matched"
    out = []
    for i, h in enumerate(hits, 1):
        tags = f"  tags: {', '.join(h['tags'])}" if h.get("tags") else ""
        scope = h["scope_level"] + (f" {h['scope_path']}" if h.get("scope_path") else "")
        out.append(
            f"{i}. {h['content']}\n"
            f"   {h['id']}  {h['content_type']}  [{scope}]  score {h['score']:.3f} "
            f"(meaning {h['semantic']:.2f}, words {h['keyword']:.2f}, "
            f"recency {h['recency']:.2f}, confidence {h['effective_confidence']:.2f}){tags}"
            + (f"\n   superseded by {h['superseded_by']}" if h.get("is_superseded") else "")
            + ("\n   has conflicts (see enyal edges)" if h.get("has_conflicts") else "")
        )
    return "\n".join(out)


def _stats_text(s: dict[str, Any]) -> str:
    def row(d: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items())

    return "\n".join(
        [
            f"entries: {s['total']} ({s['active']} active, {s['deprecated']} forgotten)",
            f"by type: {row(s['by_type'])}",
            f"by scope: {row(s['by_scope'])}",
            f"confidence: {row(s['confidence'])}",
            f"database: {s['db_bytes'] / 1e6:.1f} MB",
            f"oldest: {s['oldest'] or '-'}   newest: {s['newest'] or '-'}",
        ]
    )


# --- verbs -----------------------------------------------------------------------------


def cmd_remember(c: Connection, a: Args) -> tuple[Any, str]:
    params = drop_none(
        {
            "content": a.content,
            "content_type": a.type,
            "scope": a.scope,
            "scope_path": a.scope_path,
            "tags": a.tag or None,
            "source_type": a.source_type,
            "source_ref": a.source_ref,
            "metadata": a.metadata,
            "confidence": a.confidence,
            "dedup": a.dedup,
            "dedup_threshold": a.threshold,
            "relates_to": a.relates_to,
            "supersedes": a.supersedes,
            "depends_on": a.depends_on,
            "auto_link": a.auto_link or None,
            "detect_conflicts": a.detect_conflicts or None,
            "suggest_supersedes": a.suggest_supersedes or None,
            "cwd": os.getcwd(),
        }
    )
    r = c.call("remember", params)
    sim = f" (similarity {r['similarity']:.3f})" if r.get("similarity") is not None else ""
    verbs = {
        "created": "remembered",
        "existing": "already remembered",
        "rejected": "not stored: too similar to",
        "merged": "merged into",
        "stored": "remembered (a similar entry exists)",
    }
    lines = [f"{verbs[r['action']]} {r['id']}{sim}"]
    lines += [f"  linked: {e['edge_type']} -> {e['target_id']}" for e in r.get("edges", [])]
    lines += [
        f"  may conflict with {x['id']} ({x['reason']}): {x['content']}"
        for x in r.get("conflicts", [])
    ]
    lines += [
        f"  may supersede {x['id']} ({x['similarity']:.2f}): {x['content']}"
        for x in r.get("supersedes_candidates", [])
    ]
    return r, "\n".join(lines)


def cmd_recall(c: Connection, a: Args) -> tuple[Any, str]:
    common = {"query": a.query, "limit": a.limit, "content_type": a.type, "cwd": os.getcwd()}
    if a.path is not None:
        if a.scope or a.scope_path or a.tag or a.include_deprecated or a.as_of:
            raise UsageError(
                "--path (scope-aware recall) cannot be combined with "
                "--scope, --scope-path, --tag, --include-deprecated or --as-of"
            )
        params = drop_none({**common, "file_path": a.path, "min_confidence": a.min_confidence})
        r = c.call("recall_by_scope", params)
    else:
        params = drop_none(
            {
                **common,
                "scope": a.scope,
                "scope_path": a.scope_path,
                "tags": a.tag or None,
                "min_confidence": a.min_confidence,
                "include_deprecated": a.include_deprecated or None,
                "exclude_superseded": False if a.include_superseded else None,
                "as_of": a.as_of,
            }
        )
        r = c.call("recall", params)
    return r, _hits_text(r["results"])


def cmd_get(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("get", {"id": a.id})
    return r, _entry_text(r)


def cmd_update(c: Connection, a: Args) -> tuple[Any, str]:
    params = drop_none(
        {
            "id": a.id,
            "content": a.content,
            "content_type": a.type,
            "confidence": a.confidence,
            "tags": a.tag,
            "metadata": a.metadata,
        }
    )
    r = c.call("update", params)
    return r, _entry_text(r)


def cmd_forget(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("forget", {"id": a.id, "hard": a.hard})
    done = (
        "deleted for good"
        if r["action"] == "deleted"
        else "forgotten (enyal restore brings it back)"
    )
    return r, f"{r['id']} {done}"


def cmd_restore(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("restore", drop_none({"id": a.id, "version": a.version}))
    what = f" to version {a.version}" if a.version is not None else ""
    return r, f"restored {r['id']}{what}"


def cmd_stats(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("stats", {})
    return r, _stats_text(r)


def cmd_status(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("status", {})
    text = (
        f"enyal daemon {r['version']} (pid {r['pid']}, up {r['uptime_s']:.0f}s)\n"
        f"socket:   {r['socket']}\ndatabase: {r['db_path']} ({r['entries']} entries)\n"
        f"model:    {r['model']['id']} from {r['model']['source']}\n"
        f"sqlite:   {r['sqlite_version']}, sqlite-vec {r['sqlite_vec_version']}"
    )
    return r, text


def _batches(f: IO[str]) -> Iterator[tuple[int, list[str]]]:
    batch: list[str] = []
    first = 1
    for number, line in enumerate(f, 1):
        if not batch:
            first = number
        batch.append(line.rstrip("\n"))
        if len(batch) == IMPORT_BATCH:
            yield first, batch
            batch = []
    if batch:
        yield first, batch


def cmd_import(c: Connection, a: Args) -> tuple[Any, str]:
    totals = {"stored": 0, "existing": 0, "failed": 0}
    failures: list[dict[str, Any]] = []
    try:
        f = sys.stdin if a.file == "-" else open(a.file, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise ClientError(f"cannot read {a.file}: {exc.strerror}") from None
    with f:
        try:
            for first, lines in _batches(f):
                r = c.call("import", {"lines": lines, "first_line": first})
                for k in totals:
                    totals[k] += r[k]
                failures.extend(x for x in r["lines"] if x["status"] == "failed")
        except UnicodeDecodeError as exc:
            raise ClientError(f"{a.file} is not UTF-8 text: {exc.reason}") from None
    result = {**totals, "failures": failures}
    text = "\n".join(
        [f"line {x['line']}: {x['error']}" for x in failures]
        + [f"stored {totals['stored']}, existing {totals['existing']}, failed {totals['failed']}"]
    )
    return result, text


def cmd_export(c: Connection, a: Args) -> tuple[Any, str]:
    out: IO[bytes]
    out = sys.stdout.buffer if a.file in (None, "-") else open(a.file, "wb")  # noqa: SIM115
    count, after = 0, 0
    enc = msgspec.json.Encoder()
    try:
        while True:
            page = c.call_raw(
                "export",
                {"after": after, "limit": EXPORT_PAGE, "include_deprecated": not a.active_only},
            )
            r = msgspec.json.decode(page, type=p.ExportResult)
            for e in r.entries:
                out.write(enc.encode(e) + b"\n")
            count += len(r.entries)
            if r.next is None:
                break
            after = r.next
    finally:
        if out is not sys.stdout.buffer:
            out.close()
        else:
            out.flush()
    to_stdout = a.file in (None, "-")
    return ({"exported": count, "file": a.file} if not to_stdout else None), (
        "" if to_stdout else f"exported {count} entries to {a.file}"
    )


def register(reg: Registry) -> None:
    r = reg.verb("remember", "store a memory", on_daemon(cmd_remember))
    r.add_argument("content")
    r.add_argument("--type", choices=p.CONTENT_TYPES, help="default: fact")
    r.add_argument("--scope", choices=p.SCOPE_LEVELS, help="default: project (from the cwd)")
    r.add_argument("--scope-path", help="the file or folder the scope refers to")
    r.add_argument("--tag", action="append", help="a tag (repeat for more)")
    r.add_argument("--source-type", choices=("conversation", "file", "commit", "manual"))
    r.add_argument("--source-ref")
    r.add_argument("--metadata", type=json_object, help="a JSON object")
    r.add_argument("--confidence", type=unit)
    r.add_argument("--dedup", choices=("off", "reject", "merge", "store"))
    r.add_argument("--threshold", type=unit, help="similarity for --dedup (default 0.85)")
    for edge in ("relates-to", "supersedes", "depends-on"):
        r.add_argument(f"--{edge}", action="append", metavar="ID", help=f"{edge} ID (repeatable)")
    r.add_argument("--auto-link", action="store_true", help="link to similar entries")
    r.add_argument("--detect-conflicts", action="store_true", help="report contradictions")
    r.add_argument("--suggest-supersedes", action="store_true", help="report replaceable entries")

    q = reg.verb("recall", "search memories (meaning + words + recency)", on_daemon(cmd_recall))
    q.add_argument("query")
    q.add_argument("--limit", type=limit, default=10)
    q.add_argument(
        "--path", help="scope-aware: the file you work on (file > project > workspace > global)"
    )
    q.add_argument("--scope", choices=p.SCOPE_LEVELS)
    q.add_argument("--scope-path")
    q.add_argument("--type", choices=p.CONTENT_TYPES)
    q.add_argument("--tag", action="append", help="only entries with this tag (repeatable)")
    q.add_argument("--min-confidence", type=unit)
    q.add_argument("--include-deprecated", action="store_true")
    q.add_argument("--include-superseded", action="store_true")
    q.add_argument("--as-of", metavar="DATE", help="what was believed then (ISO date or time)")

    reg.verb("get", "show one entry", on_daemon(cmd_get)).add_argument("id")

    u = reg.verb("update", "change an entry", on_daemon(cmd_update))
    u.add_argument("id")
    u.add_argument("--content")
    u.add_argument("--type", choices=p.CONTENT_TYPES)
    u.add_argument("--confidence", type=unit)
    u.add_argument("--tag", action="append", help="replaces the tags (repeatable)")
    u.add_argument("--metadata", type=json_object, help="replaces the metadata (a JSON object)")

    fo = reg.verb("forget", "forget an entry (restorable unless --hard)", on_daemon(cmd_forget))
    fo.add_argument("id")
    fo.add_argument("--hard", action="store_true", help="delete for good")

    rs = reg.verb(
        "restore", "bring back a forgotten entry, or an earlier version", on_daemon(cmd_restore)
    )
    rs.add_argument("id")
    rs.add_argument("--version", type=int, help="restore this version's content (see history)")
    reg.verb("stats", "counts and sizes", on_daemon(cmd_stats))
    reg.verb("import", "import JSONL (a file, or - for stdin)", on_daemon(cmd_import)).add_argument(
        "file"
    )
    ex = reg.verb("export", "export every entry as JSONL", on_daemon(cmd_export))
    ex.add_argument("file", nargs="?", help="default: stdout")
    ex.add_argument("--active-only", action="store_true", help="leave forgotten entries out")
    reg.verb("status", "is the daemon up, and what does it serve", on_daemon(cmd_status))

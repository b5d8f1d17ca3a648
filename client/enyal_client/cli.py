"""`enyal`: the command line. A thin client: it parses, calls the daemon, prints.

Exit codes: 0 ok, 1 an error from Enyal (message on stderr), 2 a usage error.
Every verb takes --json and then prints exactly one JSON document on stdout
(export without a file prints JSONL, one entry a line, which is its format).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import msgspec

from . import protocol as p
from .transport import ClientError, Connection, RpcError, connect

IMPORT_BATCH = 200
EXPORT_PAGE = 500

Args = argparse.Namespace
Out = Callable[[Any], None]


class UsageError(Exception):
    """A mistake in the command line that argparse cannot see (exit code 2)."""


def _json_arg(text: str) -> Any:
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def _unit(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return x


def _limit(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= 100:
        raise argparse.ArgumentTypeError("must be between 1 and 100")
    return n


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


# --- text output ---------------------------------------------------------------------


def _entry_text(e: dict[str, Any]) -> str:
    scope = e["scope_level"] + (f" {e['scope_path']}" if e.get("scope_path") else "")
    lines = [
        f"{e['id']}  {e['content_type']}  [{scope}]" + ("  (forgotten)" if e["is_deprecated"] else ""),
        f"  {e['content']}",
        f"  confidence {e['confidence']:.2f}  created {e['created_at']}  updated {e['updated_at']}",
    ]
    if e.get("tags"):
        lines.append(f"  tags: {', '.join(e['tags'])}")
    if e.get("source_type") or e.get("source_ref"):
        lines.append(f"  source: {e.get('source_type') or '-'} {e.get('source_ref') or ''}".rstrip())
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
    params = _drop_none(
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
    return r, f"{verbs[r['action']]} {r['id']}{sim}"


def cmd_recall(c: Connection, a: Args) -> tuple[Any, str]:
    common = {"query": a.query, "limit": a.limit, "content_type": a.type, "cwd": os.getcwd()}
    if a.path is not None:
        if a.scope or a.scope_path or a.tag or a.include_deprecated:
            raise UsageError("--path (scope-aware recall) cannot be combined with "
                             "--scope, --scope-path, --tag or --include-deprecated")
        params = _drop_none({**common, "file_path": a.path, "min_confidence": a.min_confidence})
        r = c.call("recall_by_scope", params)
    else:
        params = _drop_none(
            {
                **common,
                "scope": a.scope,
                "scope_path": a.scope_path,
                "tags": a.tag or None,
                "min_confidence": a.min_confidence,
                "include_deprecated": a.include_deprecated or None,
            }
        )
        r = c.call("recall", params)
    return r, _hits_text(r["results"])


def cmd_get(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("get", {"id": a.id})
    return r, _entry_text(r)


def cmd_update(c: Connection, a: Args) -> tuple[Any, str]:
    params = _drop_none(
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
    done = "deleted for good" if r["action"] == "deleted" else "forgotten (enyal restore brings it back)"
    return r, f"{r['id']} {done}"


def cmd_restore(c: Connection, a: Args) -> tuple[Any, str]:
    r = c.call("restore", {"id": a.id})
    return r, f"restored {r['id']}"


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


VERBS: dict[str, Callable[[Connection, Args], tuple[Any, str]]] = {
    "remember": cmd_remember,
    "recall": cmd_recall,
    "get": cmd_get,
    "update": cmd_update,
    "forget": cmd_forget,
    "restore": cmd_restore,
    "stats": cmd_stats,
    "import": cmd_import,
    "export": cmd_export,
    "status": cmd_status,
}


def build_parser() -> argparse.ArgumentParser:
    # --json is accepted before or after the verb; SUPPRESS keeps the verb's parser from
    # resetting a --json given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
    )
    parser = argparse.ArgumentParser(prog="enyal", description="Persistent memory for AI coding agents.")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=[common])

    r = verb("remember", "store a memory")
    r.add_argument("content")
    r.add_argument("--type", choices=p.CONTENT_TYPES, help="default: fact")
    r.add_argument("--scope", choices=p.SCOPE_LEVELS, help="default: project (from the cwd)")
    r.add_argument("--scope-path", help="the file or folder the scope refers to")
    r.add_argument("--tag", action="append", help="a tag (repeat for more)")
    r.add_argument("--source-type", choices=("conversation", "file", "commit", "manual"))
    r.add_argument("--source-ref")
    r.add_argument("--metadata", type=_json_arg, help="a JSON object")
    r.add_argument("--confidence", type=_unit)
    r.add_argument("--dedup", choices=("off", "reject", "merge", "store"))
    r.add_argument("--threshold", type=_unit, help="similarity for --dedup (default 0.85)")

    q = verb("recall", "search memories (meaning + words + recency)")
    q.add_argument("query")
    q.add_argument("--limit", type=_limit, default=10)
    q.add_argument("--path", help="scope-aware: the file you work on (file > project > workspace > global)")
    q.add_argument("--scope", choices=p.SCOPE_LEVELS)
    q.add_argument("--scope-path")
    q.add_argument("--type", choices=p.CONTENT_TYPES)
    q.add_argument("--tag", action="append", help="only entries with this tag (repeatable)")
    q.add_argument("--min-confidence", type=_unit)
    q.add_argument("--include-deprecated", action="store_true")

    verb("get", "show one entry").add_argument("id")

    u = verb("update", "change an entry")
    u.add_argument("id")
    u.add_argument("--content")
    u.add_argument("--type", choices=p.CONTENT_TYPES)
    u.add_argument("--confidence", type=_unit)
    u.add_argument("--tag", action="append", help="replaces the tags (repeatable)")
    u.add_argument("--metadata", type=_json_arg, help="replaces the metadata (a JSON object)")

    fo = verb("forget", "forget an entry (restorable unless --hard)")
    fo.add_argument("id")
    fo.add_argument("--hard", action="store_true", help="delete for good")

    verb("restore", "bring back a forgotten entry").add_argument("id")
    verb("stats", "counts and sizes")
    verb("import", "import JSONL (a file, or - for stdin)").add_argument("file")
    ex = verb("export", "export every entry as JSONL")
    ex.add_argument("file", nargs="?", help="default: stdout")
    ex.add_argument("--active-only", action="store_true", help="leave forgotten entries out")
    verb("status", "is the daemon up, and what does it serve")
    d = verb("daemon", "run the daemon in the foreground")
    d.add_argument("--log-file", action="store_true", help="log to the log dir, not stderr")
    d.add_argument("--log-level", default="INFO")
    return parser


def _print_json(value: Any) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(value) + b"\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.verb == "daemon":
        from enyal_daemon.__main__ import main as daemon_main

        return daemon_main(["--log-level", args.log_level] + (["--log-file"] if args.log_file else []))
    try:
        conn = connect()
        try:
            result, text = VERBS[args.verb](conn, args)
        finally:
            conn.close()
    except UsageError as exc:
        print(f"enyal {args.verb}: {exc}", file=sys.stderr)
        return 2
    except RpcError as exc:
        if args.json:
            _print_json({"error": {"code": exc.code, "message": exc.message}})
        print(f"enyal {args.verb}: {exc.message}", file=sys.stderr)
        return 1
    except (ClientError, OSError) as exc:
        if args.json:
            _print_json({"error": {"code": None, "message": str(exc)}})
        print(f"enyal {args.verb}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        if result is not None:
            _print_json(result)
    elif text:
        print(text)
    if args.verb == "import" and result["failed"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

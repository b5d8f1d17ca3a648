"""`model status | verify | path | fetch`: where the model comes from, and proving it is
the pinned one. Hashing and downloading need no daemon, only its model locator."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from enyal_protocol.paths import Paths
from enyal_protocol.tools import ModelFetched, ModelLocation, ModelSource, ModelSources

from ..embedder import fetch, model_files
from ..errors import EnyalError, ModelUnavailable
from .progress import Bar
from .settings import configured


def _source(name: str, model: Path, tokenizer: Path, selected: bool, check: bool) -> ModelSource:
    present = model.is_file() and tokenizer.is_file()
    if not (present and check):
        return ModelSource(name, str(model), str(tokenizer), present, selected and present)
    try:
        files = model_files.verify(name, model, tokenizer)
    except ModelUnavailable as exc:
        return ModelSource(
            name, str(model), str(tokenizer), True, selected, False, error=exc.message
        )
    return ModelSource(
        name, str(model), str(tokenizer), True, selected, True, files.model_id, files.model_sha256
    )


def sources(paths: Paths, hash_all: bool) -> list[ModelSource]:
    """Every source in search order; the first present one is selected (what the daemon
    loads). Only that one is hashed unless hash_all: status need not read every copy."""
    out: list[ModelSource] = []
    chosen = False
    for name, model, tokenizer in model_files.candidates(paths.data_dir):
        out.append(_source(name, model, tokenizer, not chosen, hash_all or not chosen))
        chosen = chosen or out[-1].present
    return out


def database_model(paths: Paths) -> dict[str, str] | None:
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


def status(args: argparse.Namespace) -> ModelSources:
    paths, _ = configured()
    return ModelSources(sources(paths, hash_all=False), database_model(paths))


def verify(args: argparse.Namespace) -> ModelSources:
    paths, _ = configured()
    return ModelSources(sources(paths, hash_all=True))


def path(args: argparse.Namespace) -> ModelLocation:
    paths, _ = configured()
    files = model_files.locate(paths.data_dir)
    return ModelLocation(str(files.model), str(files.tokenizer), files.source, files.model_id)


def download(args: argparse.Namespace) -> ModelFetched:
    paths, cfg = configured()
    base = args.url or cfg.model_url
    dest = fetch.model_dir(paths.data_dir)
    model, tokenizer = dest / "model.onnx", dest / "tokenizer.json"
    if not args.force and model.is_file() and tokenizer.is_file():
        try:
            files = model_files.verify("user data dir", model, tokenizer)
        except EnyalError:
            pass  # present but not the pinned files: fetch replaces them
        else:
            return ModelFetched(fetched=False, model_id=files.model_id, dir=str(dest))
    bars: dict[str, Bar] = {}

    def progress(name: str, done: int, total: int | None) -> None:
        bar = bars.setdefault(name, Bar(f"fetch {name}", args.quiet))
        bar.update(done // 1024, total // 1024 if total else None, " KiB")

    files = fetch.fetch(paths.data_dir, base, progress)
    return ModelFetched(
        fetched=True, model_id=files.model_id, sha256=files.model_sha256, dir=str(dest), url=base
    )


Found = ModelSources | ModelLocation | ModelFetched
JOBS: dict[str, Callable[[argparse.Namespace], Found]] = {
    "status": status,
    "verify": verify,
    "path": path,
    "fetch": download,
}


def run(args: argparse.Namespace) -> Found:
    return JOBS[args.action](args)


HELP = "the embedding model: where it is, verify, fetch"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=tuple(JOBS))
    p.add_argument("--url", help="fetch: a mirror's base URL (default: model.url, the hub)")
    p.add_argument("--force", action="store_true", help="fetch: download even if present")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")

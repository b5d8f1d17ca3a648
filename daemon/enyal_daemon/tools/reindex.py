"""`reindex`: re-embed every entry with the model found now (tools/reindexing.py).

It must run while no daemon serves the database, so it holds the daemon's pidfile lock
for its whole run: a daemon started meanwhile exits as AlreadyRunning, and a daemon
already running makes this exit with EXIT_ALREADY_RUNNING.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Literal

from enyal_protocol.tools import REINDEX_BATCH_DEFAULT, Reindexed, batch_size

from .progress import Bar
from .settings import configured

HELP = "re-embed every entry with the current model (resumable; needs the daemon stopped)"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--batch-size", type=batch_size, default=REINDEX_BATCH_DEFAULT)
    p.add_argument("--force", action="store_true", help="even if the model has not changed")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> Reindexed:
    paths, _ = configured()
    if not paths.db.is_file():
        return Reindexed("none", 0)
    # Imported here: onnxruntime and numpy are for this job only, not for the parser.
    from ..embedder import build8
    from ..embedder.model_files import locate
    from ..locks import pidfile_held
    from ..store import db
    from . import reindexing

    # AlreadyRunning while a daemon serves it
    with pidfile_held(paths.pid_file):
        os.umask(0o077)  # the WAL this creates holds memories, as the daemon's own files do
        embedder = build8.load(locate(paths.data_dir), paths.cache_dir)
        conn = db.connect(paths.db, writer=True)
        try:
            out = reindexing.run(
                conn,
                embedder,
                batch_size=args.batch_size,
                force=args.force,
                progress=Bar("reindex", args.quiet).update,
            )
        except KeyboardInterrupt:
            print(
                "\nreindex interrupted; every finished batch is saved. "
                "Run `enyal reindex` again to resume.",
                file=sys.stderr,
            )
            raise
        finally:
            conn.close()
    action: Literal["reindexed", "up to date"] = (
        "up to date" if out.action == "up to date" else "reindexed"
    )
    return Reindexed(action, out.total, out.model_id, out.previous, out.reembedded, out.resumed_at)

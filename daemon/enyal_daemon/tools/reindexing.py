"""Re-embedding every entry with the model found now (`enyal reindex`).

A database's vectors are comparable only with the model that made them, so the
daemon refuses a database recorded with another model (engine.bind_model).
This rewrites every vector in rid order, one transaction per batch, and records
its progress in the same transaction (enyal_meta: reindex_target, reindex_done_rid).
Killed at any point, it loses at most the batch in flight and resumes after the
last committed one.

While it is unfinished, model_id reads "<target> (reindex unfinished)": no model
matches that, so no daemon serves a database whose vectors are half one model and
half another, and its refusal names `enyal reindex`. The last transaction records
the new model and clears the progress keys.

It runs offline, in the process of `enyal reindex`, holding the daemon's pidfile
lock: the daemon cannot open such a database, and nothing else may write meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import apsw

from ..embedder import passages
from ..embedder.model_files import DIM, ModelFiles
from ..embedder.onnx import Embedder
from ..store import entries, meta

UNFINISHED = " (reindex unfinished)"
TARGET_KEY = "reindex_target"
DONE_KEY = "reindex_done_rid"
FROM_KEY = "reindex_from"
BATCH_SIZE = 64

Progress = Callable[[int, int], None]  # (entries done, total)


@dataclass(frozen=True)
class Outcome:
    model_id: str
    previous: str | None
    total: int
    reembedded: int
    resumed_at: int  # entries already done by an interrupted run; 0 for a fresh one
    action: str  # "reindexed" or "up to date"


def _begin(conn: apsw.Connection, files: ModelFiles, force: bool) -> tuple[int, str | None] | None:
    """Where to start (the last rid done) and the model the vectors came from (None for a
    database that never recorded one); None when there is nothing to do."""
    recorded = meta.get(conn, "model_id")
    target = meta.get(conn, TARGET_KEY)
    if target == files.model_id:
        done = meta.get(conn, DONE_KEY)
        return (int(done) if done else 0), meta.get(conn, FROM_KEY) or None
    if recorded == files.model_id and target is None and not force:
        return None
    # A run for another target left unfinished: its vectors are as stale as the rest.
    previous = meta.get(conn, FROM_KEY) if target is not None else recorded
    with conn:
        meta.put(conn, TARGET_KEY, files.model_id)
        meta.put(conn, DONE_KEY, "0")
        meta.put(conn, FROM_KEY, previous or "")
        meta.put(conn, "model_id", files.model_id + UNFINISHED)
    return 0, previous or None


def _finish(conn: apsw.Connection, files: ModelFiles) -> None:
    with conn:
        meta.record_model(conn, files.model_id, DIM, files.model_sha256)
        meta.delete(conn, TARGET_KEY, DONE_KEY, FROM_KEY)


def run(
    conn: apsw.Connection,
    embedder: Embedder,
    *,
    batch_size: int = BATCH_SIZE,
    force: bool = False,
    progress: Progress | None = None,
) -> Outcome:
    files = embedder.files
    start = _begin(conn, files, force)
    total = entries.count(conn)
    if start is None:
        return Outcome(files.model_id, files.model_id, total, 0, 0, "up to date")
    last_rid, previous = start
    resumed_at = entries.count(conn, upto_rid=last_rid) if last_rid else 0
    done, reembedded = resumed_at, 0
    if progress is not None:
        progress(done, total)
    while True:
        rows = entries.contents_after(conn, last_rid, batch_size)
        if not rows:
            break
        vectors = passages.embed_all(
            [content for _, content in rows], embedder.embed_many, embedder.count_tokens
        )
        with conn:  # the batch's vectors and the progress mark commit together
            for (rid, _), vec in zip(rows, vectors, strict=True):
                entries.replace_vector(conn, rid, *vec.blobs())
            last_rid = rows[-1][0]
            meta.put(conn, DONE_KEY, str(last_rid))
        done += len(rows)
        reembedded += len(rows)
        if progress is not None:
            progress(done, total)
    _finish(conn, files)
    return Outcome(files.model_id, previous, total, reembedded, resumed_at, "reindexed")

"""1b. The KNN alone, in this process on the same store: Enyal's index (int8 matrix) against
exact numpy float32 search and sqlite-vec's vec0 brute force, interleaved query by query,
with recall@10 against exact search. Then what long memories' passages add to it
(index/passages.py), on the same store with passages added: see passages_cost."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchlib import corpus
from benchlib.config import Ctx
from benchlib.report import Row, Target, size
from benchlib.stats import Runs, pct, ratios

K = 50  # what recall asks the index for (max(limit * 5, 50))
RECALL10_TARGET = 0.98
# The bench's memories are a sentence or two: none has passages. To price passages at
# scale, one entry in LONG_EVERY is given PASSAGES_EACH passages whose vectors are its
# own plus Gaussian noise (cosine ~0.8 with it), as a long text's passages lie near it.
# Search cost depends on how many rows there are, not on what they say.
LONG_EVERY = 5
PASSAGES_EACH = 4
PASSAGE_NOISE = 0.04


def run(ctx: Ctx, db_path: Path, n: int) -> None:
    from enyal_daemon.index.vectors import PREFILTER_MIN, VectorIndex
    from enyal_daemon.store import db, entries

    cfg = ctx.cfg
    conn = db.connect(db_path, writer=False)
    try:
        t0 = time.perf_counter()
        index = VectorIndex(384)
        index.load((r, b, d, 0, 0) for r, b, d, *_ in entries.iter_vectors(conn))
        load_s = time.perf_counter() - t0
        rids_l: list[int] = []
        blobs: list[bytes] = []
        for rid, blob, *_ in entries.iter_vectors(conn):
            rids_l.append(rid)
            blobs.append(blob)
        rids = np.asarray(rids_l, dtype=np.int64)
        mat = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(rids), 384)
        del blobs
        queries = [ctx.engine.embedder.embed(q) for q in corpus.questions(cfg.knn_queries, 99)]
        groups = max(1, min(5, cfg.knn_queries // 10))
        t_idx: list[list[float]] = [[] for _ in range(groups)]
        t_f32: list[list[float]] = [[] for _ in range(groups)]
        t_vec: list[float] = []
        rec10: list[float] = []
        rec50: list[float] = []
        for i, q in enumerate(queries):
            g = i % groups
            a = time.perf_counter()
            got = index.search(q, K, active_only=False)
            b = time.perf_counter()
            sims = mat @ q
            top = np.argpartition(-sims, K - 1)[:K]
            top = top[np.argsort(-sims[top])]
            exact = rids[top]
            c = time.perf_counter()
            t_idx[g].append((b - a) * 1e3)
            t_f32[g].append((c - b) * 1e3)
            if i < (cfg.vec0_queries if n < 1_000_000 else min(cfg.vec0_queries, 10)):
                d = time.perf_counter()
                list(
                    conn.execute(
                        "SELECT rowid, distance FROM context_vectors WHERE embedding MATCH ? "
                        "AND k = ?",
                        (q.tobytes(), K),
                    )
                )
                t_vec.append((time.perf_counter() - d) * 1e3)
            mine = [r for r, _ in got]
            rec10.append(len(set(mine[:10]) & set(exact[:10].tolist())) / 10)
            rec50.append(len(set(mine) & set(exact.tolist())) / K)
    finally:
        conn.close()
    s = size(n)
    idx_runs = Runs([pct(t, 50) for t in t_idx])
    f32_runs = Runs([pct(t, 50) for t in t_f32])
    vec_runs = Runs([pct(t_vec, 50)])
    rep = ctx.report
    note = f"{cfg.knn_queries} queries, k={K}"
    how = "sign-bit prefilter + int8" if n >= PREFILTER_MIN else "int8 scan"
    rep.add(Row("1b", f"KNN: Enyal index ({how}), p50", s, idx_runs, "ms", note=note))
    every = [x for t in t_idx for x in t]
    per_group = Runs([pct(t, 99) for t in t_idx])
    rep.add(Row("1b", "KNN: Enyal index, p99", s, per_group, "ms", pooled=pct(every, 99)))
    rep.add(
        Row(
            "1b",
            "KNN: numpy float32 exact, p50",
            s,
            f32_runs,
            "ms",
            note="1 BLAS thread, interleaved",
        )
    )
    rep.add(Row("1b", "KNN: sqlite-vec vec0, p50", s, vec_runs, "ms", note=f"{len(t_vec)} queries"))
    rep.add(Row("1b", "KNN speed-up vs vec0", s, Runs([vec_runs.median / idx_runs.median]), "×"))
    rep.add(Row("1b", "KNN speed-up vs float32", s, ratios(idx_runs, f32_runs), "×"))
    rep.add(
        Row(
            "1b",
            "KNN recall@10 vs exact",
            s,
            Runs([float(np.mean(rec10))]),
            "",
            Target(">=", RECALL10_TARGET),
            f"{len(rec10):,} distinct queries",
        )
    )
    rep.add(Row("1b", "KNN recall@50 vs exact", s, Runs([float(np.mean(rec50))]), ""))
    passages_cost(ctx, db_path, rids, mat, queries, n)
    rep.add(
        Row(
            "6",
            "index memory (int8 codes + sign bits + scale + rid)",
            s,
            Runs([index.nbytes / 1e6]),
            "MB",
            note=f"float32 would be {mat.nbytes / 1e6:.0f} MB; load {load_s:.2f} s",
        )
    )


def passages_cost(
    ctx: Ctx, db_path: Path, rids: np.ndarray, mat: np.ndarray, queries: list[np.ndarray], n: int
) -> None:
    """The same KNN through the engine's EntryIndex, whole texts alone and with passages,
    interleaved query by query."""
    from enyal_daemon.index.entry_index import EntryIndex
    from enyal_daemon.store import db, entries

    index = EntryIndex(384)
    conn = db.connect(db_path, writer=False)
    try:
        index.load((r, b, d, 0, 0) for r, b, d, *_ in entries.iter_vectors(conn))
    finally:
        conn.close()
    rng = np.random.default_rng(13)
    long_rows = np.arange(0, len(rids), LONG_EVERY)
    noise = rng.standard_normal((len(long_rows) * PASSAGES_EACH, 384)).astype(np.float32)
    vecs = np.repeat(mat[long_rows], PASSAGES_EACH, axis=0) + PASSAGE_NOISE * noise
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index.passages.load(
        (int(rids[row]), j, vecs[i * PASSAGES_EACH + j].tobytes(), False, 0, 0)
        for i, row in enumerate(long_rows.tolist())
        for j in range(PASSAGES_EACH)
    )
    del vecs, noise
    whole: list[float] = []
    both: list[float] = []
    for q in queries:
        a = time.perf_counter()
        index.search(q, K, passages=False)
        b = time.perf_counter()
        index.search(q, K, passages=True)
        both.append((time.perf_counter() - b) * 1e3)
        whole.append((b - a) * 1e3)
    s = size(n)
    note = (
        f"{len(index.passages):,} passages: 1 in {LONG_EVERY} entries long, "
        f"{PASSAGES_EACH} passages each"
    )
    rep = ctx.report
    rep.add(Row("1b", "KNN: whole texts only (EntryIndex), p50", s, Runs([pct(whole, 50)]), "ms"))
    rep.add(
        Row("1b", "KNN: whole texts + passages, p50", s, Runs([pct(both, 50)]), "ms", note=note)
    )
    rep.add(Row("1b", "KNN: whole texts + passages, p99", s, Runs([pct(both, 99)]), "ms"))
    rep.add(
        Row("1b", "KNN: passages' cost (p50 ratio)", s, Runs([pct(both, 50) / pct(whole, 50)]), "×")
    )

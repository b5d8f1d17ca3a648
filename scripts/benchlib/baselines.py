"""The baselines recall is measured against, computed in the same run on the same store.

What a user could build from the same parts without Enyal's ranking: the imported
database's own FTS5 index (BM25) and its own vectors (exact cosine over every one),
fused by reciprocal rank or by the weighted sum of ../shared/data/scifact/README.md.
They read the database the daemon imported, so words, vectors and ids are exactly
what recall sees.

A set whose questions are dated (the conversations) is asked as recall is asked
there: each question at its date (recall's asked_at), so every baseline sees only
the memories said by then, and one more baseline adds the 0.1 recency of Enyal's own
blend (30-day half-life, from the question's date) to the weighted sum.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import apsw
import numpy as np
import numpy.typing as npt

from enyal_daemon.embedder import build8
from enyal_daemon.embedder.model_files import locate
from enyal_daemon.embedder.onnx import Embedder
from enyal_daemon.store import db
from enyal_protocol import paths

TOP = 100  # candidates per side for the fusions, as in the README's table
RRF_K = 60
DENSE_WEIGHT, BM25_WEIGHT = 0.6, 0.3  # the README's weighted sum
RECENCY_HALF_LIFE_DAYS = 30.0  # Enyal's (service/rules/scoring.py)
Ranker = Callable[[int], list[str]]  # query index -> ids, best first


class Baselines:
    """BM25, dense, RRF and the weighted sum over one store, for a list of queries."""

    def __init__(
        self,
        db_path: Path,
        queries: Sequence[str],
        asked: Sequence[str | None] | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        """`asked`: each query's asking time (ISO, UTC), where the set dates them;
        `embedder`: the daemon's (loaded here if not given; a run over many stores
        passes one)."""
        self._asked = list(asked) if asked is not None else [None] * len(queries)
        conn = db.connect(db_path, writer=False)
        try:
            id_of: dict[int, str] = {}
            created_of: dict[int, str] = {}
            for rid, entry_id, created in conn.execute(
                "SELECT rid, id, created_at FROM context_entries"
            ):
                id_of[rid], created_of[rid] = str(entry_id), created
            rids, vectors = store_vectors(conn)
            self._bm25 = [
                self.words(conn, q, id_of, at) for q, at in zip(queries, self._asked, strict=True)
            ]
        finally:
            conn.close()
        self._ids = [id_of[rid] for rid in rids]
        self._created = np.array(
            [created_of[rid][:-1] for rid in rids], dtype="datetime64[us]"
        )  # stamps end in Z
        self._column = {x: i for i, x in enumerate(self._ids)}
        # The daemon's own embedder (its 8-bit build), so dense shares its query vectors.
        if embedder is None:
            embedder = build8.load(locate(Path("/nonexistent")), paths.resolve().cache_dir)
        qvecs = embedder.embed_many(list(queries))
        self._vectors, self._qvecs = vectors, qvecs
        self._sims = qvecs @ vectors.T  # exact cosine: the vectors are unit length
        for i, at in enumerate(self._asked):
            if at is not None:  # said after the question: not there to be found
                self._sims[i][self._created > _instant(at)] = -np.inf
        self._dense = [self._top(s) for s in self._sims]

    @staticmethod
    def words(
        conn: apsw.Connection, query: str, id_of: dict[int, str], asked: str | None
    ) -> list[tuple[str, float]]:
        """FTS5 BM25, every word of the query quoted and OR-ed (higher is better)."""
        words = re.findall(r"\w+", query)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        if asked is None:
            sql, args = "", ()
        else:
            sql, args = "JOIN context_entries e ON e.rid = f.rowid AND e.created_at <= ? ", (asked,)
        cur = conn.execute(
            f"SELECT f.rowid, -bm25(context_fts) AS s FROM context_fts f {sql}"
            "WHERE context_fts MATCH ? ORDER BY s DESC LIMIT ?",
            (*args, match, TOP),
        )
        return [(str(id_of[rid]), float(s)) for rid, s in cur]

    def _top(self, sims: npt.NDArray[np.float32]) -> list[tuple[str, float]]:
        best = np.argpartition(-sims, min(TOP, len(sims) - 1))[:TOP]
        best = best[np.argsort(-sims[best])]
        return [(self._ids[i], float(sims[i])) for i in best]

    def bm25(self, i: int) -> list[str]:
        return [x for x, _ in self._bm25[i]]

    def dense(self, i: int) -> list[str]:
        return [x for x, _ in self._dense[i]]

    def pooled(self, i: int, group_of: dict[str, str]) -> list[str]:
        """Dense over groups of memories (LongMemEval's whole sessions), each group the
        mean of its memories' unit vectors, renormalised; best first. Memories said after
        the question leave their group's mean; a group left empty is not there."""
        said = np.isfinite(self._sims[i])
        keys = sorted({group_of[x] for x, ok in zip(self._ids, said, strict=True) if ok})
        row = {k: n for n, k in enumerate(keys)}
        sums = np.zeros((len(keys), self._vectors.shape[1]), dtype=np.float64)
        for col, x in enumerate(self._ids):
            if said[col]:
                sums[row[group_of[x]]] += self._vectors[col]
        sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        sims = sums @ self._qvecs[i].astype(np.float64)
        return [keys[n] for n in np.argsort(-sims, kind="stable")]

    def rrf(self, i: int) -> list[str]:
        score: dict[str, float] = {}
        for ranked in (self.bm25(i), self.dense(i)):
            for rank, x in enumerate(ranked):
                score[x] = score.get(x, 0.0) + 1 / (RRF_K + rank + 1)
        return sorted(score, key=lambda x: -score[x])

    def weighted(self, i: int) -> list[str]:
        """DENSE_WEIGHT cosine + BM25_WEIGHT BM25 divided by the query's top BM25 score (the
        README's best baseline, without its 0.1 recency: ages are ignored here, which on a dated
        set such as the conversations is the baseline's choice, not Enyal's)."""
        return self._blend(i, recency=False)

    def weighted_recency(self, i: int) -> list[str]:
        """The weighted sum plus 0.1 recency halving every 30 days before the question."""
        return self._blend(i, recency=True)

    def _blend(self, i: int, recency: bool) -> list[str]:
        words = dict(self._bm25[i])
        score = DENSE_WEIGHT * self._sims[i].astype(np.float64)
        if recency:
            at = self._asked[i]
            assert at is not None, "recency needs the question's date"
            ages = (_instant(at) - self._created).astype(np.float64) / 86_400e6
            score = score + 0.1 * np.power(0.5, np.maximum(ages, 0.0) / RECENCY_HALF_LIFE_DAYS)
        return fuse(score, self._column, words, self.dense(i))

    def rankers(self) -> dict[str, Ranker]:
        methods = {
            "BM25": self.bm25,
            "dense": self.dense,
            "RRF": self.rrf,
            "weighted": self.weighted,
        }
        if all(at is not None for at in self._asked):
            methods["weighted+recency"] = self.weighted_recency
        return methods


def store_vectors(conn: apsw.Connection) -> tuple[list[int], npt.NDArray[np.float32]]:
    """Every whole text's vector the store holds: (rids, an (n, dim) matrix, row i rid i's)."""
    rows = conn.execute("SELECT rowid, embedding FROM context_vectors").fetchall()
    matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32)
    return [rid for rid, _ in rows], matrix.reshape(len(rows), -1)


def fuse(
    dense_part: npt.NDArray[np.float64],
    column: dict[str, int],
    words: dict[str, float],
    dense_top: list[str],
) -> list[str]:
    """The weighted sum of the dense part (weight and any recency already in it, one value
    a column) and BM25 over the query's top BM25 score, over the union of both sides' top
    candidates; ids best first."""
    top = max(words.values(), default=0.0) or 1.0
    blended = {
        x: float(dense_part[column[x]]) + BM25_WEIGHT * words.get(x, 0.0) / top
        for x in {*words, *dense_top}
    }
    return sorted(blended, key=lambda x: -blended[x])


class OneQuery:
    """The weighted sum asked one query at a time, its embedding included: what a user
    would build from the same parts (FTS5 and every vector in numpy), timed per query
    beside recall (the bench's SciFact rows). The same words, vectors and fusion as
    Baselines.weighted."""

    def __init__(self, db_path: Path, embedder: Embedder) -> None:
        self._conn = db.connect(db_path, writer=False)
        self._id_of = {
            rid: str(x) for rid, x in self._conn.execute("SELECT rid, id FROM context_entries")
        }
        rids, self._vectors = store_vectors(self._conn)
        self._ids = [self._id_of[rid] for rid in rids]
        self._column = {x: i for i, x in enumerate(self._ids)}
        self._embedder = embedder

    def weighted(self, query: str) -> list[str]:
        sims = self._vectors @ self._embedder.embed(query)
        best = np.argpartition(-sims, min(TOP, len(sims) - 1))[:TOP]
        dense_top = [self._ids[i] for i in best]
        words = dict(Baselines.words(self._conn, query, self._id_of, None))
        return fuse(DENSE_WEIGHT * sims.astype(np.float64), self._column, words, dense_top)

    def close(self) -> None:
        self._conn.close()


def _instant(iso: str) -> np.datetime64:
    return np.datetime64(datetime.fromisoformat(iso.replace("Z", "")), "us")

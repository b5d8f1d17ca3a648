"""The daemon's embedder with a disk cache: each distinct text is embedded once, ever.

LongMemEval_S's standard protocol builds one store a question (scripts/eval_recall,
benchlib/longmemeval.py): ~500 stores of ~250 user turns, ~94k distinct turns in all,
which at the 30-90 texts/s this shared machine embeds would take hours a run if every
store embedded its own. CachedEmbedder is the daemon's own Embedder class on its
builds (embedder/build8.py: the same model files the daemon runs), whose embed_many looks
each text up first in an SQLite file under the bench cache, keyed by the model's hash
and the text's sha256, and embeds (and keeps) only the ones not there. What a store
holds is therefore exactly what the daemon would have stored for those texts (a text's
vector does not depend on the batch it is embedded in, beyond float rounding).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from enyal_daemon.embedder import build8
from enyal_daemon.embedder.model_files import DIM, locate
from enyal_daemon.embedder.onnx import SHORT_TOKENS, UNFUSED, Embedder, Vectors


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class CachedEmbedder(Embedder):
    """Embedder whose embed_many answers from `cache_dir`/vectors-<model>.db when it can."""

    def __init__(self, cache_dir: Path, model_cache_dir: Path) -> None:
        files = build8.with_build(locate(Path("/nonexistent")), model_cache_dir)
        super().__init__(files)
        # The model and what runs it: the 8-bit build's vectors are not the source model's,
        # and texts past SHORT_TOKENS may run on the fp32 build (embedder/onnx.py).
        # (A build is named by the vectors it computes: build8.vectors_name.)
        runs = build8.vectors_name(files.runtime) if files.runtime is not None else "source"
        if files.long_runtime != files.runtime:
            long = (
                build8.vectors_name(files.long_runtime)
                if files.long_runtime is not None
                else "source"
            )
            runs += f" {long} past {SHORT_TOKENS}"
        # How onnxruntime runs them: a fusion left out changes the 8-bit build's vectors
        # (onnx.UNFUSED; none named: the vectors cached before it).
        if UNFUSED:
            runs += f" unfused {','.join(UNFUSED)}"
        tag = hashlib.sha256(f"{files.model_sha256} {runs}".encode()).hexdigest()[:16]
        path = cache_dir / f"vectors-{tag}.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        # The engine embeds on two threads at once (engine.embed_many): one connection,
        # guarded by a lock.
        self._db = sqlite3.connect(path, timeout=120, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS v (k BLOB PRIMARY KEY, vec BLOB) WITHOUT ROWID"
        )
        self._lock = threading.Lock()
        self.embedded = 0  # texts this process had to embed (not found in the cache)

    def embed_many(
        self, texts: list[str], ids: Sequence[list[int] | None] | None = None
    ) -> Vectors:
        keys = [_key(t) for t in texts]
        found = self._lookup(keys)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if missing:
            known = dict(zip(texts, ids, strict=True)) if ids is not None else {}
            vecs = super().embed_many(missing, [known.get(t) for t in missing])
            rows = [(_key(t), v.tobytes()) for t, v in zip(missing, vecs, strict=True)]
            with self._lock, self._db:
                self._db.executemany("INSERT OR IGNORE INTO v VALUES (?, ?)", rows)
            found.update(rows)
            self.embedded += len(missing)
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype=np.float32)
        return out

    def embed(self, text: str) -> Vectors:
        vec: Vectors = self.embed_many([text])[0]
        return vec

    def _lookup(self, keys: list[bytes]) -> dict[bytes, bytes]:
        out: dict[bytes, bytes] = {}
        with self._lock:
            for start in range(0, len(keys), 500):  # SQLite's bound-parameter limit
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                out.update(self._db.execute(f"SELECT k, vec FROM v WHERE k IN ({marks})", chunk))
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()

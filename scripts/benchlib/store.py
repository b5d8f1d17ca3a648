"""Stores of n memories for the benchmark, built once through the bulk path and cached.

A store is built by enyal_daemon.tools.bulk.load (entries + vectors + FTS rows
through the daemon's own store functions, daemon stopped) from corpus.entries, then
kept under the cache dir and copied into each benchmark's ENYAL_HOME.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchlib import corpus

# bump when the corpus or the schema changes what a cached store holds (4: metadata on
# 60% of memories; 100k real texts; 5: keyword indexes merged by the bulk load)
STORE_VERSION = "5"
CALIBRATION_TEXTS = 256


@dataclass
class Engine:
    """The daemon's embedder, loaded in the benchmark process to build stores."""

    embedder: Any
    files: Any

    @classmethod
    def load(cls) -> Engine:
        from enyal_daemon.embedder import build8
        from enyal_daemon.embedder.model_files import locate
        from enyal_protocol import paths

        files = locate(Path("/nonexistent"))  # the installed model, never a user's download
        # What the daemon runs (its 8-bit build), made once into the bench's cache dir,
        # which scripts/bench hands every daemon it starts (ENYAL_CACHE_DIR).
        embedder = build8.load(files, paths.resolve().cache_dir)
        return cls(embedder, embedder.files)

    def embed_many(self, texts: list[str]) -> corpus.F32:
        """Both cores: two onnxruntime runs at once, as the daemon does."""
        chunks = [texts[i : i + 64] for i in range(0, len(texts), 64)]
        with ThreadPoolExecutor(2) as pool:
            parts = list(pool.map(self.embedder.embed_many, chunks))
        return np.concatenate(parts) if parts else np.zeros((0, 384), np.float32)


@dataclass
class Corpus:
    texts: list[tuple[str, str]]
    vecs: corpus.F32
    calibrated_cos: float
    sigma: float
    embed_seconds: float


def make_corpus(engine: Engine, base: int, cache: Path, log: corpus.Log) -> Corpus:
    t0 = time.perf_counter()
    texts = corpus.base_texts(base)
    tag = engine.files.model_sha256
    vecs = corpus.embed_blocks([t for _, t in texts], engine.embed_many, cache, tag, log)
    rng = random.Random(5)
    probe = [t for _, t in texts[:CALIBRATION_TEXTS]]
    variants = corpus.embed_cached(
        [corpus.variant(t, rng) for t in probe], engine.embed_many, cache, tag
    )
    cos, sigma = corpus.calibrate(vecs[: len(probe)], variants)
    return Corpus(texts, vecs, cos, sigma, time.perf_counter() - t0)


def _entry(fields: dict[str, Any]) -> Any:
    from enyal_daemon.service.rules.clock import to_iso
    from enyal_daemon.store.entries import content_hash
    from enyal_protocol import wire as p

    created: datetime = fields["created_at"]
    stamp = to_iso(created)
    return p.Entry(
        id=fields["id"],
        content=fields["content"],
        content_type=fields["content_type"],
        scope_level=fields["scope_level"],
        scope_path=fields["scope_path"],
        confidence=fields["confidence"],
        created_at=stamp,
        updated_at=stamp,
        accessed_at=None,
        access_count=fields["access_count"],
        source_type=fields["source_type"],
        source_ref=None,
        tags=fields["tags"],
        metadata=fields["metadata"],
        is_deprecated=fields["is_deprecated"],
        content_hash=content_hash(fields["content"]),
    )


def quick_store(n: int, cache: Path, log: Any) -> Path:
    """The store of n memories `scripts/bench --quick` recalls from (built if missing):
    what the profilers (profile_daemon, profile_tail) run a daemon on."""
    from benchlib.config import QUICK

    engine = Engine.load()
    c = make_corpus(engine, QUICK.base_texts, cache, log)
    store, _ = cached_store(engine, c, n, cache, log)
    return store


def cached_store(engine: Engine, c: Corpus, n: int, cache: Path, log: Any) -> tuple[Path, float]:
    """Path of a cached store of n memories (built now if missing), and build seconds (0 if
    it was cached)."""
    from enyal_daemon.store import migrations
    from enyal_daemon.tools import bulk

    schema = hashlib.sha256(Path(migrations.__file__).read_bytes()).hexdigest()
    key = hashlib.sha256(
        f"{STORE_VERSION}|{n}|{len(c.texts)}|{c.sigma:.6f}|{engine.files.model_sha256}|{schema}".encode()
    ).hexdigest()[:16]
    path = cache / f"store-{n}-{key}.db"
    if path.exists():
        return path, 0.0
    tmp = cache / f"building-{n}-{key}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    t0 = time.perf_counter()
    log(f"building a store of {n:,} memories (bulk path; cached for later runs)")
    items = ((_entry(f), v) for f, v in corpus.entries(n, c.texts, c.vecs, c.sigma))
    bulk.load(tmp / "enyal.db", items, engine.files)
    (tmp / "enyal.db").replace(path)
    shutil.rmtree(tmp, ignore_errors=True)
    return path, time.perf_counter() - t0


def install(store: Path, home: Path) -> None:
    """Copy a cached store into a fresh ENYAL_HOME."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(store, home / "enyal.db")

"""How much of everything each mode runs, and the context every section shares."""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchlib.report import Report
from benchlib.store import Corpus, Engine


@dataclass(frozen=True)
class Config:
    mode: str
    sizes: tuple[int, ...]
    base_texts: int  # distinct texts embedded for real (corpus.py)
    warmup: int  # recalls before any timing
    recall_runs: int
    recall_queries: int  # per run
    knn_queries: int  # per size, the enyal index and numpy float32 side by side
    vec0_queries: int  # of those, also timed on sqlite-vec's own KNN (slow: fewer)
    cold_rounds: int  # enyal-mcp / per-client pairs
    cli_reps: int
    peer_cli_reps: int
    remember_runs: int
    remember_per_run: int
    import_runs: int
    import_lines: int
    agent_rounds: int
    agent_seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Config(
    mode="quick",
    sizes=(10_000,),
    base_texts=2_000,
    warmup=20,
    recall_runs=3,
    recall_queries=40,
    knn_queries=30,
    vec0_queries=10,
    cold_rounds=2,
    cli_reps=5,
    peer_cli_reps=1,
    remember_runs=2,
    remember_per_run=25,
    import_runs=1,
    import_lines=200,
    agent_rounds=1,
    agent_seconds=2.0,
)

FULL = Config(
    mode="full",
    sizes=(10_000, 100_000),
    base_texts=10_000,
    warmup=50,
    recall_runs=5,
    recall_queries=200,
    knn_queries=200,
    vec0_queries=40,
    cold_rounds=8,
    cli_reps=30,
    peer_cli_reps=5,
    remember_runs=5,
    remember_per_run=100,
    import_runs=3,
    import_lines=1_000,
    agent_rounds=3,
    agent_seconds=15.0,
)


@dataclass
class Ctx:
    cfg: Config
    report: Report
    engine: Engine
    corpus: Corpus
    cache: Path
    work: Path
    t0: float = field(default_factory=time.perf_counter)

    def log(self, msg: str) -> None:
        print(f"[{time.perf_counter() - self.t0:6.1f}s] {msg}", file=sys.stderr, flush=True)

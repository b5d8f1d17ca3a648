"""How much of everything each mode runs, and the context every section shares."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchlib.report import Report
from benchlib.store import Corpus, Engine


@dataclass(frozen=True)
class Config:
    mode: str
    sizes: tuple[int, ...]
    base_texts: int  # distinct texts embedded for real (corpus.py); stores up to it are all real
    warmup: int  # recalls before any timing
    recall_runs: int
    recall_queries: int  # per run, every one distinct across runs
    filter_queries: int  # per filter kind, each a distinct query (s_filters.py)
    knn_queries: int  # per size, the enyal index and numpy float32 side by side
    vec0_queries: int  # of those, also timed on sqlite-vec's own KNN (slow: fewer)
    cold_rounds: int  # enyal-mcp / per-client pairs
    cli_reps: int
    peer_cli_reps: int
    remember_runs: int  # each: a batch alone, then a batch while another client recalls
    remember_per_run: int
    import_runs: int
    import_lines: int
    scifact_lines: int  # SciFact abstracts imported before the RSS reading that has a target
    scifact_claims: int  # SciFact claims recalled on its own store (s_scifact.py); 0: not run
    agent_rounds: int
    agent_seconds: float
    bound_seconds: float  # the embedding bound, measured before each round of agents

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Config(
    mode="quick",
    sizes=(10_000,),
    # a smoke, not a measurement: 2,000 real texts embed in ~5 s on a fresh CI cache, so
    # the 10k store is 2,000 real vectors and 8,000 calibrated perturbations of them
    base_texts=2_000,
    warmup=20,
    recall_runs=3,
    recall_queries=40,
    filter_queries=10,
    knn_queries=30,
    vec0_queries=10,
    cold_rounds=2,
    cli_reps=5,
    peer_cli_reps=1,
    remember_runs=2,
    remember_per_run=25,
    import_runs=1,
    import_lines=200,
    scifact_lines=50,
    scifact_claims=0,  # its store is ~3.5 min to import the first time: not a smoke
    # Two rounds of 4 s, not one of 2: one 2 s round's daemon / per-client ratio swung
    # 0.55-1.66 on this machine (ARCHITECTURE "Round nine"); a row is a median of rounds.
    agent_rounds=2,
    agent_seconds=4.0,
    bound_seconds=1.0,
)

FULL = Config(
    mode="full",
    sizes=(10_000, 100_000),
    base_texts=100_000,  # ~4 min to embed on 2 cores, once (cached)
    warmup=50,
    recall_runs=5,
    recall_queries=240,  # 1,200 distinct queries pooled per size
    filter_queries=120,
    knn_queries=1_000,
    vec0_queries=40,
    cold_rounds=8,
    cli_reps=30,
    peer_cli_reps=5,
    remember_runs=5,
    remember_per_run=100,
    import_runs=3,
    import_lines=1_000,
    scifact_lines=3_000,
    scifact_claims=300,  # every claim
    agent_rounds=3,
    agent_seconds=12.0,
    bound_seconds=6.0,
)


@dataclass
class Ctx:
    cfg: Config
    report: Report
    engine: Engine
    corpus: Corpus
    cache: Path
    work: Path
    client_bin: Path  # `enyal`, `enyal-mcp` and `python` of the install the clients are timed on

    def log(self, msg: str) -> None:
        log(msg)


T0 = time.perf_counter()


def log(msg: str) -> None:
    """A progress line on stderr, with the 1-min load average: the machine is shared, and
    a slow section next to a busy minute reads differently from one on an idle machine."""
    load = os.getloadavg()[0]
    print(f"[{time.perf_counter() - T0:6.1f}s load {load:4.2f}] {msg}", file=sys.stderr, flush=True)

"""Every candidate's features, per query, for scripts/train_fusion: recall's own code.

For each query of a set, the candidates recall would rank (service/memory/recall.py
`ranking_inputs`: the same keyword and vector searches, the same filter and asking
time) and their feature matrix (service/rules/ranking.py `features`, the one the live
scorer reads), computed in this process on an Engine over the set's store with the
daemon's embedder behind the disk cache (benchlib/vector_cache.py). Each query keeps
what its set's metrics need: the memory set and the conversations their gold ids,
LongMemEval_S its answer sessions, evidence turns and each memory's sessions and turns.

Labels: a candidate is relevant when it is a gold memory; for LongMemEval_S when it is
an evidence turn (`has_answer`), or, for a question whose evidence is the assistant's
(no user turn has it), a turn of an answer session.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchlib import longmemeval
from benchlib.vector_cache import CachedEmbedder
from enyal_daemon.service.core.engine import Engine
from enyal_daemon.service.memory import recall
from enyal_daemon.service.rules import ranking, timewords
from enyal_protocol import wire as p


@dataclass
class QueryRows:
    set: str
    split: str
    qid: str
    category: str
    query: str
    ids: list[str]  # the candidates' memory ids, in recall's candidate order
    parts: ranking.Parts | None  # their score parts (None: no candidate)
    y: np.ndarray[Any, np.dtype[np.float64]]  # 1 relevant, 0 not
    gold: set[str]  # the relevant memory ids (some may not be candidates)
    # LongMemEval_S only: its answer sessions and evidence turns, each memory's of both
    answers: set[str] = field(default_factory=set)
    evidence: set[str] = field(default_factory=set)
    sessions_of: dict[str, list[str]] = field(default_factory=dict)
    turns_of: dict[str, list[str]] = field(default_factory=dict)
    _x: Any = field(default=None, repr=False)

    @property
    def x(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The feature matrix, built from the parts by today's ranking.features (the
        export keeps the parts, so a new feature needs no new export)."""
        if self._x is None:
            n = len(ranking.FEATURES)
            window = timewords.window(self.query)
            self._x = (
                np.zeros((0, n)) if self.parts is None else ranking.features(self.parts, window)
            )
        return np.asarray(self._x)


def _rows(
    engine: Engine, text: str, limit: int, asked_at: str | None
) -> tuple[list[str], ranking.Parts | None]:
    params = p.RecallParams(
        query=text, limit=limit, min_confidence=0.0, min_relative=0.0, asked_at=asked_at
    )
    found, now, written = recall.ranking_inputs(engine, params)
    if not found:
        return [], None
    x = ranking.parts(found, now, lambda level, path: 1.0, engine.decay_rates, written)
    return [c.row.id for c in found], x


def from_store(
    name: str,
    db: Path,
    embedder: CachedEmbedder,
    queries: Sequence[tuple[str, set[str], dict[str, str]]],
    limit: int = 10,
) -> list[QueryRows]:
    """A set held in one store (the memory set, the conversations): a copy of `db` is
    opened, so the cached import is left as it was."""
    home = Path(tempfile.mkdtemp(prefix=f"enyal-fusion-{name}-"))
    try:
        shutil.copyfile(db, home / "enyal.db")
        engine = Engine(home / "enyal.db", embedder)
        out = []
        try:
            for i, (text, gold, labels) in enumerate(queries):
                ids, x = _rows(engine, text, limit, labels.get("asked_at"))
                y = np.array([float(c in gold) for c in ids])
                split, category = labels.get("split", "all"), labels.get("category", "")
                out.append(QueryRows(name, split, f"{name}/{i}", category, text, ids, x, y, gold))
        finally:
            engine.close()
        return out
    finally:
        shutil.rmtree(home, ignore_errors=True)


def from_longmemeval(
    questions: Sequence[longmemeval.Question],
    turns: dict[str, longmemeval.Turns],
    embedder: CachedEmbedder,
    asked: Callable[[str], str],
    log: Callable[[str], None],
) -> Iterator[QueryRows]:
    """One store a question, built as the standard protocol builds it, asked at its date."""
    when = longmemeval._conversations_build().when
    for n, q in enumerate(questions, 1):
        store = longmemeval.memories(q, turns, when)
        home = Path(tempfile.mkdtemp(prefix="enyal-fusion-lme-"))
        try:
            stored = longmemeval.build_store(home / "enyal.db", store, embedder)
            engine = Engine(home / "enyal.db", embedder)
            try:
                ids, x = _rows(engine, q.text, longmemeval.LIMIT, asked(q.date))
            finally:
                engine.close()
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if store.evidence:
            gold = {m for m, ts in stored.turns_of.items() if store.evidence & set(ts)}
        else:
            gold = {m for m, ss in stored.sessions_of.items() if q.answers & set(ss)}
        y = np.array([float(c in gold) for c in ids])
        log(f"fusion: longmemeval {n}/{len(questions)} {q.qid}")
        yield QueryRows(
            "longmemeval",
            q.split,
            q.qid,
            q.qtype,
            q.text,
            ids,
            x,
            y,
            gold,
            answers=q.answers,
            evidence=store.evidence,
            sessions_of=stored.sessions_of,
            turns_of=stored.turns_of,
        )

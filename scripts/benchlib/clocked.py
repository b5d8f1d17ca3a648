"""Each part of a recall on its own thread's CPU clock, without a profiler (issue 30).

cProfile magnifies Python several times over and C not at all, so its shares mislead
when the question is how much real CPU a change took off. Here named functions are
wrapped, before the engine is built, in accumulators of `time.thread_time`: a part is
counted once per outermost call (a recursive or nested call of the same function is
not counted twice), on whichever thread runs it (the request pool, an embedding
worker). A name bound elsewhere by `from module import name` is rebound too, so
recall.py's own reference to ranking.rank is the wrapped one.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

# (label, module, qualified name): one recall's parts, the verb's outermost first.
PARTS: list[tuple[str, str, str]] = [
    ("the verb's search (request thread)", "service.memory.recall", "_search"),
    ("the cwd's project (identity.follow)", "service.core.identity", "follow"),
    ("filter (view)", "service.memory.recall", "_filter"),
    ("keywords (FTS5)", "index.keywords", "Remembered.search"),
    ("KNN (the index's search)", "index.entry_index", "EntryIndex.search"),
    ("keyword hits' similarity", "index.entry_index", "EntryIndex.similarity"),
    ("passage counts (chance)", "index.passages", "PassageIndex.counts"),
    ("rows", "store.entries", "by_rids"),
    ("candidates", "service.memory.recall", "_candidates"),
    ("scoring", "service.rules.ranking", "rank"),
    ("hits", "service.rules.ranking", "hits"),
    ("validity", "service.memory.validity", "annotate"),
    ("sources", "service.files.sources", "annotate"),
    ("bookkeeping on the request (_used)", "service.memory.recall", "_used"),
    ("embedding: inference (worker)", "embedder.onnx", "Embedder._run"),
]
PACKAGE = "enyal_daemon."

_spent: dict[str, float] = defaultdict(float)
_depth = threading.local()


def install() -> None:
    """Wrap every part (call before the engine and its verbs are built)."""
    importlib.import_module(PACKAGE + "service.verbs")  # every module the verbs use
    for label, module, qualname in PARTS:
        _wrap(label, importlib.import_module(PACKAGE + module), qualname)


def reset() -> None:
    """Forget what was counted so far (the warm-up)."""
    _spent.clear()


def report(recalls: int) -> None:
    for label, _, _ in PARTS:
        print(f"  {label:40s} {_spent[label] / recalls * 1e3:6.3f} ms")


def _wrap(label: str, module: Any, qualname: str) -> None:
    *path, name = qualname.split(".")
    owner = functools.reduce(getattr, path, module)
    real: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(real)
    def clocked(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_depth, label, 0)
        setattr(_depth, label, depth + 1)
        start = time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            setattr(_depth, label, depth)
            if depth == 0:
                _spent[label] += time.thread_time() - start

    setattr(owner, name, clocked)
    if not path:  # a module's function: rebind it where it was imported by name
        for other in list(sys.modules.values()):
            ours = getattr(other, "__name__", "").startswith(PACKAGE)
            if ours and getattr(other, name, None) is real:
                setattr(other, name, clocked)

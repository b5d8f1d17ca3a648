"""What the model said of a text, remembered: its token count and, for a query, its
vector. Both are pure functions of the text for the daemon's life (the model and its
tokenizer are fixed once loaded), so nothing a write does can make one stale, and
nothing here needs invalidating: a store change never reaches these caches.

Why (issue 29, docs/ARCHITECTURE.md "Hooks and what they cost"): the brief counted the
tokens of every item it might show on every call (~300 texts for a 1,500-token brief at
10k memories, 60% of its time), a recall's budget counts the same memories' texts again
and again, and hooks embed the same queries again and again (the query about a file
before a tool touches it is the file's path; a failing test fails with the same error
run after run). Each cache is a least-recently-used one, bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future

import numpy as np

from .onnx import Vectors

COUNT_CHARS = 4_000_000  # characters of counted texts kept (~10 MB with the dict's own)
COUNT_TEXT_MAX = 16_384  # a longer text is counted every time: one would evict many
QUERY_VECTORS = 512  # 384 floats each: ~0.8 MB


class TokenCounts:
    """`count` (a batch of texts -> their token counts), each text's count remembered."""

    def __init__(
        self,
        count: Callable[[list[str]], list[int]],
        max_chars: int = COUNT_CHARS,
        text_max: int = COUNT_TEXT_MAX,
    ) -> None:
        self._count = count
        self._max_chars = max_chars
        self._text_max = text_max
        self._known: OrderedDict[str, int] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # verbs run on worker threads

    def __len__(self) -> int:
        return len(self._known)

    def count(self, texts: Sequence[str]) -> list[int]:
        out: list[int | None] = []
        with self._lock:
            for text in texts:
                n = self._known.get(text)
                if n is not None:
                    self._known.move_to_end(text)
                out.append(n)
        missing = list(dict.fromkeys(t for t, n in zip(texts, out, strict=True) if n is None))
        if missing:  # one batch, outside the lock: the tokenizer releases the GIL
            counted = dict(zip(missing, self._count(missing), strict=True))
            self._keep(counted)
            out = [counted[t] if n is None else n for t, n in zip(texts, out, strict=True)]
        return [n for n in out if n is not None]

    def _keep(self, counted: dict[str, int]) -> None:
        with self._lock:
            for text, n in counted.items():
                if len(text) > self._text_max or text in self._known:
                    continue
                self._known[text] = n
                self._chars += len(text)
            while self._chars > self._max_chars:
                old, _ = self._known.popitem(last=False)
                self._chars -= len(old)


class QueryVectors:
    """A query's vector by its text (the window the model reads), the last `size` kept.
    A vector handed out is read-only: every caller shares it."""

    def __init__(self, size: int = QUERY_VECTORS) -> None:
        self._size = size
        self._known: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._known)

    def get(self, text: str) -> Future[Vectors] | None:
        """The vector as a done future (as the batcher's would be), None if not known."""
        with self._lock:
            vec = self._known.get(text)
            if vec is None:
                return None
            self._known.move_to_end(text)
        done: Future[Vectors] = Future()
        done.set_result(vec)
        return done

    def keep(self, text: str, pending: Future[Vectors]) -> Future[Vectors]:
        """`pending`'s vector is remembered for `text` once it comes (not if it fails)."""

        def store(fut: Future[Vectors]) -> None:
            if fut.cancelled() or fut.exception() is not None:
                return
            vec = np.array(fut.result(), dtype=np.float32)  # our own copy, frozen
            vec.flags.writeable = False
            with self._lock:
                self._known[text] = vec
                self._known.move_to_end(text)
                while len(self._known) > self._size:
                    self._known.popitem(last=False)

        pending.add_done_callback(store)
        return pending

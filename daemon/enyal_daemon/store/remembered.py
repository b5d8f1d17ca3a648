"""Values computed from the store, kept while one of its Version's counts stays put
(store/writer.py): a search or a listing asked again with nothing written in between
gives what it gave, so it is not run again. The count is read before computing: a
value found while a write commits is kept under the count before it, which nothing
asked after the write looks up."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Remembered(Generic[V]):
    """At most `size` values by key (least recently used out first), all dropped when
    `count()` moves."""

    def __init__(self, count: Callable[[], int], size: int) -> None:
        self._count = count
        self._size = size
        self._at = count()
        self._known: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()  # verbs run on worker threads

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The value for `key`: remembered, or computed now (and remembered)."""
        at = self._count()
        with self._lock:
            if self._at != at:
                self._known.clear()
                self._at = at
            if key in self._known:
                self._known.move_to_end(key)
                return self._known[key]
        value = compute()
        with self._lock:
            if self._at == at:
                self._known[key] = value
                while len(self._known) > self._size:
                    self._known.popitem(last=False)
        return value

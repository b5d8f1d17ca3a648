"""Scopes and types as small integers, for the vector index's per-row group and kind.

A scope is (level, path); the index keeps one int32 per row instead, so that a
search within a scope (dedup, a project's recall, the file → global chain) is a
numpy mask over the rows rather than a list of rids read from SQLite (34 ms for a
global scope of 100k entries). Keys live as long as the daemon; an entry never
changes scope, so a row's group never changes either.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable
from typing import get_args

from enyal_protocol.wire import ContentType

# 0 is a type this release does not know (a newer daemon's, read by an older one): no
# type filter matches it, as none would in SQL.
_KINDS = {name: code for code, name in enumerate(get_args(ContentType), 1)}

# How many matching() answers are remembered (one per place agents work from).
MAX_MATCHED = 1024


def kind_code(content_type: str) -> int:
    """The type's small integer in the index."""
    return _KINDS.get(content_type, 0)


class ScopeGroups:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[tuple[str, str | None], int] = {}
        self._by_path: dict[str | None, list[int]] = {}
        # matching()'s answers by the caller's key, with how many groups there were then:
        # a recall from a project asked the same of every group (hundreds of Python calls,
        # ~8% of a recall's CPU at 10k) although groups are only ever added.
        self._matched: dict[Hashable, tuple[int, list[int]]] = {}

    def key(self, level: str, path: str | None) -> int:
        """The scope's group, made on first sight."""
        scope = (level, path)
        got = self._keys.get(scope)
        if got is not None:
            return got
        with self._lock:
            got = self._keys.get(scope)
            if got is None:
                got = len(self._keys) + 1
                self._keys[scope] = got
                self._by_path.setdefault(path, []).append(got)
            return got

    def known(self, scopes: Iterable[tuple[str, str | None]]) -> list[int]:
        """The groups of those scopes that hold (or held) an entry."""
        return [k for s in scopes if (k := self._keys.get(s)) is not None]

    def matching(
        self, wanted: Callable[[str | None], bool], key: Hashable | None = None
    ) -> list[int]:
        """The groups whose path is wanted (a view's scopes: few, next to the rows).
        `key`: what `wanted` depends on alone (a View); the answer is then remembered until
        a group is added, since keys never change or go."""
        with self._lock:
            if key is not None:
                memo = self._matched.get(key)
                if memo is not None and memo[0] == len(self._keys):
                    return list(memo[1])
            found = [k for (_, path), k in self._keys.items() if wanted(path)]
            if key is not None:
                if len(self._matched) >= MAX_MATCHED:
                    self._matched.clear()
                self._matched[key] = (len(self._keys), found)
                return list(found)
            return found

    def at_path(self, path: str | None) -> list[int]:
        """The groups of every level at this path."""
        with self._lock:
            return list(self._by_path.get(path, ()))

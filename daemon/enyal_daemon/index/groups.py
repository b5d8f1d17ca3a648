"""Scopes and types as small integers, for the vector index's per-row group and kind.

A scope is (level, path); the index keeps one int32 per row instead, so that a
search within a scope (dedup, a project's recall, the file → global chain) is a
numpy mask over the rows rather than a list of rids read from SQLite (34 ms for a
global scope of 100k entries). Keys live as long as the daemon; an entry never
changes scope, so a row's group never changes either. When a project's key changes
(service/core/identity.py) its groups are renamed instead: a scope can then hold more than
one group, its own and those merged into it.
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
        self._also: dict[tuple[str, str | None], list[int]] = {}  # merged in by rename
        # Bumped by every change to the groups (a new one, a rename): matching()'s answers
        # are remembered by the caller's key with the generation they were made in. A
        # recall from a project asked the same of every group (hundreds of Python calls,
        # ~8% of a recall's CPU at 10k) though the groups seldom change.
        self._generation = 0
        self._matched: dict[Hashable, tuple[int, list[int]]] = {}
        # Group ids are never reused: a rename can merge two scopes' entries in _keys,
        # so their count is no source of a new id.
        self._next = 1

    def key(self, level: str, path: str | None) -> int:
        """The scope's group, made on first sight."""
        scope = (level, path)
        got = self._keys.get(scope)
        if got is not None:
            return got
        with self._lock:
            got = self._keys.get(scope)
            if got is None:
                got = self._next
                self._next += 1
                self._generation += 1
                self._keys[scope] = got
                self._by_path.setdefault(path, []).append(got)
            return got

    def known(self, scopes: Iterable[tuple[str, str | None]]) -> list[int]:
        """The groups of those scopes that hold (or held) an entry."""
        found = [k for s in scopes if (k := self._keys.get(s)) is not None]
        return found + [k for s in scopes for k in self._also.get(s, ())] if self._also else found

    def matching(
        self, wanted: Callable[[str | None], bool], key: Hashable | None = None
    ) -> list[int]:
        """The groups whose path is wanted (a view's scopes: few, next to the rows).
        `key`: what `wanted` depends on alone (a View); the answer is then remembered until
        the groups change (a group added, a rename)."""
        with self._lock:
            if key is not None:
                memo = self._matched.get(key)
                if memo is not None and memo[0] == self._generation:
                    return list(memo[1])
            found = [k for (_, path), k in self._keys.items() if wanted(path)]
            found += [k for (_, path), ks in self._also.items() if wanted(path) for k in ks]
            if key is not None:
                if len(self._matched) >= MAX_MATCHED:
                    self._matched.clear()
                self._matched[key] = (self._generation, found)
                return list(found)
            return found

    @property
    def generation(self) -> int:
        """Changes whenever the groups do (a new one, a rename)."""
        return self._generation

    def folders(self) -> list[str]:
        """Every folder some scope that holds (or held) an entry is at, or whose file it
        is: a file's place stands for its folder."""
        with self._lock:
            scopes = list(self._keys)
        found = {
            path.rsplit("/", 1)[0] if level == "file" else path for level, path in scopes if path
        }
        return list(found)

    def at_path(self, path: str | None) -> list[int]:
        """The groups of every level at this path."""
        with self._lock:
            return list(self._by_path.get(path, ()))

    def rename(self, old: str, new: str) -> None:
        """Scopes at `old` or under it (`old/...`) are at `new` (and under it) from now on,
        their groups with them; a group whose new scope has one already joins it."""
        with self._lock:
            self._generation += 1

            def under(path: str | None) -> bool:
                return path is not None and (path == old or path.startswith(old + "/"))

            for level, path in [scope for scope in self._keys if under(scope[1])]:
                assert path is not None
                to = new + path[len(old) :]
                ks = [self._keys.pop((level, path)), *self._also.pop((level, path), [])]
                for k in ks:
                    self._by_path[path].remove(k)
                self._by_path.setdefault(to, []).extend(ks)
                if (level, to) in self._keys:
                    self._also.setdefault((level, to), []).extend(ks)
                else:
                    self._keys[(level, to)] = ks[0]
                    if ks[1:]:
                        self._also.setdefault((level, to), []).extend(ks[1:])

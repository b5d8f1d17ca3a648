"""Which entries a search may return, said by field, compiled to SQL here.

The service says what it wants (a scope, a chain of scopes, a type, tags, deprecated
or not); only this module knows how that reads as a WHERE clause over
context_entries (alias e).

Tags and metadata pairs have tables of their own (context_tags, context_metadata,
kept by triggers), so a filter on them is a set of rids read from an index: checked
row by row with EXISTS (a primary-key probe: `rid IN (SELECT ...)` would build the
whole set first, for every statement), and listed from the index alone when nothing
else narrows (store/entries.py's filtered_rids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

# The entry columns idx_entries_view holds (m026): a filter that reads no other column is
# checked from that index alone, a sixth of the pages of the rows (index/keywords.py).
VIEW_INDEX = "idx_entries_view"
VIEW_COLUMNS = frozenset(
    {"rid", "scope_path", "scope_level", "content_type", "is_deprecated", "quarantined"}
)
_COLUMN = re.compile(r"\be\.(\w+)")


@dataclass(frozen=True)
class View:
    """The entries seen from one place (a project, a workspace): global ones, those stored
    at or under `root`, and those stored at exactly one of `also` (a project's workspace).
    Never a sibling project's: its path is neither under the root nor one of `also`."""

    root: str
    also: tuple[str, ...] = ()
    # Other projects' roots under the root (scopes.view_from): not seen, nor what is under them.
    apart: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        """What the path of an entry under the root starts with."""
        return self.root if self.root.endswith("/") else self.root + "/"

    def sees(self, path: str | None) -> bool:
        return (
            path is None
            or path == self.root
            or path in self.also
            or (
                path.startswith(self.prefix)
                and not any(path == a or path.startswith(a + "/") for a in self.apart)
            )
        )


@dataclass(frozen=True)
class EntryFilter:
    scope_level: str | None = None
    scope_path: str | None = None  # with scope_level: that scope; alone: any level at this path
    match_path: bool = False  # scope_path applies (a global scope has none to match)
    scopes: tuple[tuple[str, str | None], ...] = ()  # any of these (level, path) pairs
    view: View | None = None  # only what is seen from there
    content_type: str | None = None
    tags: tuple[str, ...] = ()
    min_importance: int = 1
    metadata: tuple[tuple[str, str | int | float | bool], ...] = ()  # key = value pairs
    created_after: str | None = None
    created_before: str | None = None
    updated_after: str | None = None
    updated_before: str | None = None
    arrived_after: int | None = None  # a version recorded after this context_versions.id
    checked_before: str | None = None  # neither updated nor confirmed since
    include_deprecated: bool = False
    include_quarantined: bool = False
    statuses: tuple[str, ...] = ()  # tasks in any of these statuses
    exclude_types: tuple[str, ...] = ()
    # Not a clause: recall drops done tasks from its candidates, which costs nothing, where
    # a clause would turn every default search into a filtered one.
    include_done: bool = True
    clauses: list[str] = field(default_factory=list, init=False, compare=False)
    args: list[Any] = field(default_factory=list, init=False, compare=False)
    # (SELECT rid ..., args) for each tag and metadata pair: each also has its clause
    sets: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list, init=False, compare=False)

    def __post_init__(self) -> None:
        def add(clause: str, *args: Any) -> None:
            self.clauses.append(clause)
            self.args.extend(args)

        def add_set(table: str, where: str, *args: Any) -> None:
            self.sets.append((f"SELECT rid FROM {table} WHERE {where}", args))
            self.clauses.append(f"EXISTS (SELECT 1 FROM {table} WHERE {where} AND rid = e.rid)")
            self.args.extend(args)

        if self.scope_level is not None:
            add("e.scope_level = ?", self.scope_level)
        if self.match_path:
            add("e.scope_path = ?", self.scope_path)
        if self.scopes:
            add(
                "("
                + " OR ".join("(e.scope_level = ? AND e.scope_path IS ?)" for _ in self.scopes)
                + ")",
                *[x for pair in self.scopes for x in pair],
            )
        if self.view is not None:
            v = self.view
            # Under the root as a range ('/' + 1 is '0'), which the scope index can serve.
            apart = " AND NOT (e.scope_path = ? OR (e.scope_path >= ? AND e.scope_path < ?))"
            add(
                "(e.scope_path IS NULL OR e.scope_path = ? OR (e.scope_path >= ? AND "
                f"e.scope_path < ?{apart * len(v.apart)}){' OR e.scope_path = ?' * len(v.also)})",
                v.root,
                v.prefix,
                v.prefix[:-1] + "0",
                *(x for a in v.apart for x in (a, a + "/", a + "0")),
                *v.also,
            )
        if self.content_type is not None:
            add("e.content_type = ?", self.content_type)
        if self.exclude_types:
            add(
                f"e.content_type NOT IN ({','.join('?' * len(self.exclude_types))})",
                *self.exclude_types,
            )
        if self.statuses:
            add(f"e.status IN ({','.join('?' * len(self.statuses))})", *self.statuses)
        for tag in self.tags:
            add_set("context_tags", "tag = ?", tag)
        if self.min_importance > 1:
            add("e.importance >= ?", self.min_importance)
        for key, value in self.metadata:
            # The table holds JSON true/false as 1/0, as json_extract reads them.
            scalar = int(value) if isinstance(value, bool) else value
            add_set("context_metadata", "key = ? AND value = ?", key, scalar)
        for column, op, bound in (
            ("created_at", ">=", self.created_after),
            ("created_at", "<", self.created_before),
            ("updated_at", ">=", self.updated_after),
            ("updated_at", "<", self.updated_before),
        ):
            if bound is not None:
                add(f"e.{column} {op} ?", bound)
        if self.arrived_after is not None:
            # The range of the versions' primary key, read once: cheap for a brief's few.
            add(
                "e.id IN (SELECT entry_id FROM context_versions WHERE id > ?)",
                self.arrived_after,
            )
        if self.checked_before is not None:
            add("max(e.updated_at, coalesce(e.confirmed_at, '')) < ?", self.checked_before)

    @property
    def restricts(self) -> bool:
        """Whether anything but deprecation narrows the search."""
        return bool(self.clauses)

    @property
    def only_sets(self) -> bool:
        """Whether tags and metadata are all it narrows by (then the rids their sets share
        are exactly the entries it allows, deprecation aside)."""
        return bool(self.sets) and len(self.sets) == len(self.clauses)

    @cached_property
    def covered(self) -> bool:
        """Whether every entry column the filter reads is in VIEW_INDEX (tags and metadata
        are read from their own tables, by rid)."""
        return set(_COLUMN.findall(self.sql())) <= VIEW_COLUMNS

    def narrowing_sql(self) -> str:
        """The clauses without the deprecation one (the vector index knows deprecation)."""
        return " AND ".join(self.clauses) if self.clauses else "1"

    def sql(self) -> str:
        clauses = list(self.clauses)
        if not self.include_deprecated:
            clauses.append("e.is_deprecated = 0")
        if not self.include_quarantined:
            clauses.append("e.quarantined = 0")
        return " AND ".join(clauses) if clauses else "1"

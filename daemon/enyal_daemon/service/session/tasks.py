"""Tasks: memories of type `task` with a status (open, in_progress, blocked, done), an
optional due date and a priority (their importance), scoped like any memory (seed 002's
task system, with the status a column of its own rather than metadata an update could
overwrite).

A task is stored by `remember`'s own path (redaction, quarantine, embedding, dedup of
identical text), so it is recalled like any memory; done tasks are left out of default
recall (recall.py). Every status change writes a `status` version holding the new
status, so `history` shows a task's life.
"""

from __future__ import annotations

from datetime import date

import msgspec

from enyal_protocol import wire as p

from ...errors import InvalidValue
from ...store import entries, versions
from ...store.filters import EntryFilter
from ...store.writer import Tx
from ..core.engine import Engine
from ..memory import memories
from ..rules import scopes

# The order a task list reads in: what is being done, what is stuck, what waits, what is over.
STATUS_ORDER: dict[str, int] = {"in_progress": 0, "blocked": 1, "open": 2, "done": 3}


def _check_due(due: str | None) -> None:
    if due is None:
        return
    try:
        date.fromisoformat(due)
    except ValueError:
        raise InvalidValue(f"due is not a date: {due!r} (YYYY-MM-DD)") from None


def add(engine: Engine, params: p.TaskAddParams) -> p.RememberResult:
    _check_due(params.due)
    remember = p.RememberParams(
        content=params.content,
        scope=params.scope,
        scope_path=params.scope_path,
        tags=params.tags,
        metadata=params.metadata,
        importance=params.priority,
        written_by=params.written_by,
        cwd=params.cwd,
    )
    return memories.remember(engine, remember, content_type="task", status="open", due=params.due)


def sort_key(e: p.Entry) -> tuple[int, int, str, str]:
    """Status, then priority (highest first), then due date (soonest first, none last),
    then age (oldest first)."""
    return (STATUS_ORDER.get(e.status or "open", 2), -e.importance, e.due or "9999", e.created_at)


def list_tasks(engine: Engine, params: p.TaskListParams) -> p.TaskListResult:
    path, match_path = scopes.filter_path(params.scope, params.scope_path, params.cwd)
    statuses = tuple(params.status) or ("open", "in_progress", "blocked")
    f = EntryFilter(
        scope_level=params.scope,
        scope_path=path,
        match_path=match_path,
        content_type="task",
        tags=tuple(params.tags),
        statuses=statuses,
    )
    tasks = sorted((row.entry() for row in entries.filtered(engine.reader(), f)), key=sort_key)
    return p.TaskListResult(tasks=tasks[: params.limit])


def open_in(engine: Engine, chain: list[tuple[str, str | None]], limit: int) -> list[p.Entry]:
    """The open (not done) tasks of any of these scopes, in task-list order."""
    f = EntryFilter(
        scopes=tuple(chain), content_type="task", statuses=("open", "in_progress", "blocked")
    )
    return sorted((row.entry() for row in entries.filtered(engine.reader(), f)), key=sort_key)[
        :limit
    ]


def update(engine: Engine, params: p.TaskUpdateParams) -> p.TaskUpdateResult:
    def job(tx: Tx) -> p.TaskUpdateResult:
        row = engine.require(params.id, tx.conn)
        if row.content_type != "task":
            raise InvalidValue(f"entry {row.id} is a {row.content_type}, not a task")
        entry = row.entry()
        if row.status == params.status:  # nothing changes, no version is written
            return p.TaskUpdateResult(
                **msgspec.structs.asdict(entry), previous=row.status, changed=False
            )
        now = engine.clock.now_iso()
        entries.update_fields(tx.conn, row.rid, {"status": params.status, "updated_at": now})
        versions.record(tx.conn, row.id, "status", now)
        entry = engine.require(row.id, tx.conn).entry()
        return p.TaskUpdateResult(**msgspec.structs.asdict(entry), previous=row.status)

    result = engine.write(job)
    if result.changed:
        engine.bookkeeping.event(result.id, "update")
    return result

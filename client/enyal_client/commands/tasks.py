"""`enyal task add|list|start|block|done|reopen`: tasks, memories with a status."""

from __future__ import annotations

import argparse
import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, drop_none, json_object, on_daemon

FLAGS = {"content": "TEXT", "id": "ID", "tags": "--tag"}

# The verb for each status a task can be moved to.
MOVES: dict[str, p.TaskStatus] = {
    "start": "in_progress",
    "block": "blocked",
    "done": "done",
    "reopen": "open",
}
MARKS = {"open": "[ ]", "in_progress": "[~]", "blocked": "[!]", "done": "[x]"}


def task_line(e: p.Entry) -> str:
    extra = [f"p{e.importance}"] if e.importance != 3 else []
    extra += [f"due {e.due}"] if e.due else []
    where = e.scope_level + (f" {e.scope_path}" if e.scope_path else "")
    more = f"  ({', '.join(extra)})" if extra else ""
    return f"{MARKS.get(e.status or 'open', '[ ]')} {e.id[:8]}  {e.content}{more}  [{where}]"


def cmd_task(c: Connection, a: Args) -> Result:
    if a.action == "add":
        params = drop_none(
            {
                "content": a.text,
                "due": a.due,
                "priority": a.priority,
                "tags": a.tag or None,
                "scope": a.scope,
                "scope_path": a.scope_path,
                "metadata": a.metadata,
                "written_by": "user",
                "cwd": os.getcwd(),
            }
        )
        r = ct.call(c, "task_add", params, p.RememberResult, FLAGS)
        word = "added" if r.action == "created" else "already there:"
        return r, f"{word} {task_line(r.entry)}"
    if a.action == "list":
        params = drop_none(
            {
                "status": (list(p.TASK_STATUSES) if a.all else a.status) or None,
                "scope": a.scope,
                "scope_path": a.scope_path,
                "tags": a.tag or None,
                "limit": a.limit,
                "cwd": os.getcwd(),
            }
        )
        listed = ct.call(c, "task_list", params, p.TaskListResult, FLAGS)
        return listed, "\n".join(task_line(t) for t in listed.tasks) or "no tasks"
    status = MOVES[a.action]
    moved = ct.call(c, "task_update", {"id": a.id, "status": status}, p.TaskUpdateResult, FLAGS)
    if not moved.changed:
        return moved, f"{moved.id} is {status} already: nothing changed"
    return moved, f"{moved.previous} -> {status}: {task_line(moved)}"


def register(reg: Registry) -> None:
    A, L = p.TaskAddParams, p.TaskListParams
    t = reg.verb("task", "tasks: add, list, start, block, done, reopen", on_daemon(cmd_task))
    sub = t.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = sub.add_parser("add", help="add a task (open)", parents=[reg.common])
    add.add_argument("text")
    add.add_argument("--due", metavar="YYYY-MM-DD")
    add.add_argument("--priority", type=ct.number(A, "priority"), help="1-5 (default 3)")
    add.add_argument("--tag", action="append", help="a tag (repeatable)")
    add.add_argument("--scope", choices=ct.choices(A, "scope"), help="default: project")
    add.add_argument("--scope-path")
    add.add_argument("--metadata", type=json_object, help="a JSON object")
    ls = sub.add_parser("list", help="open tasks (or --status / --all)", parents=[reg.common])
    ls.add_argument("--status", action="append", choices=ct.choices(L, "status"), help="repeatable")
    ls.add_argument("--all", action="store_true", help="done tasks too")
    ls.add_argument("--scope", choices=ct.choices(L, "scope"))
    ls.add_argument("--scope-path")
    ls.add_argument("--tag", action="append")
    ls.add_argument("--limit", type=ct.number(L, "limit"))
    for verb, status in MOVES.items():
        move: argparse.ArgumentParser = sub.add_parser(
            verb, help=f"set a task's status to {status}", parents=[reg.common]
        )
        move.add_argument("id")

"""The MCP tools: one table entry each, naming the daemon method it forwards to.

A tool's input and output schemas come from that method's Params and result
Structs in protocol.METHODS, and its arguments are checked by decoding them
into the same Params Struct, so what a tool accepts is defined only there.
Adding a tool is adding a ToolSpec to TOOLS.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from enyal_protocol import wire as p

from ..params import ParamsRefused, checked, plain
from . import versions
from .messages import ToolAnnotations, ToolDefinition
from .schemas import object_schema


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the directory was deleted under us; the daemon then asks for a path
        return None


# Params fields the shim fills itself: the agent knows no better than this process where
# it runs. They are left out of the input schema, so an argument naming one is refused
# like any other field the schema does not list.
SHIM_FILLED: dict[str, Callable[[], Any]] = {"cwd": _cwd, "written_by": lambda: "agent"}
# Params fields for the hooks' own recall (enyal_protocol/shown.py), which an agent has no
# use for: left out of the schema (every session's context pays for what it lists) and
# refused the same way.
HOOKS_ONLY = frozenset({"session_id", "lines_about", "drop_weak_only"})


@dataclass(frozen=True)
class ToolSpec:
    name: str
    method: str  # a key of protocol.METHODS
    title: str
    description: str
    # A result field the text block shows instead of the JSON (the brief's Markdown: what
    # an agent should read); structuredContent still carries the whole result.
    text_field: str | None = None

    @property
    def params_type(self) -> type[p.Params]:
        return p.METHODS[self.method].params

    # The MCP hints are the method's facts (wire.Method), never restated per tool.
    @property
    def read_only(self) -> bool:
        return not p.METHODS[self.method].writes

    @property
    def destructive(self) -> bool:
        return p.METHODS[self.method].destructive

    @property
    def idempotent(self) -> bool:
        method = p.METHODS[self.method]
        return method.idempotent or method.repeat_changes_nothing

    @property
    def filled(self) -> frozenset[str]:
        return frozenset(SHIM_FILLED) & frozenset(self.params_type.__struct_fields__)

    @property
    def hidden(self) -> frozenset[str]:
        """The params fields an agent is not offered: the shim's and the hooks'."""
        return self.filled | (HOOKS_ONLY & frozenset(self.params_type.__struct_fields__))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "enyal_remember",
        "remember",
        "Remember",
        "Store a memory that should outlive this session: a fact about the project, a "
        "preference of the user, a decision and why it was made, a convention the code "
        "follows, or a recurring pattern. Use it whenever you learn something a later session "
        "would otherwise have to rediscover or ask again. Write one self-contained statement; "
        "it will be read without this conversation. scope: 'project' (the default: the project "
        "of the current directory), 'file' (give scope_path), 'workspace', or 'global' (applies "
        "everywhere, e.g. personal preferences). The same content in the same scope is never "
        "stored twice; dedup='reject' or 'merge' also catches near-duplicates. Returns the "
        "entry id, the action taken and the stored entry.",
    ),
    ToolSpec(
        "enyal_recall",
        "recall",
        "Recall",
        "Search stored memories by meaning and by keywords. Use it before answering questions "
        "about this project, its conventions, past decisions or the user's preferences, and "
        "before making a choice an earlier decision may already settle. It searches this "
        "project's memories, its workspace's and global ones; scope='all' searches every "
        "project's, this one's first of two alike. Narrow it with scope, content_type or "
        "tags when you know them. Returns up to `limit` memories, best first (the list "
        "ends where relevance ends), "
        "each with its id, content, scope, tags, confidence and score (with its semantic, "
        "keyword and recency parts). An empty list means nothing relevant is stored. Pass "
        "budget_tokens to bound what comes back: the best results are packed into it, the "
        "last may be cut (enyal_get its id for all of it) and `budget` lists what was left out.",
    ),
    ToolSpec(
        "enyal_recall_by_scope",
        "recall_by_scope",
        "Recall for a file",
        "Search the memories that apply to one file: the file's own, then its project's, its "
        "workspace's and global ones, weighted in that order. Use it when you are about to "
        "read or change a specific file. Returns memories best first and the chain of scopes "
        "that was searched.",
    ),
    ToolSpec(
        "enyal_get",
        "get",
        "Get a memory",
        "Fetch one memory by its id (ids come from remember and recall results). Returns the "
        "full entry, forgotten ones included. An unknown id is reported as an error result.",
    ),
    ToolSpec(
        "enyal_update",
        "update",
        "Update a memory",
        "Change a stored memory in place: its content (re-indexed for search), content_type, "
        "confidence, tags (replaced) or metadata (replaced). Use it when a remembered fact has "
        "changed or was wrong, instead of storing a second, contradicting memory. Returns the "
        "updated entry.",
    ),
    ToolSpec(
        "enyal_forget",
        "forget",
        "Forget a memory",
        "Forget a memory that is wrong or obsolete. By default it is deprecated: hidden from "
        "recall but kept, and `enyal restore <id>` brings it back. hard=true deletes it for "
        "good. Returns the id and what was done.",
    ),
    ToolSpec(
        "enyal_restore",
        "restore",
        "Restore a memory",
        "Undo enyal_forget: bring back a memory that was forgotten (deprecated); one deleted "
        "with hard=true is gone for good. With `version` (a number from enyal_history), bring "
        "back that earlier version's content and fields instead, as a new version: history "
        "is added to, never rewritten. Returns the entry, and changed=false when it was not "
        "forgotten and no version was given (nothing was done).",
    ),
    ToolSpec(
        "enyal_recall_batch",
        "recall_batch",
        "Search memory for several questions",
        "Answer several questions at once under the same filters, e.g. at the start of a task "
        "('test conventions', 'how we deploy', 'open decisions about the API'). Cheaper than "
        "calling enyal_recall for each. Returns one result list per query, in order.",
    ),
    ToolSpec(
        "enyal_list",
        "list",
        "List memories",
        "List stored memories by filter (type, scope, tags, metadata key = value, importance, "
        "created/updated dates) in a chosen order, a page at a time: not a search, so use it "
        "to browse or audit what is stored. Pass `next` back as `cursor` for the next page.",
    ),
    ToolSpec(
        "enyal_confirm",
        "confirm",
        "Confirm a memory still holds",
        "Say that a stored memory was checked and is still true (you verified it against the "
        "code or the user confirmed it). Its confidence stops decaying from its old date and "
        "recall prefers it as recently confirmed. Returns the entry with confirmed_at and "
        "confirm_count.",
    ),
    ToolSpec(
        "enyal_consolidate",
        "consolidate",
        "Consolidate memories",
        "Find near-duplicate memories (cosine similarity >= threshold, default 0.92, within "
        "one scope) and expired ones. By default a dry run: it only reports the clusters "
        "(the memory kept and the ones that would be merged into it) and the counts. Pass "
        "dry_run=false only when the user asked to clean up: each cluster is then merged "
        "into its best memory (tags, metadata and links combined), the others are forgotten "
        "but restorable, and expired memories are deleted.",
    ),
    ToolSpec(
        "enyal_index",
        "index",
        "Index Markdown notes",
        "Mirror Markdown files the project keeps for agents (CLAUDE.md, AGENTS.md, "
        ".cursor/rules, .serena/memories, docs/) as memories, one per section, so recall "
        "finds them. paths are files or folders (relative to the current directory). Run it "
        "again after the files change: only changed sections are updated, removed ones are "
        "forgotten, as are those of a path given that was deleted. The memories it makes are "
        "read-only (edit the file instead). Returns counts of files and chunks, and what was "
        "skipped (links out of the path, special files). forget=true instead stops watching "
        "the paths and forgets their chunks (restorable).",
    ),
    ToolSpec(
        "enyal_stats",
        "stats",
        "Memory statistics",
        "Count the stored memories: total, active and forgotten, by content type, by scope "
        "level and by confidence band, with the database size and the oldest and newest "
        "dates. Use it to see whether anything is stored yet or to report on the store.",
    ),
    ToolSpec(
        "enyal_link",
        "link",
        "Link two memories",
        "Record a relationship between two stored memories: relates_to (they are about the "
        "same thing), supersedes (source replaces target: the target stops appearing in "
        "recall), depends_on (source only holds while target does: see enyal_impact), or "
        "conflicts_with (they contradict: recall flags both). Use supersedes when a decision "
        "changes instead of forgetting the old one, so its history stays. Returns the edge.",
    ),
    ToolSpec(
        "enyal_unlink",
        "unlink",
        "Unlink two memories",
        "Remove a relationship created by enyal_link (same source, target and type). "
        "Returns the removed edge.",
    ),
    ToolSpec(
        "enyal_edges",
        "edges",
        "A memory's links",
        "List the relationships of one memory: outgoing, incoming or both, optionally of one "
        "type. Returns the edges with their types and confidence.",
    ),
    ToolSpec(
        "enyal_traverse",
        "traverse",
        "Walk the memory graph",
        "Follow relationships from a memory (by id, or the best match of a query) up to 4 hops, "
        "to gather connected context: e.g. everything a decision relates to or depends on. "
        "Each memory appears once, at its shortest distance, with the edge that reached it.",
    ),
    ToolSpec(
        "enyal_impact",
        "impact",
        "What depends on a memory",
        "Before changing or forgetting a memory, list what would be affected: the memories "
        "that depend on it directly and transitively (depends_on edges), and the ones strongly "
        "related to it.",
    ),
    ToolSpec(
        "enyal_history",
        "history",
        "A memory's history",
        "Show how a memory changed: every version (created, updated, forgotten, restored, "
        "reverted) with its content then, and the chain of memories it superseded and that "
        "superseded it. Use it to see what was believed before and why it changed.",
    ),
    ToolSpec(
        "enyal_health",
        "health",
        "Memory health",
        "Check the store's health: how many memories are superseded, in conflict, stale (not "
        "updated for stale_days) or unlinked, with a 0-1 health score and the ids involved.",
    ),
    ToolSpec(
        "enyal_review",
        "review",
        "Memories to review",
        "List the memories that need a look: stale ones, unlinked ones and conflicting ones, "
        "oldest first. Use it for housekeeping: update, supersede, link or forget them.",
    ),
    ToolSpec(
        "enyal_analytics",
        "analytics",
        "Memory usage",
        "Report how memories are used: recall events (with the query and rank), updates, "
        "links and impact checks over the last `days`, summarised by type and by memory.",
    ),
)

TOOLS += (
    ToolSpec(
        "enyal_task_add",
        "task_add",
        "Add a task",
        "Record a task that outlives this session: work still to do in this project (or, with "
        "scope, for a file, the workspace or everywhere). It starts open; give due "
        "(YYYY-MM-DD) and priority (1-5) when known. Open tasks appear in the session brief "
        "and in recall; done ones leave both. Returns the task's id and entry.",
    ),
    ToolSpec(
        "enyal_task_list",
        "task_list",
        "List tasks",
        "List tasks: by default every one that is not done, in progress first, then blocked, "
        "then open, each by priority and due date. Filter by status, scope or tags.",
    ),
    ToolSpec(
        "enyal_task_update",
        "task_update",
        "Change a task's status",
        "Move a task to in_progress when you start it, blocked when it waits on something, "
        "done when it is finished, or open to reopen it. Each change is kept in the task's "
        "history. Returns the task with its previous status.",
    ),
    ToolSpec(
        "enyal_brief",
        "brief",
        "Brief on this project",
        "Call this when you start work in a project: a short Markdown brief of what earlier "
        "sessions left you — open tasks, the project's conventions and decisions, what changed "
        "since the last brief, memories to review (conflicting or stale), and yesterday's and "
        "today's log — within budget_tokens (default 1500). Ids let you enyal_get more.",
        text_field="markdown",
    ),
)

BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}


class InvalidArguments(Exception):
    pass


def bind(spec: ToolSpec, arguments: dict[str, Any]) -> p.Params:
    """The daemon params for a call: the agent's arguments, checked, plus what the shim fills."""
    refused = sorted(spec.hidden & arguments.keys())
    if refused:
        raise InvalidArguments(f"unknown argument(s): {', '.join(refused)}")
    try:
        params: p.Params = checked(spec.method, arguments)  # the check every client makes
    except ParamsRefused as exc:
        # In plain words first (the bound, the form), as the CLI says it, for the agent
        # to correct its call; then the path msgspec names.
        struct = p.METHODS[spec.method].params
        names = {f.name: f.name for f in msgspec.structs.fields(struct)}
        said = plain(struct, exc.reason, names)
        message = exc.reason if said == exc.reason else f"{said} ({exc.reason})"
        raise InvalidArguments(message) from None
    fills = {name: SHIM_FILLED[name]() for name in spec.filled}
    return msgspec.structs.replace(params, **fills) if fills else params


@functools.cache
def _schemas(spec: ToolSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    method = p.METHODS[spec.method]
    return object_schema(method.params, hidden=spec.hidden), object_schema(method.result)


@functools.cache
def definitions(version: str) -> tuple[ToolDefinition, ...]:
    """Every tool as tools/list shows it to a client speaking `version`."""
    structured = versions.at_least(version, versions.STRUCTURED_OUTPUT)
    annotated = versions.at_least(version, versions.TOOL_ANNOTATIONS)
    out = []
    for spec in TOOLS:
        input_schema, output_schema = _schemas(spec)
        out.append(
            ToolDefinition(
                name=spec.name,
                description=spec.description,
                input_schema=input_schema,
                title=spec.title if structured else msgspec.UNSET,
                output_schema=output_schema if structured else msgspec.UNSET,
                annotations=ToolAnnotations(
                    read_only_hint=spec.read_only,
                    destructive_hint=spec.destructive,
                    idempotent_hint=spec.idempotent,
                    open_world_hint=False,  # memories live in a local database
                )
                if annotated
                else msgspec.UNSET,
            )
        )
    return tuple(out)

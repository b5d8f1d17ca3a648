"""Memories as a Markdown document a team can read and commit beside its code.

One section per scope (a project, a workspace, global; a file's memories sit under
the file's path), and in each, the memories grouped by type: every type, so that the
count `enyal export` prints is what the document holds (a task as a checkbox with its
status and due date, a day's log with its lines). Forgotten memories
are left out; a superseded one is struck through and names what replaced it, so
the document says what is believed now and what it used to be. JSONL stays the
lossless format: this one is for people.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from enyal_protocol import wire as p
from enyal_protocol.projects import within

# Every type (p.ALL_TYPES; a test holds them equal), in the order the document shows them.
TYPE_TITLES: dict[p.ContentType, str] = {
    "convention": "Conventions",
    "decision": "Decisions",
    "preference": "Preferences",
    "pattern": "Patterns",
    "fact": "Facts",
    "task": "Tasks",
    "log": "Daily logs",
}


def _scope_title(e: p.Entry) -> str:
    if e.scope_level == "global":
        return "Global"
    return f"{e.scope_level.capitalize()} `{e.scope_path}`"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _day(iso: str) -> str:
    return iso[:10]


def in_project(e: p.Entry, root: str) -> bool:
    """Is the entry stored under `root` (the folder itself, or a file or folder in it)?"""
    return within(e.scope_path, root)


def render(entries: Iterable[p.Entry], edges: Iterable[p.Edge], title: str) -> tuple[str, int]:
    """The document, and how many memories it holds."""
    live = {e.id: e for e in entries if not e.is_deprecated}
    replaced_by: dict[str, list[p.Entry]] = defaultdict(list)
    for edge in edges:
        # A forgotten superseder supersedes nothing (the validity rule, docs/PROTOCOL.md).
        if edge.edge_type == "supersedes" and edge.source_id in live and edge.target_id in live:
            replaced_by[edge.target_id].append(live[edge.source_id])
    scopes: dict[str, list[p.Entry]] = defaultdict(list)
    for e in live.values():
        scopes[_scope_title(e)].append(e)
    out = [f"# {title}", ""]
    if not live:
        out += ["_No memories._", ""]
    order = sorted(scopes, key=lambda s: (s == "Global", s))
    written = 0
    for scope in order:
        out += [f"## {scope}", ""]
        by_type: dict[str, list[p.Entry]] = defaultdict(list)
        for e in scopes[scope]:
            by_type[e.content_type].append(e)
        for kind, heading in TYPE_TITLES.items():
            group = sorted(by_type.get(kind, []), key=lambda e: (e.id in replaced_by, e.created_at))
            if not group:
                continue
            out += [f"### {heading}", ""]
            out += [_item(e, replaced_by.get(e.id, [])) for e in group]
            out.append("")
            written += len(group)
    return "\n".join(out), written


def _item(e: p.Entry, successors: list[p.Entry]) -> str:
    text = _one_line(e.content)
    dates = f"added {_day(e.created_at)}"
    if _day(e.updated_at) != _day(e.created_at):
        dates += f", updated {_day(e.updated_at)}"
    tags = " ".join(f"`{t}`" for t in e.tags)
    facts = [dates] + ([tags] if tags else []) + [f"id `{e.id[:8]}`"]
    if e.confidence < 1.0:
        facts.append(f"confidence {e.confidence:.2f}")
    box, nested = "", ""
    if e.content_type == "task":
        box = "[x] " if e.status == "done" else "[ ] "
        facts[:0] = [e.status or "open"] + ([f"due {e.due}"] if e.due else [])
    if e.content_type == "log":
        # A day's log is a heading line and a line per append: kept as lines, nested.
        first, *rest = e.content.splitlines() or [""]
        text = _one_line(first)
        nested = "".join(f"\n  {line.strip()}" for line in rest if line.strip())
    if successors:
        line = f"- {box}~~{text}~~ — superseded by: " + "; ".join(
            f"“{_one_line(s.content)}” (`{s.id[:8]}`)" for s in successors
        )
    else:
        line = f"- {box}{text}"
    return f"{line}  \n  <sub>{' · '.join(facts)}</sub>{nested}"

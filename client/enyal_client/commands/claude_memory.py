"""Memories as Claude Code auto-memory files: a topic file per kind and a block of
pointers in MEMORY.md, within what Claude Code loads.

Claude Code loads the first 200 lines or 25,000 characters of MEMORY.md, whichever
comes first, into every session and drops the rest without a word; topic files it
reads when their pointer's hook says they matter. So:

- the block Enyal writes into MEMORY.md is pointers only (a line per topic file: how
  many, and the first of them as the hook), set between two marker lines and replacing
  only what was between them before: every line Claude or the user wrote stays, and
  the block gets the room they leave (it shrinks to fewer pointers, or is left out and
  said so, rather than push their lines past the limit);
- each topic file (`enyal-<kind>.md`, the front matter Claude writes: name,
  description, metadata.type) holds the project's memories of that kind, most
  important first, within the same limits, and says how many it left out;
- curated: active memories of the project and global ones, not quarantined, not
  superseded, not mirrors of files (CLAUDE.md and Claude's own auto memory are loaded
  already), open tasks only, no daily logs; ranked by importance, then how often they
  were confirmed and recalled, then recency.

Sizes are counted in UTF-8 bytes, which are never fewer than the UTF-16 units
Claude Code counts, so what fits here fits there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from enyal_protocol import automemory
from enyal_protocol import wire as p

from .markdown import TYPE_TITLES, in_project

INDEX = "MEMORY.md"
MAX_LINES = 200  # what Claude Code loads of MEMORY.md
MAX_BYTES = 25_000
HOOK_CHARS = 150  # Claude Code's guidance for an index line
ITEM_CHARS = 400  # a memory longer than this is cut in a topic file: recall has it whole
BEGIN = automemory.ENYAL_BEGIN
END = automemory.ENYAL_END
# Enyal's kinds as Claude Code's memory types (user, feedback, project, reference); a
# day's log is not exported.
CLAUDE_TYPE: dict[p.ContentType, str] = {
    "convention": "feedback",
    "preference": "user",
    "decision": "project",
    "pattern": "project",
    "fact": "project",
    "task": "project",
}
OPEN_TASK = ("open", "in_progress", "blocked", None)


def topic_file(kind: p.ContentType) -> str:
    return f"{automemory.ENYAL_TOPIC_PREFIX}{TYPE_TITLES[kind].lower().replace(' ', '-')}.md"


TOPIC_FILES = tuple(topic_file(k) for k in CLAUDE_TYPE)


@dataclass
class Export:
    files: dict[str, str]  # topic file name -> text
    index_block: list[str]  # the lines between the markers, empty when none fit
    exported: int  # memories written into topic files
    left_out: int  # curated ones that did not fit


def size(lines: Iterable[str]) -> tuple[int, int]:
    text = "\n".join(lines)
    return len(text.splitlines()), len(text.encode("utf-8"))


def fits(lines: list[str]) -> bool:
    n, b = size(lines)
    return n <= MAX_LINES and b <= MAX_BYTES


def curated(entries: Iterable[p.Entry], edges: Iterable[p.Edge], root: str) -> list[p.Entry]:
    live = [
        e
        for e in entries
        if not e.is_deprecated
        and not e.quarantined
        and e.source_type != "file"
        and e.content_type in CLAUDE_TYPE
        and (e.content_type != "task" or e.status in OPEN_TASK)
        and (e.scope_level == "global" or in_project(e, root))
    ]
    ids = {e.id for e in live}
    superseded = {
        edge.target_id
        for edge in edges
        if edge.edge_type == "supersedes" and edge.source_id in ids and edge.target_id in ids
    }
    kept = [e for e in live if e.id not in superseded]
    kept.sort(key=lambda e: e.updated_at, reverse=True)  # stable: the last key first
    kept.sort(key=lambda e: (e.importance, e.confirm_count + e.access_count), reverse=True)
    return kept


def _cut(text: str, limit: int) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"


def _topic(kind: p.ContentType, group: list[p.Entry], project: str) -> tuple[str, int]:
    """A topic file's text and how many memories it holds."""
    title = TYPE_TITLES[kind]
    head = [
        "---",
        f"name: {topic_file(kind).removesuffix('.md')}",
        f"description: {title} Enyal holds for {project}, most important first",
        "metadata:",
        f"  type: {CLAUDE_TYPE[kind]}",
        "---",
        "",
        f"# {title} (from Enyal)",
        "",
    ]
    # One pass, adding items while the file with its "N more" line still fits; that
    # line is at most as long as for the whole group, so its room is kept for it.
    used = size(head)[1] + 1  # each element a line, the last one's newline included
    more = len(_more(len(group)).encode()) + 2  # its newline before and the file's last
    room = (MAX_LINES - len(head) - 2, MAX_BYTES - used - more)
    items: list[str] = []
    for e in group:
        item = f"- {_cut(e.content, ITEM_CHARS)} (`{e.id[:8]}`)"
        cost = len(item.encode("utf-8")) + 1  # and its newline
        if len(items) + 1 > room[0] or cost > room[1]:
            break
        items.append(item)
        room = (room[0], room[1] - cost)
    n = len(items)
    tail = [_more(len(group) - n)] if n < len(group) else []
    return "\n".join([*head, *items, *tail]) + "\n", n


def _more(n: int) -> str:
    return f"\n{n} more: ask Enyal (the enyal_recall tool)."


def render(entries: list[p.Entry], project: str, room: tuple[int, int]) -> Export:
    """The topic files and MEMORY.md's block for the curated `entries` of `project`;
    `room`: the (lines, bytes) MEMORY.md's other lines leave."""
    files: dict[str, str] = {}
    pointers: list[str] = []
    exported = 0
    for kind in CLAUDE_TYPE:
        group = [e for e in entries if e.content_type == kind]
        if not group:
            continue
        text, n = _topic(kind, group, project)
        name = topic_file(kind)
        files[name] = text
        exported += n
        many = kind if len(group) == 1 else TYPE_TITLES[kind].lower()  # "1 decision"
        hook = _cut(f"{len(group)} {many}, first: {group[0].content}", 120)
        pointers.append(f"- [{TYPE_TITLES[kind]} (Enyal)]({name}) — {hook}")
    block: list[str] = []
    lines, size_left = room
    for n in range(len(pointers), 0, -1):
        candidate = [BEGIN, *pointers[:n], END]
        c_lines, c_bytes = size(candidate)
        if c_lines <= lines and c_bytes + 1 <= size_left:  # + the newline joining it
            block = pointers[:n]
            break
    return Export(files, block, exported, len(entries) - exported)


def without_block(text: str) -> list[str]:
    """MEMORY.md's lines, less a block an earlier export wrote, and trailing blanks."""
    out = automemory.outside_enyals_block(text)
    while out and not out[-1].strip():
        out.pop()
    return out


def room_left(kept: list[str]) -> tuple[int, int]:
    lines, size_used = size(kept)
    return MAX_LINES - lines, MAX_BYTES - size_used


def index_text(kept: list[str], block: list[str]) -> str:
    lines = [*kept, BEGIN, *block, END] if block else kept
    return "\n".join(lines) + "\n" if lines else ""

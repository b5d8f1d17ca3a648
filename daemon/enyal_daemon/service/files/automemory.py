"""Claude Code's auto memory read as Markdown to index: pure text logic, no database.

Claude Code keeps what it learns about a project in a folder of its own
(`~/.claude/projects/<the project's path, every character not a letter or a digit
turned into '-'>/memory/`): a topic file per memory, led by front matter

    ---
    name: testing-with-the-real-daemon
    description: one line, what Claude decides relevance on
    metadata:
      type: feedback
    ---

(older releases wrote `type:` at the top level; both are read), and MEMORY.md, an
index of one line per topic file (`- [Title](file.md) — hook`) that Claude Code loads
into every session. `index` with `auto_memory_of` mirrors that folder as memories of
the project (service/files/indexing.py does the mirroring; this says what a file holds):

- a topic file's type gives the memories' kind (TYPES), its description leads the
  text (it is what says when the memory matters), its body follows, split into
  sections like any Markdown file;
- MEMORY.md's pointer lines are dropped (they only repeat the topic files, mirrored
  already); anything else written in it (older releases wrote memories there) is kept.

Nothing here writes into Claude's folder: it is read, never changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from enyal_protocol import wire as p
from enyal_protocol.automemory import ENYAL_BEGIN, ENYAL_TOPIC_PREFIX, outside_enyals_block

INDEX = "MEMORY.md"
# Claude Code's four memory types, as Enyal's kinds: who the user is and how they like
# to work is a preference; guidance on how to approach the work, a convention; the
# project's state and pointers to outside systems, facts.
TYPES: dict[str, p.ContentType] = {
    "user": "preference",
    "feedback": "convention",
    "project": "fact",
    "reference": "fact",
}
FIELDS = ("name", "description", "type")  # what the metadata keeps of the front matter

_POINTER = re.compile(r"^\s*[-*+]\s*\[[^\]]*\]\(\s*<?([^)>\s]+)>?\s*\)")
_PAIR = re.compile(r"^(\s*)([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Note:
    """One auto-memory file as Enyal indexes it."""

    text: str  # the Markdown to split into chunks
    content_type: p.ContentType
    fields: dict[str, str] = field(default_factory=dict)  # name, description, type given


def read(path: str, text: str, default: p.ContentType) -> Note:
    """What the file at `path` (its text) holds; `default`: the kind of a file that
    names no type it knows (MEMORY.md's own notes)."""
    front, body = _front_matter(text)
    name = path.rsplit("/", 1)[-1]
    if name == INDEX:
        return Note(_without_pointers("\n".join(outside_enyals_block(body))), default)
    if name.startswith(ENYAL_TOPIC_PREFIX) and front.get("name") == name.removesuffix(".md"):
        return Note("", default)  # Enyal's own export: its memories are here already
    fields = {k: front[k] for k in FIELDS if front.get(k)}
    kind = TYPES.get(fields.get("type", "").lower(), default)
    description = fields.get("description", "")
    lead = f"{description}\n\n" if description else ""
    return Note(lead + body.strip(), kind, fields)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """The front matter's `key: value` lines (a nested `metadata:` block's too, which
    Claude Code writes `type` in) and the body after it. Not a YAML parser: Claude
    writes plain one-line values, and a line it cannot read is left out, never fatal."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, text
    values: dict[str, str] = {}
    for line in lines[1:end]:
        m = _PAIR.match(line)
        if m is None or not m.group(3):
            continue
        key = m.group(2)
        if m.group(1) and key in values:  # a nested key never hides a top-level one
            continue
        values[key] = _unquote(m.group(3))
    return values, "\n".join(lines[end + 1 :])


def may_echo(path: str) -> bool:
    """Whether the file at `path` is one Enyal's export writes into (its topic file, or
    MEMORY.md for its block): a store that read it back before `read` left that out
    keeps copies of Enyal's own memories (echoes) until the file is read again."""
    name = path.rsplit("/", 1)[-1]
    return name == INDEX or name.startswith(ENYAL_TOPIC_PREFIX)


def echoes(path: str, mirrored: list[str]) -> bool:
    """Whether what is mirrored of a may_echo file (its active chunks' text) holds what
    `read` now leaves out: then the file is read again, unchanged or not."""
    if path.rsplit("/", 1)[-1] != INDEX:
        return bool(mirrored)  # an Enyal topic file yields none now
    return any(ENYAL_BEGIN in text for text in mirrored)


def _without_pointers(body: str) -> str:
    """MEMORY.md without its lines that point at a topic file beside it."""
    kept = []
    for line in body.splitlines():
        m = _POINTER.match(line)
        target = m.group(1) if m else ""
        if m and target.endswith(".md") and "://" not in target:
            continue
        kept.append(line)
    return "\n".join(kept).strip()

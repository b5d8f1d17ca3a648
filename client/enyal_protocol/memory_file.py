"""One memory as a Markdown file with front matter: the shared `.enyal/` format.

A project's shared memories live in the repository as `.enyal/<id>.md`, one file per
memory, so two people adding memories never touch the same file, and a reviewer reads
each as plain text. The front matter is `key: value` lines between two `---` lines;
each value is JSON (a string, a number, a list), which YAML reads the same way. The
body after it is the memory's text, as it is.

`render` and `parse` are each other's inverse (a test holds them so); `parse` raises
FormatError with the reason a person needs, never anything else, for a file that is
not one (bad front matter, a newer format, merge-conflict markers: `sides` splits
those into the two versions git could not merge). Pure Python on msgspec: the daemon
writes and reads these files, and the CLI's `export --format markdown` writes them too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from . import wire as p

FORMAT = 1  # `enyal:` in the front matter; a file of a newer one is refused, not guessed at
SUFFIX = ".md"
FOLDER = ".enyal"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7}|\|{7})( |$)", re.MULTILINE)


class FormatError(ValueError):
    """The file is not a memory of this format; the message says why."""


class MemoryFile(msgspec.Struct, kw_only=True):
    """What a shared file says about one memory. `path` is a file-scoped memory's file,
    relative to the repository's root (None: the project itself), so clones at different
    places read the same file alike."""

    id: str
    content: str
    content_type: p.ContentType = "fact"
    path: str | None = None
    tags: list[str] = []
    importance: int = 3
    confidence: float = 1.0
    created: str
    updated: str
    version: int = 1
    supersedes: list[str] = []
    relates_to: list[str] = []
    depends_on: list[str] = []
    written_by: str | None = None
    status: p.TaskStatus | None = None
    due: str | None = None


# The edges a memory's file carries: MemoryFile's lists of targets, one per edge type.
LINKS: tuple[p.EdgeType, ...] = ("supersedes", "relates_to", "depends_on")


def of_entry(
    e: p.Entry, path: str | None, links: Mapping[p.EdgeType, list[str]], version: int = 1
) -> MemoryFile:
    """The memory `e` as its file says it: `path` its file from the project's root (a
    file-scoped memory's), `links` its outgoing edges' targets by type (LINKS). Shared by
    sharing's .enyal/ files and `enyal export` into a folder (commands/memory_files.py)."""
    return MemoryFile(
        id=e.id,
        content=e.content,
        content_type=e.content_type,
        path=path,
        tags=e.tags,
        importance=e.importance,
        confidence=e.confidence,
        created=e.created_at,
        updated=e.updated_at,
        version=version,
        supersedes=links["supersedes"],
        relates_to=links["relates_to"],
        depends_on=links["depends_on"],
        written_by=e.written_by,
        status=e.status,
        due=e.due,
    )


# Front matter keys, in the order written: each field of MemoryFile once, `content` as the
# body and `enyal` (the format) first; `type` is the person's word for content_type.
_KEYS: dict[str, str] = {
    "id": "id",
    "type": "content_type",
    "path": "path",
    "tags": "tags",
    "importance": "importance",
    "confidence": "confidence",
    "created": "created",
    "updated": "updated",
    "version": "version",
    "supersedes": "supersedes",
    "relates_to": "relates_to",
    "depends_on": "depends_on",
    "written_by": "written_by",
    "status": "status",
    "due": "due",
}
_decoder = msgspec.json.Decoder(MemoryFile)


def file_name(entry_id: str) -> str:
    return entry_id + SUFFIX


def id_of(name: str) -> str | None:
    """The memory id a file name holds, or None for a name that is not `<id>.md`."""
    if not name.endswith(SUFFIX):
        return None
    stem = name[: -len(SUFFIX)]
    return stem if _ID.match(stem) else None


def render(m: MemoryFile) -> str:
    lines = ["---", f"enyal: {FORMAT}"]
    for key, attr in _KEYS.items():
        value = getattr(m, attr)
        if value is None or (value == [] and key != "tags"):
            continue  # left out: the default reads back the same
        lines.append(f"{key}: {msgspec.json.encode(value).decode()}")
    return "\n".join([*lines, "---", "", m.content.rstrip("\n"), ""])


def parse(text: str, name: str | None = None) -> MemoryFile:
    """The memory a file holds; FormatError saying why it is not one. `name` (the file
    name) must then be the memory's id, so a copied file cannot pass for another."""
    if _CONFLICT.search(text):
        raise FormatError("it has merge-conflict markers")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        raise FormatError("no front matter: it must start with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip("\r") == "---")
    except StopIteration:
        raise FormatError("the front matter has no closing '---' line") from None
    fields: dict[str, Any] = {}
    fmt: Any = None
    for number, line in enumerate(lines[1:end], start=2):
        key, sep, raw = line.rstrip("\r").partition(":")
        key = key.strip()
        if not sep or not key:
            raise FormatError(f"front matter line {number} is not 'key: value'")
        try:
            value = msgspec.json.decode(raw.strip())
        except msgspec.DecodeError:
            value = raw.strip()  # a bare word (a date, a type), as YAML reads it
        if key == "enyal":
            fmt = value
        elif key in _KEYS:
            fields[_KEYS[key]] = value
        else:
            raise FormatError(f"front matter line {number}: unknown key {key!r}")
    if fmt is None:
        raise FormatError("unknown format: the front matter has no 'enyal:' line")
    if not isinstance(fmt, int) or fmt < 1:
        raise FormatError(f"unknown format: enyal: {fmt!r}")
    if fmt > FORMAT:
        raise FormatError(
            f"written in format {fmt} by a newer Enyal; this one reads up to {FORMAT}"
        )
    body = lines[end + 1 :]
    if body and not body[0].strip():
        body = body[1:]
    fields["content"] = "\n".join(body).rstrip("\n")
    if not fields["content"].strip():
        raise FormatError("the memory's text (after the front matter) is empty")
    try:
        m = _decoder.decode(msgspec.json.encode(fields))
    except msgspec.ValidationError as exc:
        # msgspec names the struct's field (`$.content_type`): say the key the file holds.
        why = str(exc)
        for key, attr in _KEYS.items():
            why = why.replace(f"`$.{attr}`", f"`{key}`")
        raise FormatError(f"bad front matter: {why}") from None
    if not _ID.match(m.id):
        raise FormatError(f"bad id {m.id!r}")
    if name is not None and id_of(name) != m.id:
        raise FormatError(f"the file is named {name!r} but holds memory {m.id!r}")
    return m


def sides(text: str) -> tuple[str, str] | None:
    """A file git could not merge, as its two versions (ours, theirs): every conflict
    hunk's first side, then its second (a diff3 base section is left out). None when
    the text has no complete conflict hunk."""
    ours: list[str] = []
    theirs: list[str] = []
    state = "both"
    seen = False
    for line in text.split("\n"):
        if line.startswith("<<<<<<<") and state == "both":
            state, seen = "ours", True
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
        elif state == "both":
            ours.append(line)
            theirs.append(line)
        elif state == "ours":
            ours.append(line)
        elif state == "theirs":
            theirs.append(line)
    if not seen or state != "both":
        return None
    return "\n".join(ours), "\n".join(theirs)

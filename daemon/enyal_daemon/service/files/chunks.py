"""Markdown split into chunks the model reads whole: pure text logic, no database.

A chunk is a section — a heading and what follows it up to the next heading of any
level (fenced code and front matter never hold headings) — or the text before the
first heading. A section longer than the model's window (256 tokens, counted with the
tokenizer the embedder loads) is cut on paragraph boundaries, then lines, then words,
each part starting with the section's heading line again so it still says what it is
about. A heading with nothing under it makes no chunk (the next one carries it in its
`headings`).

Each chunk has a key, unique within its file and stable while its section keeps its
heading: the heading's GitHub-style anchor (`## Running tests` -> `running-tests`;
a repeated one `-1`, `-2`, as GitHub numbers them), `""` for the text before the first
heading, and `~2`, `~3` after it for the further parts of a long section. So editing
one section changes one chunk, and the keys read as links (`CLAUDE.md#running-tests`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

WINDOW = 256  # tokens the model reads, [CLS] and [SEP] included
SPECIAL = 2  # [CLS] and [SEP]

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING = re.compile(r"[ \t]+#+$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NOT_ANCHOR = re.compile(r"[^\w\- ]")

Counter = Callable[[str], int]  # tokens of a text, special ones included


@dataclass(frozen=True)
class Chunk:
    key: str
    heading: str  # its section's heading text ("" before the first heading)
    headings: tuple[str, ...]  # the headings it sits under, outermost first, its own last
    text: str


@dataclass
class _Section:
    level: int
    title: str
    heading_line: str
    lines: list[str]


def anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return _NOT_ANCHOR.sub("", title.strip().lower()).replace(" ", "-")


def _sections(text: str) -> list[_Section]:
    out = [_Section(0, "", "", [])]
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":  # front matter (.mdc rules): part of the preamble
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is not None:
            out[0].lines.extend(lines[: end + 1])
            start = end + 1
    fence: str | None = None
    for line in lines[start:]:
        m = _FENCE.match(line)
        if m is not None:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            out[-1].lines.append(line)
            continue
        h = _HEADING.match(line) if fence is None else None
        if h is None:
            out[-1].lines.append(line)
            continue
        title = _CLOSING.sub("", h.group(2) or "").strip()
        out.append(_Section(len(h.group(1)), title, line.strip(), []))
    return out


def split(text: str, count: Counter, window: int = WINDOW) -> list[Chunk]:
    """The chunks of a Markdown document, in order."""
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    trail: list[tuple[int, str]] = []
    for s in _sections(text):
        key = ""
        if s.level:
            trail = [(lv, t) for lv, t in trail if lv < s.level] + [(s.level, s.title)]
            base = anchor(s.title) or "section"
            n = seen.get(base, 0)
            seen[base] = n + 1
            key = base if n == 0 else f"{base}-{n}"
        body = "\n".join(s.lines).strip()
        if not body:
            continue
        headings = tuple(t for _, t in trail) if s.level else ()
        for i, part in enumerate(_parts(s.heading_line, body, count, window)):
            chunks.append(Chunk(key if i == 0 else f"{key}~{i + 1}", s.title, headings, part))
    return chunks


def _parts(heading: str, body: str, count: Counter, window: int) -> list[str]:
    """The section whole if it fits, else parts of it that each do, each led by the
    heading. WordPiece tokens never span whitespace, so a text cut at whitespace has as
    many tokens as its pieces together: each piece is counted once."""
    whole = f"{heading}\n\n{body}" if heading else body
    if count(whole) <= window:
        return [whole]
    lead = count(heading) - SPECIAL if heading else 0
    room = window - SPECIAL - lead
    pieces = _fitting(re.split(r"\n[ \t]*\n", body), count, room)
    out: list[str] = []
    current: list[str] = []
    used = 0
    for piece, size in pieces:
        if current and used + size > room:
            out.append(_join(heading, current))
            current, used = [], 0
        current.append(piece)
        used += size
    if current:
        out.append(_join(heading, current))
    return out


def _join(heading: str, pieces: list[str]) -> str:
    body = "\n\n".join(pieces)
    return f"{heading}\n\n{body}" if heading else body


def _fitting(pieces: list[str], count: Counter, room: int) -> list[tuple[str, int]]:
    """(piece, tokens) with every piece cut until it fits in `room`: a paragraph into
    lines, a line into words; a single word longer than that (a URL, a hash) is cut by
    characters."""
    out: list[tuple[str, int]] = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        size = count(piece) - SPECIAL
        if size <= room:
            out.append((piece, size))
        elif "\n" in piece:
            out += _merge(_fitting(piece.split("\n"), count, room), room, "\n")
        elif len(piece.split()) > 1:
            out += _merge(_fitting(piece.split(), count, room), room, " ")
        else:
            half = max(1, len(piece) // 2)
            out += _fitting([piece[:half], piece[half:]], count, room)
    return out


def _merge(pieces: list[tuple[str, int]], room: int, sep: str) -> list[tuple[str, int]]:
    """Consecutive pieces put back together while they fit (lines of a paragraph stay one
    piece as far as they can)."""
    out: list[tuple[str, int]] = []
    for piece, size in pieces:
        if out and out[-1][1] + size <= room:
            out[-1] = (out[-1][0] + sep + piece, out[-1][1] + size)
        else:
            out.append((piece, size))
    return out

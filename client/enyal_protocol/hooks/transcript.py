"""A Claude Code session transcript (JSONL) turned into a structured digest, with no LLM.

What is kept is what a later session can use and what cannot smuggle anything in: the
files changed (paths), the commands run (their first line) and how each ended, the
commands that failed and later passed (and the files edited in between), and the
sentences in which the user asked for something to be remembered. Never tool output
or the assistant's text: that is where injected instructions and noise live. Bounded
everywhere (lines read, items per section, characters per item); the daemon redacts
secrets when the lines are written.
"""

from __future__ import annotations

from enyal_protocol import str_paths
from enyal_protocol.lazy_re import LazyPattern

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MAX_LINE_BYTES = 1 << 20  # a transcript line bigger than this (an image, a dump) is skipped
MAX_LINES = 100_000
MAX_ITEMS = 20  # per section
MAX_CHARS = 240  # per item
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
EXIT_CODE = LazyPattern(r"^\s*Exit code (\d+)")
# A user sentence asking for something to be kept: "remember that …", "note that …",
# "from now on …", "always …", "never …", "we decided …".
REMEMBER = LazyPattern(
    r"(?i)\b(remember|note that|keep in mind|from now on|we decided|always|never)\b"
)
SENTENCE = LazyPattern(r"(?<=[.!?])\s+|\n+")


class Digest:
    """Not a dataclass: `dataclasses` imports `inspect`, and inject.py, which every context
    hook loads, imports this module (paths.Paths says what that costs)."""

    def __init__(self) -> None:
        self.files: list[str] = []  # changed, in first-change order
        self.commands: list[tuple[str, bool]] = []  # (command, ok)
        self.fixed: list[tuple[str, list[str]]] = []  # (command, files between)
        self.remember: list[str] = []

    def items(self) -> list[str]:
        """The digest, an item per fact: each says one thing, so a repeat is recognisable."""
        out = [f"changed {f}" for f in self.files]
        out += [f"ran `{c}` -> {'ok' if ok else 'failed'}" for c, ok in self.commands]
        for command, between in self.fixed:
            after = f" after changing {', '.join(between)}" if between else ""
            out.append(f"`{command}` failed, then passed{after}")
        out += [f"the user asked to remember: {s}" for s in self.remember]
        return out


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1] + "…"


def _add(items: list[Any], item: Any) -> None:
    if item not in items and len(items) < MAX_ITEMS:
        items.append(item)


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def failed(block: dict[str, Any]) -> bool:
    """Whether a tool result says its command failed: is_error, or "Exit code N" (N ≠ 0)."""
    if block.get("is_error") is True:
        return True
    content = block.get("content")
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    m = EXIT_CODE.match(text)
    return bool(m and m.group(1) != "0")


def _relative(path: str, cwd: str) -> str:
    try:
        return str_paths.relative_to(path, cwd) if cwd else path
    except ValueError:
        return path


def _records(path: Path) -> list[dict[str, Any]]:
    # Here, not at the top: inject.py imports this module for EDIT_TOOLS and EXIT_CODE,
    # and the context hooks' processes read JSON with lean_json, without the package.
    import json

    out: list[dict[str, Any]] = []
    with open(path, "rb") as f:
        for n, raw in enumerate(f):
            if n >= MAX_LINES:
                break
            if len(raw) > MAX_LINE_BYTES:
                continue
            try:
                record = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a partial last line while Claude Code writes: skip it
            if isinstance(record, dict):
                out.append(record)
    return out


def digest(path: Path, cwd: str) -> Digest:
    """The digest of the transcript at `path` (OSError if it cannot be read)."""
    d = Digest()
    pending: dict[str, str] = {}  # tool_use id -> its command
    failing: dict[str, list[str]] = {}  # command that failed -> files changed since
    for record in _records(path):
        if record.get("isSidechain") is True or record.get("isMeta") is True:
            continue  # a subagent's own turns, or Claude Code's injected notes
        kind = record.get("type")
        for block in _blocks(record):
            btype = block.get("type")
            if kind == "assistant" and btype == "tool_use":
                name, args = block.get("name"), block.get("input")
                if not isinstance(args, dict):
                    continue
                if name in EDIT_TOOLS and isinstance(args.get("file_path"), str):
                    changed = _short(_relative(args["file_path"], cwd))
                    _add(d.files, changed)
                    for between in failing.values():
                        _add(between, changed)
                elif name == "Bash" and isinstance(args.get("command"), str):
                    first = args["command"].strip().splitlines()
                    if first and isinstance(block.get("id"), str):
                        pending[block["id"]] = _short(first[0])
            elif kind == "user" and btype == "tool_result":
                command = pending.pop(str(block.get("tool_use_id")), None)
                if command is None:
                    continue
                ok = not failed(block)
                _add(d.commands, (command, ok))
                if not ok:
                    failing.setdefault(command, [])
                elif command in failing:
                    _add(d.fixed, (command, failing.pop(command)))
            elif kind == "user" and btype == "text" and isinstance(block.get("text"), str):
                for sentence in SENTENCE.split(block["text"]):
                    if REMEMBER.search(sentence) and sentence.strip():
                        _add(d.remember, _short(sentence))
    return d

"""One table of a TOML file set, everything else in the file kept as written (its
comments and layout too): how `enyal mcp config --client codex --install` writes
`[mcp_servers.enyal]` into Codex's config.toml. Python reads TOML (tomllib) but writes
none, so the table is replaced as text, and the result is read back and compared with
what was meant; an edit that would change anything else, or a file that is not TOML,
is refused before a byte is written."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from ..transport import ClientError

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _key(path: tuple[str, ...]) -> str:
    return ".".join(p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else json.dumps(p) for p in path)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key((k,))} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def render(path: tuple[str, ...], table: dict[str, Any]) -> str:
    """`table` as a TOML table headed `[path]`."""
    lines = [f"[{_key(path)}]"] + [f"{_key((k,))} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = f"{where} is not valid TOML ({exc}); fix it first, nothing was changed"
        raise ClientError(message) from None


def _header_path(line: str) -> tuple[str, ...] | None:
    m = _HEADER.match(line)
    if m is None:
        return None
    try:  # the header's key, read as TOML reads it (quoted parts included)
        probe = tomllib.loads(f"[{m.group(1)}]\n")
    except tomllib.TOMLDecodeError:
        return None
    out: list[str] = []
    while isinstance(probe, dict) and len(probe) == 1:
        (k, probe), *_ = probe.items()
        out.append(k)
    return tuple(out)


def value(text: str, path: tuple[str, ...]) -> Any:
    """What the TOML `text` sets at `path` (None: nothing, or `text` is not TOML)."""
    try:
        return _at(tomllib.loads(text), path)
    except tomllib.TOMLDecodeError:
        return None


def replace(text: str, path: tuple[str, ...], table: dict[str, Any], where: str) -> str:
    """`text` with the table at `path` (and its sub-tables) replaced by `table`."""
    before = _parse(text, where)
    kept: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        header = _header_path(line)
        if header is not None:
            skipping = header[: len(path)] == path
        if not skipping:
            kept.append(line)
    body = "".join(kept).rstrip()
    new = (body + "\n\n" if body else "") + render(path, table)
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        after = {}
    if not after or _without(after, path) != _without(before, path) or _at(after, path) != table:
        raise ClientError(
            f"{where} defines {_key(path)} in a way this edit cannot replace safely (a dotted "
            f"key or an inline table); nothing was changed. Put this in it by hand:\n"
            + render(path, table)
        )
    return new


def _at(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _without(data: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """A copy of `data` without the key at `path` (and a parent it leaves empty)."""
    out: dict[str, Any] = json.loads(json.dumps(data, default=str))
    parents: list[dict[str, Any]] = [out]
    for part in path[:-1]:
        nxt = parents[-1].get(part)
        if not isinstance(nxt, dict):
            return out
        parents.append(nxt)
    parents[-1].pop(path[-1], None)
    for i in range(len(parents) - 1, 0, -1):
        if not parents[i]:
            parents[i - 1].pop(path[i - 1], None)
    return out

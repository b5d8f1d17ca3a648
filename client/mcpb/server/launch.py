"""The MCP Bundle's server for Claude Desktop: it runs the `enyal-mcp` installed on this
machine (Enyal's daemon, model and store are an installation's, not a bundle's: a
bundle carrying numpy and onnxruntime for every platform would be hundreds of MB and a
second copy of Enyal). Which one: the bundle's setting (ENYAL_MCP, the path the user
chose when installing the bundle), else `enyal-mcp` on PATH, else the places pipx, uv
and pip --user put it. Standard library only, run by the bundle's Python."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PLACES = (
    "~/.local/bin",
    "~/.local/share/pipx/venvs/enyal/bin",
    "/opt/homebrew/bin",
    "/usr/local/bin",
)


def find() -> str | None:
    chosen = os.environ.get("ENYAL_MCP", "").strip()
    if chosen:
        return chosen
    found = shutil.which("enyal-mcp")
    if found:
        return found
    for place in PLACES:
        candidate = Path(place).expanduser() / "enyal-mcp"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def main() -> int:
    path = find()
    if path is None:
        print(
            "enyal-mcp was not found: install Enyal (pipx install enyal) or set its path "
            "in the bundle's settings",
            file=sys.stderr,
        )
        return 1
    os.execv(path, [path, *sys.argv[1:]])  # stdio passes straight through


if __name__ == "__main__":
    sys.exit(main())

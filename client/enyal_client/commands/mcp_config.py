"""`enyal mcp config --client claude-code | claude | claude-desktop | cursor | codex
[--install]`: the MCP server entry that runs `enyal-mcp`, printed, or merged into the
client's config file (`claude` is claude-code; Codex's is TOML, `[mcp_servers.NAME]` in
$CODEX_HOME/config.toml, ~/.codex by default, written by commands/toml_table.py).

--install keeps everything already in the file, replaces only mcpServers.<name>,
writes a timestamped backup first, and refuses a file it cannot parse rather than
overwrite it. The command is the absolute path of this installation's enyal-mcp,
so the MCP client does not depend on its own PATH.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enyal_protocol.whole_file import write_whole

from ..transport import ClientError
from . import toml_table
from .base import Args, Context, Registry, Result, UsageError

CLIENTS = ("claude-code", "claude", "claude-desktop", "cursor", "codex")
CLAUDE_CODE = ("claude-code", "claude")
PASSED_ENV = ("ENYAL_HOME", "ENYAL_SOCKET")


def beside(name: str) -> Path | None:
    """An executable `name` installed next to this interpreter (the venv's bin)."""
    path = Path(sys.executable).parent / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def enyal_mcp_command() -> list[str]:
    mcp = beside("enyal-mcp")
    if mcp:
        return [str(mcp)]
    found = shutil.which("enyal-mcp")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "enyal_client.mcp.shim"]


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def config_file(client: str) -> Path:
    home = Path.home()
    if client in CLAUDE_CODE:
        return home / ".claude.json"  # user scope: top-level mcpServers
    if client == "codex":
        return codex_home() / "config.toml"
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA") or str(home / "AppData" / "Roaming")
        return Path(appdata) / "Claude" / "claude_desktop_config.json"
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(xdg) / "Claude" / "claude_desktop_config.json"


def server_entry(client: str) -> dict[str, Any]:
    cmd = enyal_mcp_command()
    entry: dict[str, Any] = {}
    if client in CLAUDE_CODE:
        entry["type"] = "stdio"
    entry["command"] = cmd[0]
    entry["args"] = cmd[1:]
    env = {k: os.environ[k] for k in PASSED_ENV if os.environ.get(k)}
    if env or client != "codex":
        entry["env"] = env
    return entry


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClientError(
            f"{path} is not valid JSON ({exc}); fix it first, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise ClientError(f"{path} does not hold a JSON object; nothing was changed")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    # These files can hold API keys: keep their privacy.
    write_whole(path, text.encode("utf-8"), mode)


def merge(
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[bool, Path | None]:
    """Apply `change` to a client's JSON config, keeping everything else in it: a file it
    leaves as it was is not touched; otherwise a timestamped backup of the old file is
    written first. A file that is not a JSON object is refused before anything changes.
    Returns (whether it changed, the backup written)."""
    data = _read(path)
    new = change(json.loads(json.dumps(data)))  # a deep copy: `data` stays the original
    if new == data:
        return False, None
    backup = back_up(path)
    _write(path, new)
    return True, backup


def back_up(path: Path) -> Path | None:
    """A timestamped copy of `path` beside it, if it exists."""
    if not path.exists():
        return None
    backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
    shutil.copy2(path, backup)
    return backup


def install_toml(path: Path, name: str, entry: dict[str, Any]) -> tuple[str, Path | None]:
    """Codex's `[mcp_servers.NAME]` set in its config.toml, the rest of the file as it was."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientError(f"cannot read {path}: {exc}; nothing was changed") from None
    table = ("mcp_servers", name)
    existing = toml_table.value(text, table)
    if existing == entry:
        return "unchanged", None
    new = toml_table.replace(text, table, entry, str(path))
    backup = back_up(path)
    write_text(path, new)
    return ("replaced" if existing is not None else "added"), backup


def install(path: Path, name: str, entry: dict[str, Any]) -> tuple[str, Path | None]:
    """Merge the entry; returns (what happened, the backup written)."""
    existed: list[bool] = []

    def change(data: dict[str, Any]) -> dict[str, Any]:
        servers = data.get("mcpServers", {})
        if not isinstance(servers, dict):
            raise ClientError(f"{path}: mcpServers is not an object; nothing was changed")
        existed.append(name in servers)
        data["mcpServers"] = {**servers, name: entry}
        return data

    changed, backup = merge(path, change)
    if not changed:
        return "unchanged", None
    return ("replaced" if existed[0] else "added"), backup


def cmd_mcp(ctx: Context, a: Args) -> Result:
    if a.action == "serve":
        # enyal-mcp under the package's own command: what `uvx enyal mcp serve` (the MCP
        # Registry's server.json) runs. It never returns: stdout is the MCP stream.
        from ..mcp.shim import main as serve

        raise SystemExit(serve([]))
    if a.client is None:
        raise UsageError("mcp config needs --client")
    entry = server_entry(a.client)
    path = config_file(a.client)
    if a.client == "codex":
        return _codex(a, path, entry)
    snippet = {"mcpServers": {a.name: entry}}
    if not a.install:
        text = f"# add to {path}:\n{json.dumps(snippet, indent=2)}"
        if a.client in CLAUDE_CODE:
            cmd = ["claude", "mcp", "add", "--scope", "user", a.name]
            cmd += [f"--env={k}={v}" for k, v in entry["env"].items()]
            cmd += ["--", entry["command"], *entry["args"]]
            text += f"\n# or let Claude Code do it:\n{shlex.join(cmd)}"
        text += "\n# or: enyal mcp config --client " + a.client + " --install"
        return {"client": a.client, "file": str(path), "config": snippet}, text
    action, backup = install(path, a.name, entry)
    return installed(
        a.client, path, snippet, action, backup, f"mcpServers.{a.name}", f"restart {a.client}"
    )


def _codex(a: Args, path: Path, entry: dict[str, Any]) -> Result:
    snippet = {"mcp_servers": {a.name: entry}}
    if not a.install:
        text = f"# add to {path}:\n" + toml_table.render(("mcp_servers", a.name), entry)
        text += "# or: enyal mcp config --client codex --install"
        return {"client": a.client, "file": str(path), "config": snippet}, text
    action, backup = install_toml(path, a.name, entry)
    what = f"[mcp_servers.{a.name}]"
    return installed(a.client, path, snippet, action, backup, what, "start a new codex session")


def installed(
    client: str,
    path: Path,
    snippet: dict[str, Any],
    action: str,
    backup: Path | None,
    what: str,
    then: str,
) -> Result:
    """What an install into a client's config did, for --json and for people: `what` was
    `action`ed in `path`; `then` is how the client picks it up."""
    done = action != "unchanged"
    lines = [f"{path}: {action} {what}" + ("" if done else " (already up to date)")]
    if backup is not None:
        lines.append(f"backup of the previous file: {backup}")
    if done:
        lines.append(f"{then} to pick it up")
    result = {
        "client": client,
        "file": str(path),
        "action": action,
        "backup": str(backup) if backup else None,
        "config": snippet,
    }
    return result, "\n".join(lines)


def register(reg: Registry) -> None:
    m = reg.verb("mcp", "configure MCP clients to use enyal-mcp, or serve as it", cmd_mcp)
    m.add_argument("action", choices=("config", "serve"))
    m.add_argument("--client", choices=CLIENTS)
    m.add_argument(
        "--install",
        action="store_true",
        help="merge into the client's config file (keeps the rest, writes a backup)",
    )
    m.add_argument("--name", default="enyal", help="the server's name (default: enyal)")

"""`enyal config show | path`: the effective configuration and where each value came from."""

from __future__ import annotations

import json
from typing import Any

from enyal_protocol.config import KEYS, ConfigError, SecretPattern, load
from enyal_protocol.paths import resolve

from ..transport import ClientError
from .base import Args, Context, Registry, Result


def cmd_config(ctx: Context, a: Args) -> Result:
    paths = resolve()
    if a.action == "path":
        exists = paths.config_file.is_file()
        return {"file": str(paths.config_file), "exists": exists}, str(paths.config_file)
    try:
        cfg = load(paths)
    except ConfigError as exc:
        raise ClientError(str(exc)) from None
    rows = [
        {
            "key": v.key.name,
            "value": plain(v.value),
            "source": v.source,
            "from": v.describe_source(cfg.file),
            "env": v.key.env,
            "help": v.key.help,
        }
        for v in cfg.values.values()
    ]
    where = {
        "home": str(paths.home) if paths.home else None,
        "data_dir": str(paths.data_dir),
        "config_file": str(paths.config_file),
        "log_dir": str(paths.log_dir),
        "socket": str(paths.socket),
    }
    state = "" if cfg.file_exists else " (absent: defaults apply)"
    width = max(len(k.name) for k in KEYS)
    lines = [f"config file: {cfg.file}{state}"]
    for r in rows:
        lines.append(f"{r['key']:{width}} = {toml_value(r['value']):40} # {r['from']}")
    lines.append("environment only (a client needs them before reading any file):")
    lines.append(f"  ENYAL_HOME   = {where['home'] or '(unset: platform folders)'}")
    lines.append(f"  ENYAL_SOCKET -> {where['socket']}")
    return {"file": str(cfg.file), "exists": cfg.file_exists, "keys": rows, "paths": where}, (
        "\n".join(lines)
    )


def plain(value: Any) -> Any:
    """A value as --json shows it: a secret pattern as an object (it is a NamedTuple, which
    JSON would make an array)."""
    if isinstance(value, SecretPattern):
        return value._asdict()
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return value


def toml_value(value: Any) -> str:
    """A value as it would be written in config.toml; a key left unset (None: the daemon's
    built-in value applies, such as a type's half-life) reads `(built in)`."""
    if value is None:
        return "(built in)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string escapes alike
    if isinstance(value, SecretPattern):  # a table, as config.toml writes it
        value = value._asdict()
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def register(reg: Registry) -> None:
    c = reg.verb(
        "config", "show the effective configuration and where each value came from", cmd_config
    )
    c.add_argument("action", choices=("show", "path"), nargs="?", default="show")

"""`enyal doctor [--json]`: check everything Enyal depends on, each with a fix.

Every check reports ok / warn / fail, what it saw, and for anything not ok the
command or change that fixes it. Exit status 1 when any check fails. Checks that
need the daemon's libraries run in its entry point (`python -m enyal_daemon doctor`,
a subprocess); this module lays their findings in among its own.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.paths import SOCKET_PATH_MAX, Paths, resolve, short_socket_path
from enyal_protocol.tools import Check, Checks

from .. import daemon_tools
from ..transport import ClientError
from .base import Args, Context, Registry, Result
from .daemon import DaemonExit

# Checked by `python -m enyal_daemon doctor`: they need the daemon's libraries (apsw,
# sqlite-vec, the model locator), which the client never imports.
DAEMON_CHECKS = ("sqlite", "extension loading", "python sqlite3", "fts5", "model", "database")


def _safe(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # a check that crashes is itself a finding, not a crash
        return Check(name, "fail", f"the check raised {type(exc).__name__}: {exc}")


def daemon_checks() -> dict[str, Check]:
    try:
        found = daemon_tools.run(["doctor"], Checks).checks
    except daemon_tools.ToolInterrupted:
        raise DaemonExit(130) from None
    except (ClientError, OSError) as exc:  # e.g. a client installed without the daemon
        return {
            name: Check(
                name,
                "fail",
                f"`python -m enyal_daemon doctor` did not run: {exc}",
                f"reinstall Enyal into {sys.prefix} (`pip install --force-reinstall enyal`)",
            )
            for name in DAEMON_CHECKS
        }
    by_name = {c.name: c for c in found}
    return {
        name: by_name.get(name) or Check(name, "fail", "the daemon's doctor did not report it")
        for name in DAEMON_CHECKS
    }


# --- paths and permissions ------------------------------------------------------------------


def check_socket_path(paths: Paths) -> Check:
    n = len(os.fsencode(paths.socket))
    limit = SOCKET_PATH_MAX
    if n > limit:
        return Check(
            "socket path",
            "fail",
            f"{paths.socket} is {n} bytes; the limit here is {limit}",
            "set ENYAL_SOCKET to a shorter path, or unset it for the automatic short path",
        )
    fallback = paths.socket == short_socket_path(str(paths.runtime_dir))
    note = f" (the runtime dir {paths.runtime_dir} is too deep, so a short path is used)"
    return Check(
        "socket path", "ok", f"{paths.socket}: {n} of {limit} bytes" + (note if fallback else "")
    )


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def check_permissions(paths: Paths) -> Check:
    fails: list[str] = []
    warns: list[str] = []
    fixes: list[str] = []
    for d in dict.fromkeys((paths.runtime_dir, paths.socket.parent)):
        m = _mode(d)
        if m is None:
            continue
        if d.stat().st_uid != os.getuid():
            fails.append(f"{d} belongs to another user")
            fixes.append(f"remove {d}, or set ENYAL_SOCKET to a path of yours")
        elif m & 0o077:
            fails.append(f"{d} is mode {m:o}, open to others")
            fixes.append(f"chmod 700 {d}")
    m = _mode(paths.socket)
    if m is not None and m & 0o077:
        fails.append(f"the socket {paths.socket} is mode {m:o}")
        fixes.append("`enyal daemon restart` (the daemon creates it 0600)")
    for f in (paths.data_dir, paths.db):
        m = _mode(f)
        if m is not None and m & 0o002:
            fails.append(f"{f} is writable by everyone (mode {m:o})")
            fixes.append(f"chmod o-w {f}")
    m = _mode(paths.db)
    if m is not None and m & 0o044:
        warns.append(f"{paths.db} is readable by other users (mode {m:o})")
        fixes.append(f"chmod 600 {paths.db}  # memories may hold private notes")
    if fails or warns:
        return Check(
            "permissions", "fail" if fails else "warn", "; ".join(fails + warns), "; ".join(fixes)
        )
    return Check("permissions", "ok", "runtime dir private, socket 0600, database not shared")


# --- the daemon, the service, the database --------------------------------------------------


def check_daemon(paths: Paths) -> tuple[Check, dict[str, Any] | None]:
    from ..transport import ClientError, Connection, try_connect

    try:
        sock = try_connect(paths.socket, timeout=5.0)
    except (ClientError, OSError) as exc:  # ClientError: another user's socket (refused)
        return Check("daemon", "fail", f"connecting to {paths.socket}: {exc}"), None
    if sock is None:
        return (
            Check(
                "daemon",
                "ok",
                f"not running; the next client starts it on {paths.socket}",
            ),
            None,
        )
    conn = Connection(sock)
    try:
        st: dict[str, Any] = conn.call("status", {})
    except (ClientError, OSError) as exc:
        return (
            Check(
                "daemon",
                "fail",
                f"something listens on {paths.socket} but does not answer status: {exc}",
                "`enyal logs`; `enyal daemon restart`",
            ),
            None,
        )
    finally:
        conn.close()
    if st.get("version") != __version__ or st.get("protocol") != p.PROTOCOL_VERSION:
        return (
            Check(
                "daemon",
                "fail",
                f"pid {st.get('pid')} runs enyal {st.get('version')} (protocol "
                f"{st.get('protocol')}); this client is {__version__} "
                f"(protocol {p.PROTOCOL_VERSION})",
                "enyal daemon restart",
            ),
            st,
        )
    return Check("daemon", "ok", f"pid {st.get('pid')}, enyal {st.get('version')}"), st


def check_service(paths: Paths) -> Check:
    from .service import default_manager, service_status

    s = service_status(paths, default_manager())
    installed = [u for u in s["units"] if u["installed"]]
    if not installed:
        return Check(
            "service",
            "ok",
            f"not installed under {s['manager']} ({s['manager_detail']}); clients start the "
            "daemon on demand",
        )
    stale = [u["path"] for u in installed if not u["current"]]
    if stale:
        return Check(
            "service",
            "warn",
            f"{', '.join(stale)} differ from what this installation writes "
            "(moved or upgraded since `enyal service install`?)",
            "enyal service install",
        )
    state = ", ".join(f"{k} {v}" for k, v in s["state"].items()) or s["manager_detail"]
    return Check("service", "ok", f"installed under {s['manager']}: {state}")


def check_writable(paths: Paths) -> Check:
    """A database the daemon cannot write is served read-only (recall works, writes are
    refused with -32009): worth a warning, and its fix is permission, not a new file."""
    db, folder = paths.db, paths.db.parent
    if not db.exists():
        return Check("writable", "ok", f"{folder} will hold the database")
    blocked = [str(f) for f in (db, folder) if not os.access(f, os.W_OK)]
    if not blocked:
        return Check("writable", "ok", f"{db} and its folder can be written")
    return Check(
        "writable",
        "warn",
        f"read-only: {', '.join(blocked)} cannot be written, so Enyal serves reads only",
        f"give write permission back (chmod u+w {' '.join(blocked)}; on a read-only mount, "
        "remount it read-write), then `enyal daemon restart`: nothing needs moving aside",
    )


def check_redaction(configured: bool, status: dict[str, Any] | None) -> Check:
    """Secrets are redacted unless the user said otherwise, in the config or in the
    environment of the daemon that runs (which may predate a config change)."""
    daemon_off = status is not None and status.get("redacts_secrets") is False
    if configured and not daemon_off:
        return Check("secrets", "ok", "redacted on every write")
    where = "secrets.redact = false" if not configured else "in the running daemon"
    return Check(
        "secrets",
        "warn",
        f"redaction is off ({where}): credentials sent to Enyal are stored verbatim",
        "remove secrets.redact from config.toml (and ENYAL_REDACT_SECRETS), restart the "
        "daemon (enyal daemon stop), then `enyal scan --fix`",
    )


def wide_rules(rules: dict[str, str]) -> list[str]:
    """The hub rules that cover more than a project: one on `/` or on a folder in no
    project (no marker there, or gone), which a store may hold from before `hub rule`
    refused them. Each puts every project stored under it into its space."""
    from enyal_protocol import projects

    return [
        key
        for key in rules
        if not key.startswith(projects.GIT_PREFIX) and (key == "/" or not projects.marked(key))
    ]


def check_hub(paths: Paths) -> Check:
    """The team hub as the running daemon sees it (`enyal hub status`): only a daemon
    knows whether its worker reaches the hub, so with none running there is nothing to say."""
    from ..transport import ClientError, Connection, try_connect
    from .hub import status_lines

    try:
        sock = try_connect(paths.socket, timeout=5.0)
    except (ClientError, OSError):  # the daemon check says why (not a socket, not ours)
        return Check("hub", "ok", "no daemon to ask: see the daemon check")
    if sock is None:
        return Check("hub", "ok", "the daemon is not running: `enyal hub status` once it is")
    conn = Connection(sock)
    try:
        st = msgspec.convert(conn.call("hub.status", {}), p.HubStatusResult)
    finally:
        conn.close()
    if not st.configured:
        return Check("hub", "ok", "none (memories stay on this machine)")
    # The same words `enyal hub status` prints, folded onto one line.
    detail = "; ".join(line.strip() for line in status_lines(st))
    wide = wide_rules(st.rules)
    if wide:
        return Check(
            "hub",
            "warn",
            f"{detail}; a rule on {', '.join(wide)} covers every project stored under it",
            "; ".join(f"`enyal hub rule --remove {key}`" for key in wide),
        )
    if st.connected and not st.last_error:
        return Check("hub", "ok", detail)
    return Check(
        "hub",
        "warn",
        detail,
        "`enyal hub status`; check the hub is up and this role's password is in ~/.pgpass "
        "(or PGPASSFILE); local work goes on and the outbox is pushed once it is reached",
    )


def check_hooks() -> Check:
    """Which form each client's command hooks take: `enyal hook` from an install
    before the launcher costs a third more a hook; installing again upgrades them."""
    from .hooks import LAUNCHER, installed_hooks
    from .mcp_config import beside

    found, fixes = [], []
    for client, name in (("claude-code", "Claude Code"), ("codex", "Codex"), ("cursor", "Cursor")):
        got = installed_hooks(client)
        if got.launcher:
            found.append(f"{name}: {got.launcher} via {LAUNCHER}")
        if got.console:
            found.append(f"{name}: {got.console} via `enyal hook`")
            flag = " --prompt-recall" if got.prompt_recall else ""
            fixes.append(f"enyal hooks install --client {client}{flag}")
    if not found:
        return Check("hooks", "ok", "no command hooks installed (the plugin's are its own)")
    detail = "; ".join(found)
    if fixes and beside(LAUNCHER):
        return Check(
            "hooks", "warn", f"{detail}: {LAUNCHER} starts a hook for less", "; ".join(fixes)
        )
    return Check("hooks", "ok", detail)


def run_checks(paths: Paths, redacting: bool = True) -> list[Check]:
    deep = daemon_checks()
    checks = [
        Check("python", "ok", f"{sys.version.split()[0]} at {sys.executable}"),
        deep["sqlite"],
        deep["extension loading"],
        deep["python sqlite3"],
        deep["fts5"],
        deep["model"],
        _safe("socket path", lambda: check_socket_path(paths)),
        _safe("permissions", lambda: check_permissions(paths)),
    ]
    status: dict[str, Any] | None = None
    try:
        daemon_check, status = check_daemon(paths)
    except Exception as exc:
        daemon_check = Check("daemon", "fail", f"the check raised {exc}")
    checks.append(daemon_check)
    checks.append(check_redaction(redacting, status))
    checks.append(_safe("service", lambda: check_service(paths)))
    checks.append(_safe("writable", lambda: check_writable(paths)))
    checks.append(deep["database"])
    checks.append(_safe("hub", lambda: check_hub(paths)))
    checks.append(_safe("hooks", check_hooks))
    return checks


def cmd_doctor(ctx: Context, a: Args) -> Result:
    from enyal_protocol.config import ConfigError, export_env, load

    paths = resolve()
    redacting = True
    try:
        cfg = load(paths)
        export_env(cfg)
        config_check = Check("config", "ok", f"{paths.config_file}")
        redacting = cfg.redact_secrets
    except ConfigError as exc:
        config_check = Check("config", "fail", str(exc), "fix or remove the key it names")
    checks = [config_check, *run_checks(paths, redacting)]
    failed = any(c.status == "fail" for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{c.status.upper():5} {c.name:18} {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"{'':5} {'':18} fix: {c.fix}")
    summary = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    lines.append(f"{summary['ok']} ok, {summary['warn']} warnings, {summary['fail']} failures")
    return {"checks": checks, "failed": failed}, "\n".join(lines)


def register(reg: Registry) -> None:
    reg.verb("doctor", "check the installation; every problem comes with its fix", cmd_doctor)

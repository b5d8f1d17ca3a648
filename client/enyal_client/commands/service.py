"""`enyal service install | uninstall | status`: run the daemon under the user's service
manager (systemd --user on Linux, launchd on macOS) with socket activation.

Without a service manager nothing is lost: clients start the daemon on demand and it
exits after idling. --dry-run prints the files and the exact commands instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

from enyal_protocol.paths import Paths, resolve

from ..service_units import (
    LAUNCHD_LABEL,
    UnitFile,
    enyal_executable,
    render_launchd,
    render_systemd,
)
from ..transport import ClientError, Connection, try_connect
from .base import Args, Context, Registry, Result

UP_STATES = ("running", "degraded", "starting", "initializing", "maintenance")


def _run(cmd: list[str]) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        return 127, f"{cmd[0]}: not found"
    return p.returncode, (p.stdout + p.stderr).strip()


def default_manager() -> str:
    return "launchd" if sys.platform == "darwin" else "systemd"


def manager_answers(manager: str) -> tuple[bool, str]:
    """Whether the user's service manager is there to talk to, and what it said."""
    if manager == "launchd":
        if not shutil.which("launchctl"):
            return False, "launchctl is not installed"
        code, out = _run(["launchctl", "print", f"gui/{os.getuid()}"])
        return (True, "launchd answers") if code == 0 else (False, out or f"exit {code}")
    if not shutil.which("systemctl"):
        return False, "systemctl is not installed"
    code, out = _run(["systemctl", "--user", "is-system-running"])
    state = out.splitlines()[0].strip() if out else ""
    if state in UP_STATES:
        return True, f"systemd --user is {state}"
    return False, f"`systemctl --user is-system-running` says {state or 'nothing'!r} (exit {code})"


def _files_and_commands(
    manager: str, paths: Paths, action: str
) -> tuple[list[UnitFile], list[list[str]]]:
    command = enyal_executable()
    if manager == "launchd":
        plist = render_launchd(paths, command)
        target = f"gui/{os.getuid()}"
        if action == "install":
            return [plist], [
                ["launchctl", "bootout", f"{target}/{LAUNCHD_LABEL}"],
                ["launchctl", "bootstrap", target, str(plist.path)],
            ]
        return [plist], [["launchctl", "bootout", f"{target}/{LAUNCHD_LABEL}"]]
    units = render_systemd(paths, command)
    if action == "install":
        return units, [
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", "--now", "enyal.socket"],
        ]
    return units, [
        ["systemctl", "--user", "disable", "--now", "enyal.socket", "enyal.service"],
        ["systemctl", "--user", "daemon-reload"],
    ]


def _no_manager_text(manager: str, why: str) -> str:
    return (
        f"no user service manager answers ({why}), so nothing was installed.\n"
        "That is fine: any client (enyal, enyal-mcp) starts the daemon in the background "
        "when none answers, and it exits after daemon.idle_timeout without a connection "
        "(`enyal config show`)."
    )


def _shell(cmd: list[str]) -> str:
    import shlex

    return shlex.join(cmd)


def _dry_run(action: str, manager: str, files: list[UnitFile], cmds: list[list[str]]) -> Result:
    verb = "write" if action == "install" else "remove"
    parts = [f"# {verb} {f.path}" + (f"\n{f.text}" if action == "install" else "") for f in files]
    parts.append("# then run:\n" + "\n".join(_shell(c) for c in cmds))
    result = {
        "manager": manager,
        "action": action,
        "dry_run": True,
        "files": [{"path": str(f.path), "text": f.text} for f in files],
        "commands": cmds,
    }
    return result, "\n".join(parts)


def cmd_install(a: Args) -> Result:
    paths, manager = resolve(), a.manager or default_manager()
    files, cmds = _files_and_commands(manager, paths, "install")
    if a.dry_run:
        return _dry_run("install", manager, files, cmds)
    up, why = manager_answers(manager)
    if not up:
        return {
            "manager": manager,
            "installed": False,
            "reason": why,
            "failed": True,
        }, _no_manager_text(manager, why)
    done: list[str] = []
    # A daemon a client started holds the socket path; the service manager takes it over.
    from .daemon import stop

    old = stop(paths)
    if old is not None:
        done.append(f"stopped the daemon a client had started (pid {old['pid']})")
    if manager == "launchd":
        # launchd creates the socket file, not the folders above it.
        from enyal_protocol.paths import ensure_private_dir

        ensure_private_dir(paths.socket.parent, ours=paths.socket_dir_is_ours)
        from enyal_protocol.private import make_private_dirs

        make_private_dirs(paths.log_dir)
    for f in files:
        f.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = f.path.with_name(f.path.name + ".tmp")
        tmp.write_text(f.text, encoding="utf-8")
        tmp.replace(f.path)
        done.append(f"wrote {f.path}")
    for i, c in enumerate(cmds):
        code, out = _run(c)
        # bootout of a job that is not loaded fails; that is the expected first-install case.
        if code != 0 and not (manager == "launchd" and i == 0):
            raise ClientError(f"`{_shell(c)}` failed (exit {code}): {out}")
        done.append(f"ran {_shell(c)}")
    result = {
        "manager": manager,
        "installed": True,
        "files": [str(f.path) for f in files],
        "commands": cmds,
    }
    return result, "\n".join(done)


def cmd_uninstall(a: Args) -> Result:
    paths, manager = resolve(), a.manager or default_manager()
    files, cmds = _files_and_commands(manager, paths, "uninstall")
    if a.dry_run:
        return _dry_run("uninstall", manager, files, cmds)
    done: list[str] = []
    up, why = manager_answers(manager)
    present = [f for f in files if f.path.exists()]
    if up and present:
        # Disable first (it reads the unit files), then remove them, then reload.
        code, out = _run(cmds[0])
        if code != 0:
            raise ClientError(f"`{_shell(cmds[0])}` failed (exit {code}): {out}")
        done.append(f"ran {_shell(cmds[0])}")
    for f in present:
        f.path.unlink()
        done.append(f"removed {f.path}")
    if up and present and len(cmds) > 1:
        _run(cmds[1])
        done.append(f"ran {_shell(cmds[1])}")
    if not present:
        done.append("nothing to uninstall: no unit files found")
    elif not up:
        done.append(f"(no user service manager answers: {why}; nothing was running under it)")
    return {"manager": manager, "removed": [str(f.path) for f in present]}, "\n".join(done)


def _daemon_state(paths: Paths) -> dict[str, Any]:
    try:
        sock = try_connect(paths.socket, timeout=5.0)
    except (ClientError, OSError) as exc:  # ClientError: another user's socket (refused)
        return {"reachable": False, "error": str(exc)}
    if sock is None:
        return {"reachable": False}
    conn = Connection(sock)
    try:
        st = conn.call("status", {})
    except (ClientError, OSError) as exc:
        return {"reachable": False, "error": str(exc)}
    finally:
        conn.close()
    return {"reachable": True, "pid": st.get("pid"), "version": st.get("version")}


def service_status(paths: Paths, manager: str) -> dict[str, Any]:
    files, _ = _files_and_commands(manager, paths, "install")
    up, why = manager_answers(manager)
    units = []
    for f in files:
        exists = f.path.is_file()
        current = exists and f.path.read_text(encoding="utf-8") == f.text
        units.append({"path": str(f.path), "installed": exists, "current": current})
    state: dict[str, Any] = {}
    if up and manager == "systemd":
        for prop, unit in (
            ("enabled", "enyal.socket"),
            ("socket", "enyal.socket"),
            ("service", "enyal.service"),
        ):
            verb = "is-enabled" if prop == "enabled" else "is-active"
            _, out = _run(["systemctl", "--user", verb, unit])
            state[prop] = out.splitlines()[0] if out else "unknown"
    elif up and manager == "launchd":
        code, _ = _run(["launchctl", "print", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"])
        state["loaded"] = code == 0
    return {
        "manager": manager,
        "manager_answers": up,
        "manager_detail": why,
        "units": units,
        "state": state,
        "daemon": _daemon_state(paths),
        "socket": str(paths.socket),
    }


def cmd_status(a: Args) -> Result:
    paths, manager = resolve(), a.manager or default_manager()
    s = service_status(paths, manager)
    lines = [f"manager: {manager} ({s['manager_detail']})"]
    for u in s["units"]:
        mark = "not installed"
        if u["installed"]:
            mark = "installed" if u["current"] else "installed, differs from what install writes"
        lines.append(f"{u['path']}: {mark}")
    lines.extend(f"{k}: {v}" for k, v in s["state"].items())
    d = s["daemon"]
    lines.append(
        f"daemon: pid {d['pid']}, enyal {d['version']}, on {s['socket']}"
        if d["reachable"]
        else f"daemon: not running (a client starts it on demand on {s['socket']})"
    )
    return s, "\n".join(lines)


def cmd_service(ctx: Context, a: Args) -> Result:
    return {"install": cmd_install, "uninstall": cmd_uninstall, "status": cmd_status}[a.action](a)


def register(reg: Registry) -> None:
    s = reg.verb("service", "install the daemon as a user service (systemd / launchd)", cmd_service)
    s.add_argument("action", choices=("install", "uninstall", "status"))
    s.add_argument(
        "--dry-run", action="store_true", help="print the files and commands; change nothing"
    )
    s.add_argument(
        "--manager",
        choices=("systemd", "launchd"),
        help="default: launchd on macOS, systemd elsewhere (other values render for review)",
    )

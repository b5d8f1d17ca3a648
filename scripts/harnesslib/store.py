"""A daemon's store seen from outside: its file opened beside it, its export read whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

Call = Callable[[str, dict[str, Any]], Any]


def open_db(path: Path) -> apsw.Connection:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE)  # never creates one
    conn.set_busy_timeout(10_000)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    return conn


def _pages(call: Call, params: dict[str, Any], key: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = call("export", {**params, "after": after, "limit": 1000})
        out.extend(page[key])
        if page["next"] is None:
            return out
        after = page["next"]


def export_entries(call: Call, versions: bool = False) -> list[dict[str, Any]]:
    """Every entry, page by page; with `versions`, each with its history."""
    return _pages(call, {"versions": versions}, "entries")


def export_edges(call: Call) -> list[dict[str, Any]]:
    return _pages(call, {"kind": "edges"}, "edges")

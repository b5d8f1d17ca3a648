"""A recall's keyword search checks each match against the asker's view through
idx_entries_view (m026), the columns a filter reads by rid, not through the entry's whole
row (issue 30: the join read ~1,670 pages a recall at 10k); a filter that reads any other
column takes the row as before, and both find the same entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import raw_db
from enyal_daemon.index import keywords
from enyal_daemon.service.memory import memories
from enyal_daemon.store import cjk, migrations
from enyal_daemon.store.filters import VIEW_COLUMNS, VIEW_INDEX, EntryFilter, View
from enyal_protocol import wire as p

PROJECT = "/home/dev/src/harbor"


def _statements(conn: Any, run: Any) -> list[str]:
    seen: list[str] = []

    def trace(_cursor: Any, sql: str, _bindings: Any) -> bool:
        seen.append(sql)
        return True

    conn.exec_trace = trace
    try:
        run()
    finally:
        conn.exec_trace = None
    return seen


def test_the_index_holds_the_columns_a_covered_filter_reads(tmp_path: Path) -> None:
    """Said twice, checked here: the migration's columns and the filter's list."""
    conn = raw_db(tmp_path / "enyal.db")
    cjk.register(conn)
    migrations.migrate(conn)
    columns = {row[2] for row in conn.execute(f"PRAGMA index_info({VIEW_INDEX})")}
    assert columns == VIEW_COLUMNS


def test_a_view_is_checked_through_the_index_and_finds_what_the_rows_find(memory: Any) -> None:
    for scope, path, text in (
        ("project", PROJECT, "harbor deploys with zeppelin rollouts"),
        ("project", "/home/dev/src/relay", "relay deploys with zeppelin canaries"),
        ("global", None, "zeppelin rollouts need a change ticket"),
    ):
        params = p.RememberParams(content=text, scope=scope, scope_path=path)
        memories.remember(memory, params)
    view = View(root=PROJECT)
    covered = EntryFilter(view=view)
    # The same entries (nothing created in the future), but a column the index lacks
    uncovered = EntryFilter(view=view, created_before="9999-01-01T00:00:00Z")
    assert covered.covered and not uncovered.covered
    conn = memory.reader()
    found: dict[bool, list[tuple[int, float]]] = {}
    sqls = {
        f.covered: _statements(
            conn,
            lambda f=f: found.__setitem__(
                f.covered, keywords.search(conn, keywords.DocCounts(), "zeppelin rollouts", 10, f)
            ),
        )
        for f in (covered, uncovered)
    }
    assert any(f"INDEXED BY {VIEW_INDEX}" in s for s in sqls[True])
    assert not any(VIEW_INDEX in s for s in sqls[False])
    assert len(found[True]) == 2  # relay's memory is not seen from harbor
    assert found[True] == found[False]

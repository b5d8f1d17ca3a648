"""The keyword indexes merged into one segment each in quiet spells (issue 30): a store
written a memory at a time holds its FTS5 index in several segments, and a search reads
every word's entries from each of them. Merged, the same search finds the same entries
with the same scores, for less; a merge waits for the writes to go quiet."""

from __future__ import annotations

import time
from typing import Any

from conftest import DaemonProc, an_entry, raw_db, wait_for
from enyal_daemon.index import keywords
from enyal_daemon.service.memory import memories
from enyal_daemon.service.upkeep import text_merge
from enyal_daemon.service.upkeep.text_merge import TextMerge
from enyal_daemon.store import text_segments
from enyal_protocol import wire as p

SERVICES = ["billing", "search", "gateway", "ledger", "mailer", "reports", "auth", "queue"]
PLACES = ["staging", "production", "the laptop", "CI"]
TEXTS = [
    f"The {s} service runs on port {8000 + i} in {PLACES[i % 4]} and logs to Loki"
    for i, s in enumerate(SERVICES * 5)
]  # 40 memories, each its own transaction: several segments
QUESTIONS = ["which port does billing run on", "where do services log", "gateway in staging"]


def add(memory: Any, content: str) -> None:
    memories.remember(memory, p.RememberParams(content=content, scope="global"))


def searched(memory: Any) -> list[list[tuple[int, float]]]:
    conn = memory.reader()
    return [keywords.search(conn, memory.doc_counts, q, 50) for q in QUESTIONS]


def test_a_split_index_is_merged_into_one_segment_and_searches_the_same(memory: Any) -> None:
    for text in TEXTS:
        add(memory, text)
    conn = memory.reader()
    assert len(text_segments.segments(conn, "context_fts")) > 1
    assert text_segments.split(conn, "context_fts")
    before = searched(memory)
    version = (memory.store_version.value, memory.store_version.used)
    time.sleep(text_merge.QUIET_SECONDS)
    merge = TextMerge(memory)
    steps = 0
    while (wait := merge.step()) is not None:
        assert wait == text_merge.STEP_PAUSE
        steps += 1
    assert len(text_segments.segments(conn, "context_fts")) == 1
    assert searched(memory) == before  # the same entries, the same scores
    # Nothing a remembered result reads moved: remembered keyword results still hold.
    assert (memory.store_version.value, memory.store_version.used) == version
    assert merge.step() is None  # nothing written since: not looked at again
    assert (
        conn.execute(
            "INSERT INTO context_fts(context_fts, rank) VALUES ('integrity-check', 1)"
        ).fetchall()
        == []
    )


def test_no_merge_while_writes_come(memory: Any) -> None:
    for text in TEXTS:
        add(memory, text)
    wait = TextMerge(memory).step()
    assert wait is not None and 0 < wait <= text_merge.QUIET_SECONDS
    assert text_segments.split(memory.reader(), "context_fts")


def test_the_daemon_merges_what_its_writes_split(daemon: DaemonProc) -> None:
    for text in TEXTS:
        daemon.call("remember", {"content": text, "scope": "global"})
    conn = raw_db(daemon.paths.db)
    try:
        wait_for(
            lambda: not text_segments.split(conn, "context_fts"),
            timeout=30,
            what="the daemon to merge its keyword index",
        )
        assert len(text_segments.segments(conn, "context_fts")) == 1
    finally:
        conn.close()


def test_a_bulk_load_leaves_its_keyword_index_merged(tmp_path: Any, embedder: Any) -> None:
    """tools/bulk.py commits a batch at a time (a segment each); it merges them as the
    daemon would once writes go quiet, so a daemon started on the store (the bench's)
    does not spend its first seconds merging. Real vectors: the texts' own."""
    from enyal_daemon.tools import bulk

    vecs = embedder.embed_many(TEXTS)
    items = [(an_entry(text, id=f"e{i}"), vecs[i]) for i, text in enumerate(TEXTS)]
    db_path = tmp_path / "enyal.db"
    assert bulk.load(db_path, items, embedder.files, batch=5) == len(TEXTS)
    conn = raw_db(db_path)
    try:
        for table in text_segments.TEXT_INDEXES:
            assert len(text_segments.segments(conn, table)) <= 1
        hits = conn.execute(
            "SELECT count(*) FROM context_fts WHERE context_fts MATCH 'billing'"
        ).fetchone()
        assert hits == (5,)
    finally:
        conn.close()

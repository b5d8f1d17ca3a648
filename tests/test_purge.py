"""Deleted for good leaves nothing (issue 24.3): once a hard forget, an expiry or a
`scan --fix` redaction is acknowledged, no byte of the old text is left in the
database file, its WAL or its shared-memory file, while the daemon still runs.

Each test first checks that the marker is on disk before the deletion (the control:
the same check finds it, so it can fail), then greps the raw files right after the
reply. The text index keeps words lowercased, so the files are searched lowercased."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from conftest import DaemonProc, start_daemon, wait_for
from daemon_support import RunningDaemon

FILES = ("enyal.db", "enyal.db-wal", "enyal.db-shm")


def marker() -> str:
    """A word no text holds, that the FTS tokenizer keeps whole (no stemmable ending)."""
    return "qzvmark" + uuid.uuid4().hex[:12] + "x7"


def holding(db: Path, text: str) -> list[str]:
    """The store's files whose raw bytes hold `text` (case aside)."""
    needle = text.lower().encode()
    out = []
    for name in FILES:
        path = db.with_name(name)
        if path.exists() and needle in path.read_bytes().lower():
            out.append(name)
    return out


def remember_marked(call: DaemonProc | RunningDaemon, word: str, **extra: object) -> str:
    """A memory holding `word`, updated once so its history holds it twice, and recalled
    by it so the analytics log holds it in a query (the event of the entry, which goes
    with it)."""
    params = {"content": f"The staging password hint is {word} for now.", "scope": "global"}
    entry = call.call("remember", {**params, **extra})["id"]
    call.call("update", {"id": entry, "content": f"The staging hint is {word}, said twice."})
    call.call("recall", {"query": f"staging hint {word}", "min_relevance": 0.0})

    def logged() -> bool:  # the recall's event, with its query, is in the table
        events = call.call("analytics", {"entry_id": entry})["events"]
        return any(word in (e["query"] or "") for e in events)

    wait_for(logged, what="the recall's event to be written")
    return str(entry)


def test_a_hard_forget_leaves_no_byte_of_the_text(d: RunningDaemon) -> None:
    word = marker()
    entry = remember_marked(d, word)
    db = d.paths.db
    assert holding(db, word), "the control: the text is on disk before the delete"
    assert d.call("forget", {"id": entry, "hard": True})["action"] == "deleted"
    assert holding(db, word) == []


def test_an_expiry_leaves_no_byte_of_the_text(clocked_d: RunningDaemon) -> None:
    d = clocked_d
    word = marker()
    remember_marked(d, word, ttl="1h")
    db = d.paths.db
    assert holding(db, word)
    assert d.call("list", {})["entries"] != []
    d.clock.advance(3601)  # past the hour, without waiting for it
    assert d.call("list", {})["entries"] == []  # the sweep ran before this reply
    assert holding(db, word) == []


def test_a_redaction_by_scan_fix_leaves_no_byte_of_the_secret(home: Path) -> None:
    word = marker()
    secret = f"password={word}"
    d = start_daemon({**os.environ, "ENYAL_REDACT_SECRETS": "false"})
    try:
        remember_marked(d, secret)
        db = d.paths.db
        assert holding(db, word)
    finally:
        stop(d)
    d = start_daemon()
    try:
        assert d.call("scan", {"fix": True})["fixed"] == 1
        assert holding(db, word) == []
    finally:
        stop(d)


def stop(d: DaemonProc) -> None:
    d.stop()
    if d.proc.stderr:
        d.proc.stderr.close()


def test_scan_fix_purges_what_a_store_made_before_kept_of_deleted_text(home: Path) -> None:
    """A store made before m012 kept deleted text in free pages and FTS segments;
    `scan --fix` purges it even when no secret is found."""
    from conftest import old_store

    word = marker()
    db = home / "enyal.db"
    conn = old_store(db, 11)
    conn.execute("PRAGMA journal_mode=WAL")
    with conn:
        conn.execute(
            "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
            "created_at, updated_at) VALUES ('gone', ?, 'h', 'fact', 'global', "
            "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            (f"The staging hint was {word} once.",),
        )
    with conn:
        conn.execute("DELETE FROM context_entries WHERE id = 'gone'")  # as forget --hard did
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert holding(db, word), "the control: the old store kept the deleted text"
    d = start_daemon()
    try:
        assert d.call("scan", {"fix": True})["affected"] == 0
        assert holding(db, word) == []
    finally:
        stop(d)

"""Stale sources (issue 11), through the real daemon: a memory that cites a file records
the file as it was; recall, get, list and review say when it changed or is gone;
confirm and update record it again; relative refs are stored absolute."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from conftest import DaemonProc, run_cli


def cite(d: DaemonProc, root: Path, ref: str, content: str, **extra: Any) -> dict[str, Any]:
    params = {"content": content, "source_type": "file", "source_ref": ref, "cwd": str(root)}
    r = d.call("remember", {**params, **extra})
    assert r["action"] == "created"
    entry: dict[str, Any] = r["entry"]
    return entry


def flags(d: DaemonProc, entry_id: str) -> set[str]:
    """The staleness fields the daemon sent for one entry, by get, recall and list, which
    must agree."""
    got = d.call("get", {"id": entry_id})
    hits = d.call("recall", {"query": got["content"], "min_confidence": 0})["results"]
    (hit,) = [h for h in hits if h["id"] == entry_id]
    (listed,) = [e for e in d.call("list", {})["entries"] if e["id"] == entry_id]
    seen = [{k for k in ("source_changed", "source_missing") if k in x} for x in (got, hit, listed)]
    assert seen[0] == seen[1] == seen[2], seen
    for x in (got, hit, listed):
        assert all(x[k] is True for k in seen[0]), "sent only when true"
    return seen[0]


def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "src" / "db.py").write_text("POOL_SIZE = 8\n")
    return root


def test_a_relative_ref_is_stored_absolute_with_its_line(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = project(tmp_path)
    e = cite(daemon, root, "src/db.py:1", "The database pool holds 8 connections.")
    assert e["source_ref"] == f"{root}/src/db.py:1"
    assert flags(daemon, e["id"]) == set()
    # Not a file: left as sent, and not checked.
    c = daemon.call(
        "remember",
        {
            "content": "Pool size was chosen in abc123.",
            "source_type": "commit",
            "source_ref": "abc123",
            "cwd": str(root),
        },
    )
    assert c["entry"]["source_ref"] == "abc123"
    assert flags(daemon, c["id"]) == set()


def test_an_edit_marks_it_changed_and_confirm_makes_it_fresh(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = project(tmp_path)
    e = cite(daemon, root, "src/db.py", "The database pool holds 8 connections.")
    f = root / "src" / "db.py"
    f.write_text("POOL_SIZE = 9\n")  # the same size: only the hash can tell
    assert flags(daemon, e["id"]) == {"source_changed"}
    confirmed = daemon.call("confirm", {"id": e["id"]})
    assert "source_changed" not in confirmed
    assert flags(daemon, e["id"]) == set()
    f.write_text("POOL_SIZE = 16  # more\n")
    assert flags(daemon, e["id"]) == {"source_changed"}
    daemon.call("update", {"id": e["id"], "content": "The database pool holds 16 connections."})
    assert flags(daemon, e["id"]) == set(), "an update records the file as it is"


def test_a_touched_but_unchanged_file_is_not_stale(daemon: DaemonProc, tmp_path: Path) -> None:
    root = project(tmp_path)
    e = cite(daemon, root, "src/db.py", "The database pool holds 8 connections.")
    f = root / "src" / "db.py"
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    f.write_bytes(f.read_bytes())  # rewritten, same bytes
    assert f.stat().st_mtime_ns != st.st_mtime_ns
    assert flags(daemon, e["id"]) == set()


def test_a_deleted_file_is_missing_and_review_lists_why(daemon: DaemonProc, tmp_path: Path) -> None:
    root = project(tmp_path)
    gone = cite(daemon, root, "src/db.py", "The database pool holds 8 connections.")
    notes = root / "NOTES.md"
    notes.write_text("# Deploys\nFridays.\n")
    changed = daemon.call(
        "remember",
        {
            "content": "Deploys go out on Fridays.",
            "scope": "file",
            "scope_path": "NOTES.md",
            "cwd": str(root),
        },
    )["entry"]
    fresh = cite(daemon, root, "NOTES.md#deploys", "Deploy notes live in NOTES.md.")
    (root / "src" / "db.py").unlink()
    notes.write_text("# Deploys\nThursdays.\n")
    assert flags(daemon, gone["id"]) == {"source_missing"}
    assert flags(daemon, changed["id"]) == {"source_changed"}, "file scope cites its file"
    # fresh cites the same file: it was recorded before the edit, so it changed too.
    assert flags(daemon, fresh["id"]) == {"source_changed"}
    daemon.call("confirm", {"id": fresh["id"]})

    r = daemon.call("review", {"kind": "stale"})
    assert r["stale_reasons"] == {
        gone["id"]: ["source_missing"],
        changed["id"]: ["source_changed"],
    }
    assert [e["id"] for e in r["stale"]] == [gone["id"], changed["id"]]
    assert r["stale"][0]["source_missing"] is True
    # The old meaning stays: nothing here is old enough to be stale by date.
    assert all(reasons != ["not_updated"] for reasons in r["stale_reasons"].values())
    # A memory that cites no file is never stale by source.
    plain = daemon.call("remember", {"content": "Plain fact.", "scope": "global"})
    assert "source_changed" not in daemon.call("get", {"id": plain["id"]})

    cli = run_cli("review", "--kind", "stale")
    assert cli.code == 0, cli.err
    assert "source missing" in cli.out and "source changed" in cli.out


def test_not_updated_entries_keep_their_reason(daemon: DaemonProc, tmp_path: Path) -> None:
    old = daemon.call(
        "import",
        {"lines": ['{"content": "Old news.", "updated_at": "2020-01-01T00:00:00Z"}']},
    )["lines"][0]["id"]
    r = daemon.call("review", {"kind": "stale"})
    assert [e["id"] for e in r["stale"]] == [old]
    assert r["stale_reasons"] == {old: ["not_updated"]}


def test_the_cli_marks_stale_results(daemon: DaemonProc, tmp_path: Path) -> None:
    root = project(tmp_path)
    r = run_cli(
        "remember",
        "The database pool holds 8 connections.",
        "--source-type",
        "file",
        "--source-ref",
        "src/db.py",
        "--json",
        cwd=root,
    )
    assert r.code == 0, r.err
    entry = r.json()["entry"]
    assert entry["source_ref"] == str(root / "src" / "db.py")
    (root / "src" / "db.py").write_text("POOL_SIZE = 32\n")
    recall = run_cli("recall", "database pool connections", cwd=root)
    assert "source changed since written" in recall.out, recall.out
    get = run_cli("get", entry["id"])
    assert "source changed since written" in get.out
    listed = run_cli("list")
    assert "(source changed)" in listed.out


def test_a_relative_file_ref_without_cwd_is_kept_as_sent(daemon: DaemonProc) -> None:
    # A client that sends no cwd (a raw JSON-RPC one) stored such refs before they were
    # checked: it still can; the entry is just not tracked.
    r = daemon.call(
        "remember",
        {"content": "x", "scope": "global", "source_type": "file", "source_ref": "a.py:3"},
    )
    assert r["entry"]["source_ref"] == "a.py:3"
    assert flags(daemon, r["id"]) == set()

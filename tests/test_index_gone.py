"""A path given to `index` that is gone (issue 24 item 10): its chunks are forgotten and
the rest is indexed, instead of the whole run refused; `index --forget PATH` stops
watching a path and forgets its chunks (restorable). Real daemon, real CLI."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from conftest import DaemonProc, run_cli, start_daemon, wait_for
from daemon_support import StderrDrain, open_db

CLAUDE = "# Notes\n\nRead this first.\n\n## Testing\n\nRun pytest -q.\n\n## Style\n\nUse ruff.\n"
GUIDE = "# Guide\n\nDocs are plain English.\n"


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "CLAUDE.md").write_text(CLAUDE)
    (root / "docs" / "guide.md").write_text(GUIDE)
    return root


def active_files(d: DaemonProc) -> dict[str, int]:
    """Indexed file -> its active chunks."""
    out: dict[str, int] = {}
    for e in d.call("list", {"limit": 1000})["entries"]:
        if e.get("read_only"):
            out[e["indexed_from"]] = out.get(e["indexed_from"], 0) + 1
    return out


def watched(d: DaemonProc) -> set[str]:
    conn = open_db(d.paths.db)
    try:
        return {str(r[0]) for r in conn.execute("SELECT path FROM context_index_roots")}
    finally:
        conn.close()


def forgotten_mirrors(d: DaemonProc) -> list[dict[str, Any]]:
    found = d.call("export", {"limit": 1000})["entries"]
    return [e for e in found if e["is_deprecated"] and e["written_by"] == "file"]


def test_a_named_file_that_is_gone_loses_its_chunks_and_the_rest_is_indexed(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = repo(tmp_path)
    first = run_cli("index", "CLAUDE.md", "docs", cwd=root)
    assert first.code == 0, first.err
    claude, guide = str(root / "CLAUDE.md"), str(root / "docs" / "guide.md")
    assert active_files(daemon) == {claude: 3, guide: 1}

    moved = tmp_path / "CLAUDE.md.away"
    os.rename(root / "CLAUDE.md", moved)
    (root / "docs" / "guide.md").write_text(GUIDE + "\n## Tone\n\nShort sentences.\n")
    again = run_cli("index", "CLAUDE.md", "docs", cwd=root)
    assert again.code == 0, again.err
    assert f"gone: {claude}, 3 chunks forgotten" in again.out
    assert active_files(daemon) == {guide: 2}, "the rest is indexed"
    r = daemon.call("index", {"paths": ["CLAUDE.md", "docs"], "cwd": str(root)})
    assert r["gone"] == [{"path": claude, "chunks_forgotten": 0}]  # already forgotten
    assert len(forgotten_mirrors(daemon)) == 3

    # The file comes back as it was (same mtime): its chunks are active again.
    os.rename(moved, root / "CLAUDE.md")
    back = daemon.call("index", {"paths": [claude]})
    assert back["gone"] == [] and back["chunks_updated"] == 3, back
    assert active_files(daemon) == {claude: 3, guide: 2}

    # A folder given that is gone: the same.
    for f in (root / "docs").iterdir():
        f.unlink()
    (root / "docs").rmdir()
    gone = daemon.call("index", {"paths": [str(root / "docs"), claude]})
    assert gone["gone"] == [{"path": str(root / "docs"), "chunks_forgotten": 2}]
    assert active_files(daemon) == {claude: 3}

    # A path never indexed that does not exist is still a mistake: nothing is done.
    bad = run_cli("index", "CLAUDE.md", "typo.md", cwd=root)
    assert bad.code == 2 and "no such file or folder" in bad.err and "typo.md" in bad.err


def test_index_forget_stops_watching_a_path_and_forgets_its_chunks(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = repo(tmp_path)
    daemon.call("index", {"paths": [str(root / "CLAUDE.md"), str(root / "docs")]})
    docs, claude = str(root / "docs"), str(root / "CLAUDE.md")
    assert watched(daemon) == {docs, claude}

    out = run_cli("index", "--forget", "docs", cwd=root)
    assert out.code == 0, out.err
    assert f"forgot {docs}: 1 chunks forgotten, no longer watched" in out.out
    assert watched(daemon) == {claude}
    assert active_files(daemon) == {claude: 3}
    (chunk,) = forgotten_mirrors(daemon)
    history = daemon.call("history", {"id": chunk["id"]})["versions"]
    assert max(history, key=lambda v: v["version"])["change_type"] == "forgotten"
    # Restorable like any forget.
    daemon.call("restore", {"id": chunk["id"]})
    assert active_files(daemon) == {claude: 3, str(root / "docs" / "guide.md"): 1}

    # A file inside a watched folder cannot be forgotten alone (the folder would bring it
    # back): refused, nothing changed. Nor can a path never indexed.
    daemon.call("index", {"paths": [docs]})
    before = (watched(daemon), active_files(daemon))
    inner = run_cli("index", "--forget", "docs/guide.md", cwd=root)
    assert inner.code == 2 and f"inside the indexed folder {docs}" in inner.err, inner.err
    never = run_cli("index", "--forget", str(tmp_path / "elsewhere"), cwd=root)
    assert never.code == 2 and "not indexed" in never.err, never.err
    assert (watched(daemon), active_files(daemon)) == before

    # A path already deleted can be forgotten too, and indexing it again brings it back.
    r = daemon.call("index", {"paths": [claude], "forget": True})
    assert r["gone"] == [{"path": claude, "chunks_forgotten": 3}]
    assert watched(daemon) == {docs}
    again = daemon.call("index", {"paths": [claude]})
    assert again["chunks_updated"] == 3 and active_files(daemon)[claude] == 3


def test_the_watcher_leaves_a_forgotten_path_alone(home: Path, tmp_path: Path) -> None:
    root = repo(tmp_path)
    env = {**os.environ, "ENYAL_INDEX_WATCH": "true", "ENYAL_INDEX_DEBOUNCE": "0.2"}
    d = start_daemon(env)
    log = StderrDrain(d)
    try:
        claude, docs = str(root / "CLAUDE.md"), str(root / "docs")
        d.call("index", {"paths": [claude, docs]})
        # Indexed after the others, so the watcher takes it last in a run (roots go in the
        # order they were given): once its change is in, the run has passed docs.
        last = root / "zz.md"
        last.write_text("# Last\n\nIndexed last.\n")
        d.call("index", {"paths": [str(last)]})
        d.call("index", {"paths": [docs], "forget": True})
        (root / "docs" / "guide.md").write_text(GUIDE + "\n## Tone\n\nShort sentences.\n")
        last.write_text("# Last\n\nIndexed last, and changed.\n")
        wait_for(
            lambda: any(
                "and changed" in e["content"]
                for e in d.call("list", {"limit": 1000})["entries"]
                if e.get("read_only")
            ),
            timeout=60,
            what="the watcher's re-index",
        )
        assert active_files(d) == {claude: 3, str(last): 1}
    finally:
        code = d.stop()
        text = log.join()
        if d.proc.stderr:
            d.proc.stderr.close()
    assert code == 0, text

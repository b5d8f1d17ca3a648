"""`index` (issue 11): Markdown files mirrored as read-only memories, a chunk per section,
incrementally, through the real daemon; and the chunker with the model's own tokenizer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conftest import DaemonProc, run_cli, start_daemon, wait_for
from daemon_support import StderrDrain, open_db
from enyal_client.transport import RpcError
from enyal_daemon.service.files import chunks

CLAUDE = """# Project notes

Read this first.

## Testing

Run the suite with `pytest -q`; the fixtures live in tests/conftest.py.

## Style

Format with ruff. Lines are at most 100 characters.

## Deploys

Deploys go out on Thursdays after the release review.
"""

GUIDE = """---
description: how to write docs
---
# Guide

Docs are written in plain English.

```sh
# not a heading: inside a fence
make docs
```
"""


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(CLAUDE)
    (root / "docs" / "guide.mdc").write_text(GUIDE)
    (root / "docs" / "notes.txt").write_text("not Markdown")
    (root / "node_modules" / "pkg" / "README.md").write_text("# vendored\n\nnot ours\n")
    return root


def counts(r: dict[str, Any]) -> tuple[int, ...]:
    return (
        r["files_seen"],
        r["files_skipped"],
        r["chunks_added"],
        r["chunks_updated"],
        r["chunks_unchanged"],
        r["chunks_forgotten"],
    )


def mirrors(d: DaemonProc) -> dict[str, dict[str, Any]]:
    """Active mirrors by source_ref."""
    found = d.call("list", {"limit": 1000})["entries"]
    return {e["source_ref"]: e for e in found if e.get("read_only")}


def state(d: DaemonProc) -> list[Any]:
    """Everything an index run could write: entries with their history, and the sources."""
    entries = d.call("export", {"versions": True})["entries"]
    conn = open_db(d.paths.db)
    try:
        rows = list(conn.execute("SELECT * FROM context_sources ORDER BY rid"))
    finally:
        conn.close()
    return [
        [{k: v for k, v in e.items() if k not in ("accessed_at", "access_count")} for e in entries],
        rows,
    ]


def test_index_mirrors_sections_and_reindexes_only_what_changed(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = tree(tmp_path)
    first = daemon.call("index", {"paths": [str(root)]})
    # CLAUDE.md: the title's text, Testing, Style, Deploys; guide.mdc: front matter, Guide.
    assert counts(first) == (2, 0, 6, 0, 0, 0), first
    claude = str(root / "CLAUDE.md")
    m = mirrors(daemon)
    assert set(m) == {
        f"{claude}#project-notes",
        f"{claude}#testing",
        f"{claude}#style",
        f"{claude}#deploys",
        str(root / "docs" / "guide.mdc"),
        f"{root / 'docs' / 'guide.mdc'}#guide",
    }
    testing = m[f"{claude}#testing"]
    assert testing["content"].startswith("## Testing\n\nRun the suite")
    assert (testing["scope_level"], testing["scope_path"]) == ("project", str(root))
    assert testing["source_type"] == "file" and testing["written_by"] == "file"
    assert testing["metadata"] == {
        "indexed_from": claude,
        "heading": "Testing",
        "headings": ["Project notes", "Testing"],
    }
    assert testing["indexed_from"] == claude and testing["read_only"] is True
    assert "not a heading" in m[f"{root / 'docs' / 'guide.mdc'}#guide"]["content"]

    before = state(daemon)
    again = daemon.call("index", {"paths": [str(root)]})
    assert counts(again) == (2, 2, 0, 0, 0, 0)
    f = root / "CLAUDE.md"
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))  # touched, not changed
    assert counts(daemon.call("index", {"paths": [str(root)]})) == (2, 2, 0, 0, 0, 0)
    assert state(daemon) == before, "an unchanged tree writes nothing"

    f.write_text(CLAUDE.replace("at most 100 characters", "at most 120 characters"))
    edited = daemon.call("index", {"paths": [str(root)]})
    assert counts(edited) == (2, 1, 0, 1, 3, 0)
    style = mirrors(daemon)[f"{claude}#style"]
    assert "120 characters" in style["content"] and style["id"] == m[f"{claude}#style"]["id"]
    assert [v["change_type"] for v in daemon.call("history", {"id": style["id"]})["versions"]] == [
        "updated",
        "created",
    ]

    f.write_text(CLAUDE.split("## Deploys")[0].replace("100", "120"))
    cut = daemon.call("index", {"paths": [str(root)]})
    assert counts(cut) == (2, 1, 0, 0, 3, 1)
    assert f"{claude}#deploys" not in mirrors(daemon)
    gone = daemon.call("get", {"id": m[f"{claude}#deploys"]["id"]})
    assert gone["is_deprecated"] is True

    # The section comes back: its forgotten mirror with it.
    f.write_text(CLAUDE.replace("100", "120"))
    back = daemon.call("index", {"paths": [str(root)]})
    assert counts(back) == (2, 1, 0, 1, 3, 0)
    assert mirrors(daemon)[f"{claude}#deploys"]["id"] == m[f"{claude}#deploys"]["id"]

    # A file that vanished from an indexed folder loses its chunks.
    (root / "docs" / "guide.mdc").unlink()
    vanished = daemon.call("index", {"paths": [str(root)]})
    assert counts(vanished) == (1, 1, 0, 0, 0, 2)
    assert not any("guide.mdc" in ref for ref in mirrors(daemon))


def test_recall_finds_a_chunk_with_its_file_and_heading(daemon: DaemonProc, tmp_path: Path) -> None:
    root = tree(tmp_path)
    daemon.call("index", {"paths": ["CLAUDE.md"], "cwd": str(root)})
    hits = daemon.call("recall", {"query": "which day do deploys go out?", "limit": 1})["results"]
    (hit,) = hits
    assert hit["source_ref"] == f"{root / 'CLAUDE.md'}#deploys"
    assert hit["metadata"]["heading"] == "Deploys"
    assert hit["read_only"] is True and "source_changed" not in hit
    (root / "CLAUDE.md").write_text(CLAUDE + "\nMore.\n")
    again = daemon.call("recall", {"query": "which day do deploys go out?", "limit": 1})
    assert again["results"][0]["source_changed"] is True, "stale until indexed again"


def test_update_of_a_mirror_is_refused(daemon: DaemonProc, tmp_path: Path) -> None:
    root = tree(tmp_path)
    daemon.call("index", {"paths": [str(root / "CLAUDE.md")]})
    target = mirrors(daemon)[f"{root / 'CLAUDE.md'}#style"]
    with pytest.raises(RpcError) as exc:
        daemon.call("update", {"id": target["id"], "content": "Format with black."})
    assert exc.value.code == -32005
    assert "edit the file" in exc.value.message and str(root / "CLAUDE.md") in exc.value.message
    assert daemon.call("get", {"id": target["id"]})["content"] == target["content"]
    cli = run_cli("update", target["id"], "--importance", "5")
    assert cli.code == 1 and "edit the file" in cli.err
    shown = run_cli("get", target["id"])
    assert "read-only: mirrors" in shown.out
    # Nor may an old version be brought back: only the file says what a mirror holds.
    with pytest.raises(RpcError) as exc:
        daemon.call("restore", {"id": target["id"], "version": 1})
    assert exc.value.code == -32005 and "edit the file" in exc.value.message
    assert len(daemon.call("history", {"id": target["id"]})["versions"]) == 1


def test_missing_paths_are_refused_and_nothing_is_indexed(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    root = tree(tmp_path)
    with pytest.raises(RpcError) as exc:
        daemon.call("index", {"paths": [str(root), str(root / "nope")]})
    assert exc.value.code == -32002 and "nope" in exc.value.message
    assert daemon.call("list", {})["entries"] == []
    cli = run_cli("index", "nope", cwd=root)
    assert cli.code == 2 and "no such file or folder" in cli.err


def test_the_cli_indexes_relative_paths_with_globs(daemon: DaemonProc, tmp_path: Path) -> None:
    root = tree(tmp_path)
    r = run_cli("index", "docs", "--glob", "*.txt", cwd=root)
    assert r.code == 0, r.err
    assert "files: 1 seen, 0 unchanged; chunks: 1 added" in r.out
    (entry,) = mirrors(daemon).values()
    assert entry["content"] == "not Markdown"
    assert entry["indexed_from"] == str(root / "docs" / "notes.txt")


def test_long_sections_are_cut_to_the_window_on_paragraphs(embedder: Any) -> None:
    paragraphs = [f"Paragraph {i} says" + " something useful" * 40 for i in range(8)]
    text = "# Big\n\n" + "\n\n".join(paragraphs) + "\n\n## Small\n\nShort."
    found = chunks.split(text, embedder.window_tokens)
    parts = len(found) - 1
    assert parts >= 3
    assert [c.key for c in found] == ["big", *(f"big~{n}" for n in range(2, parts + 1)), "small"]
    for c in found:
        assert embedder.window_tokens(c.text) <= chunks.WINDOW
        assert c.text.startswith("# Big\n\n") or c.key == "small"
    body = "\n\n".join(c.text.removeprefix("# Big\n\n") for c in found if c.key != "small")
    assert body == "\n\n".join(paragraphs), "cut between paragraphs, nothing lost"
    # One paragraph longer than the window is cut on words.
    huge = chunks.split("# H\n\n" + "word " * 1000, embedder.window_tokens)
    assert len(huge) > 1 and all(embedder.window_tokens(c.text) <= chunks.WINDOW for c in huge)


def test_repeated_headings_get_github_anchors() -> None:
    text = "# A\none\n# A\ntwo\n## Hello, World!\nthree\n#\nfour\n"
    found = chunks.split(text, lambda t: len(t.split()) + 2)
    assert [c.key for c in found] == ["a", "a-1", "hello-world", "section"]
    assert found[2].headings == ("A", "Hello, World!")


def test_consolidate_leaves_mirrors_alone(daemon: DaemonProc, tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "AGENTS.md").write_text(CLAUDE)  # the same sections twice, as repos often have
    r = daemon.call("index", {"paths": [str(root / "CLAUDE.md"), str(root / "AGENTS.md")]})
    assert r["chunks_added"] == 8
    done = daemon.call("consolidate", {"dry_run": False})
    assert done["clusters"] == []
    assert len(mirrors(daemon)) == 8


def test_the_watcher_indexes_edits_and_stops_cleanly(home: Path, tmp_path: Path) -> None:
    root = tree(tmp_path)
    env = {**os.environ, "ENYAL_INDEX_WATCH": "true", "ENYAL_INDEX_DEBOUNCE": "0.2"}
    d = start_daemon(env)
    log = StderrDrain(d)
    try:
        d.call("index", {"paths": [str(root)]})
        claude = root / "CLAUDE.md"
        claude.write_text(CLAUDE.replace("Thursdays", "Tuesdays"))
        ref = f"{claude}#deploys"

        def deploys() -> str:
            return str(mirrors(d)[ref]["content"])

        wait_for(lambda: "Tuesdays" in deploys(), timeout=60, what="the watcher's re-index")
        (root / "docs" / "extra.md").write_text("# Extra\n\nA new file in a watched folder.\n")
        wait_for(
            lambda: f"{root / 'docs' / 'extra.md'}#extra" in mirrors(d),
            timeout=60,
            what="a new file indexed",
        )
        assert "source_changed" not in mirrors(d)[ref]
    finally:
        code = d.stop()
        text = log.join()
        if d.proc.stderr:
            d.proc.stderr.close()
    assert code == 0, text
    assert "Traceback" not in text and "stopped cleanly" in text


def test_watching_is_off_by_default_and_its_keys_are_checked(home: Path) -> None:
    from enyal_protocol import config

    cfg = config.load(environ={"ENYAL_HOME": str(home)})
    assert cfg.index_watch is False and cfg.index_debounce == 3.0
    with pytest.raises(config.ConfigError, match="ENYAL_INDEX_DEBOUNCE"):
        config.load(environ={"ENYAL_HOME": str(home), "ENYAL_INDEX_DEBOUNCE": "0"})
    with pytest.raises(config.ConfigError, match="ENYAL_INDEX_WATCH"):
        config.load(environ={"ENYAL_HOME": str(home), "ENYAL_INDEX_WATCH": "maybe"})

"""`index` stays inside what it was given (issue 25 item 2): a link out of the indexed
folder, a link to a folder, a FIFO, a /proc file are skipped and said to be, never
read; a link inside the folder to a file inside it is read once. The watcher keeps
the same rule. Real daemon, real CLI, real files."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

from conftest import DaemonProc, run_cli, start_daemon, wait_for
from daemon_support import StderrDrain

SECRET = "# Credentials\n\ndb.internal:5432:prod:admin:pgpass-hunter2-secret\n"


def mirrors(d: DaemonProc) -> dict[str, dict[str, Any]]:
    found = d.call("list", {"limit": 1000})["entries"]
    return {e["source_ref"]: e for e in found if e.get("read_only")}


def stored_text(d: DaemonProc) -> str:
    return json.dumps(d.call("export", {"limit": 1000})["entries"])


def linked_tree(tmp_path: Path) -> tuple[Path, Path]:
    """repo/docs (the folder indexed) with links out of it, a link inside it, a FIFO."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pgpass.md").write_text(SECRET)
    (outside / "more").mkdir()
    (outside / "more" / "notes.md").write_text("# Elsewhere\n\nnot under docs\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "README.md").write_text("# Readme\n\nin the repo, not in docs\n")
    docs = repo / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "real.md").write_text("# Real\n\nA note kept in docs.\n")
    (docs / "sub" / "deep.md").write_text("# Deep\n\nA note one folder down.\n")
    os.symlink("/proc/self/environ", docs / "env.md")
    os.symlink(outside / "pgpass.md", docs / "pgpass.md")
    os.symlink("../README.md", docs / "readme.md")  # in the repo, but out of docs
    os.symlink(outside / "more", docs / "more")  # a folder outside
    os.symlink("sub", docs / "again")  # a folder inside: its files are reached anyway
    os.symlink("real.md", docs / "alias.md")  # a file inside, through a link
    os.symlink("sub/deep.md", docs / "deep-link.md")
    os.symlink("nowhere.md", docs / "dangling.md")
    os.mkfifo(docs / "pipe.md")
    return repo, docs


def test_index_reads_nothing_outside_its_folder_and_says_what_it_skipped(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    repo, docs = linked_tree(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(docs / "sock.md"))
    specials = {"pipe.md": "FIFO", "sock.md": "socket"}
    if os.geteuid() == 0:  # only root makes device nodes
        os.mknod(docs / "null.md", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        specials["null.md"] = "device"
    # Through the CLI, with a timeout: a FIFO opened for reading would block forever.
    cli = run_cli("index", "docs", "--json", cwd=repo, timeout=120)
    assert cli.code == 0, cli.err
    r = cli.json()
    sock.close()
    skipped = {Path(s["path"]).name: s["reason"] for s in r["skipped"]}
    links_out = {"env.md", "pgpass.md", "readme.md", "more"}
    assert set(skipped) == links_out | {"dangling.md"} | set(specials)
    for name in links_out:
        assert "outside" in skipped[name] and str(docs) in skipped[name], skipped[name]
    for name, kind in specials.items():
        assert skipped[name] == f"not a regular file: a {kind}"
    assert "missing" in skipped["dangling.md"] or "no file" in skipped["dangling.md"]
    assert r["errors"] == []
    # real.md and deep.md once each, under their own names: the links to them add nothing.
    assert {e["indexed_from"] for e in mirrors(daemon).values()} == {
        str(docs / "real.md"),
        str(docs / "sub" / "deep.md"),
    }
    text = stored_text(daemon)
    assert "hunter2" not in text and "PATH=" not in text and "not under docs" not in text
    assert "not in docs" not in text
    hits = daemon.call("recall", {"query": "database password for prod admin", "limit": 10})
    assert all("hunter2" not in json.dumps(h) for h in hits["results"])

    text_out = run_cli("index", "docs", cwd=repo, timeout=120)
    assert text_out.code == 0, text_out.err
    assert f"skipped {docs / 'pipe.md'}: " in text_out.out
    assert f"skipped {docs / 'pgpass.md'}: " in text_out.out


def test_a_file_read_through_a_link_and_then_under_its_own_name_is_kept_once(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    _, docs = linked_tree(tmp_path)
    # Only the link matches at first: the file is read through it.
    first = daemon.call("index", {"paths": [str(docs)], "globs": ["alias.md"]})
    assert first["chunks_added"] == 1
    assert {e["indexed_from"] for e in mirrors(daemon).values()} == {str(docs / "alias.md")}
    # Then both match: the file is kept under its own name, the link's copy forgotten.
    daemon.call("index", {"paths": [str(docs)]})
    assert {e["indexed_from"] for e in mirrors(daemon).values()} == {
        str(docs / "real.md"),
        str(docs / "sub" / "deep.md"),
    }


def test_a_named_file_that_links_out_of_its_project_or_is_no_file_is_refused(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    repo, docs = linked_tree(tmp_path)
    os.symlink(tmp_path / "outside" / "pgpass.md", repo / "CLAUDE.md")
    os.symlink("docs/real.md", repo / "AGENTS.md")  # inside its project: fine
    os.symlink(tmp_path / "outside", repo / "rules")  # a folder named, leading out
    os.symlink("docs/sub", repo / "notes")  # a folder named, inside its project: fine
    r = daemon.call(
        "index",
        {
            "paths": [
                str(repo / "CLAUDE.md"),
                str(repo / "AGENTS.md"),
                str(repo / "rules"),
                str(repo / "notes"),
                str(docs / "pipe.md"),
                "/proc/self/environ",
            ]
        },
    )
    skipped = {s["path"]: s["reason"] for s in r["skipped"]}
    assert set(skipped) == {
        str(repo / "CLAUDE.md"),
        str(repo / "rules"),
        str(docs / "pipe.md"),
        "/proc/self/environ",
    }
    assert skipped[str(repo / "CLAUDE.md")] == (
        f"a link to {tmp_path / 'outside' / 'pgpass.md'}, outside {repo}"
    )
    assert "outside" in skipped[str(repo / "rules")]
    assert "FIFO" in skipped[str(docs / "pipe.md")]
    assert "not a regular file" in skipped["/proc/self/environ"]
    assert {e["indexed_from"] for e in mirrors(daemon).values()} == {
        str(repo / "AGENTS.md"),
        str(repo / "notes" / "deep.md"),
    }
    text = stored_text(daemon)
    assert "hunter2" not in text and "PATH=" not in text


def test_the_watcher_keeps_the_same_rule(home: Path, tmp_path: Path) -> None:
    _, docs = linked_tree(tmp_path)
    env = {**os.environ, "ENYAL_INDEX_WATCH": "true", "ENYAL_INDEX_DEBOUNCE": "0.2"}
    d = start_daemon(env)
    log = StderrDrain(d)
    try:
        d.call("index", {"paths": [str(docs)]})
        os.symlink(tmp_path / "outside" / "pgpass.md", docs / "later.md")
        (docs / "new.md").write_text("# New\n\nWritten while watched.\n")
        wait_for(lambda: f"{docs / 'new.md'}#new" in mirrors(d), timeout=60, what="the re-index")
        assert str(docs / "later.md") not in {e["indexed_from"] for e in mirrors(d).values()}
        assert "hunter2" not in stored_text(d)
    finally:
        code = d.stop()
        text = log.join()
        if d.proc.stderr:
            d.proc.stderr.close()
    assert code == 0, text
    assert "Traceback" not in text

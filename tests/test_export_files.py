"""What exports write (issue 24 item 9, issue 25 items 3 and 11): the Markdown export
holds every kind of memory, tasks and daily logs included, and says how many it wrote;
export files are 0600 and the folders Enyal makes 0700, whatever the umask; an edges
page of `export` always has `edges`. Real daemon, real CLI."""

from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest

from conftest import DaemonProc, run_cli
from enyal_client.commands import markdown
from enyal_daemon.store import backup as store_backup
from enyal_protocol import wire as p
from enyal_protocol.private import make_private_dirs


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def ok(*args: str, cwd: Path | None = None) -> str:
    r = run_cli(*args, cwd=cwd)
    assert r.code == 0, r.err
    return r.out


def test_markdown_export_holds_tasks_and_daily_logs_and_counts_what_it_wrote(
    daemon: DaemonProc, project: Path, tmp_path: Path
) -> None:
    ok("remember", "We deploy with Flux.", "--type", "decision", cwd=project)
    ok("remember", "The API is served on port 8080.", cwd=project)
    ok("task", "add", "Rotate the staging keys", "--due", "2031-05-01", cwd=project)
    done = run_cli("task", "add", "Write the release notes", "--json", cwd=project)
    ok("task", "done", done.json()["id"], cwd=project)
    ok("log", "started the payments migration", cwd=project)
    ok("log", "migration half done", cwd=project)
    doc = tmp_path / "MEMORY.md"
    out = ok("export", str(doc), "--format", "markdown")
    text = doc.read_text()

    written = len(re.findall(r"id `[0-9a-f]{8}`", text))
    said = int(re.search(r"exported (\d+) entries", out).group(1))  # type: ignore[union-attr]
    active = [
        e for e in daemon.call("export", {"limit": 1000})["entries"] if not e["is_deprecated"]
    ]
    assert said == written == len(active) == 5, (out, text)
    assert "### Tasks" in text and "### Daily logs" in text
    assert "Rotate the staging keys" in text and "due 2031-05-01" in text and "open" in text
    assert re.search(r"- \[x\] Write the release notes", text), text
    assert "started the payments migration" in text and "migration half done" in text
    # Each logged line stays a line of its own.
    assert re.search(r"\n +- \d\d:\d\d migration half done", text), text


def test_the_markdown_export_has_a_section_for_every_type() -> None:
    assert set(markdown.TYPE_TITLES) == set(p.ALL_TYPES)


def test_export_files_are_private_whatever_the_umask(
    daemon: DaemonProc, tmp_path: Path, umask_022: None
) -> None:
    ok("remember", "The staging password lives in the vault.")
    for fmt in ("jsonl", "markdown"):
        fresh = tmp_path / f"fresh.{fmt}"
        ok("export", str(fresh), "--format", fmt)
        assert mode(fresh) == 0o600, fmt
        old = tmp_path / f"old.{fmt}"
        old.write_text("left over\n")
        old.chmod(0o644)
        ok("export", str(old), "--format", fmt)
        assert mode(old) == 0o600, fmt
        assert "left over" not in old.read_text()
    # What is no regular file (a pipe, /dev/stdout) is written as it is, its mode left alone.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe, 0o644)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()
    assert run_cli("export", str(pipe)).code == 0
    reader.join(60)
    assert b"enyal_export" in got[0] and mode(pipe) == 0o644


def test_the_folders_enyal_makes_are_private(
    home: Path, tmp_path: Path, umask_022: None, autostarted: None
) -> None:
    assert not home.exists()
    ok("status")  # starts the daemon: the client makes ENYAL_HOME and logs/
    assert mode(home) == 0o700
    assert mode(home / "logs") == 0o700
    # Every folder the helper makes, parents included; one that exists is left as it is.
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    make_private_dirs(shared / "a" / "b")
    assert (mode(shared / "a"), mode(shared / "a" / "b"), mode(shared)) == (0o700, 0o700, 0o755)


def test_an_edges_page_has_edges_even_when_there_are_none(daemon: DaemonProc) -> None:
    page = daemon.call("export", {"kind": "edges"})
    assert page["edges"] == [] and page["next"] is None
    entries = daemon.call("export", {})
    assert "edges" not in entries  # an entries page has none to give


class _Watching(apsw.VFS):
    """The default VFS, noting the mode of every file SQLite opens as it opens it: the
    only way to see a temporary file that is renamed away before the call returns."""

    def __init__(self) -> None:
        self.modes: dict[str, int] = {}
        self.base = apsw.vfs_names()[0]  # the default until this one replaces it
        super().__init__("watching", self.base, makedefault=True)

    def xOpen(self, name: Any, flags: list[int]) -> apsw.VFSFile:
        f = apsw.VFSFile(self.base, name, flags)
        path = name.filename() if isinstance(name, apsw.URIFilename) else name
        if path:
            self.modes[os.path.basename(path)] = stat.S_IMODE(os.stat(path).st_mode)
        return f


def test_a_backup_is_never_readable_by_others_even_while_it_is_written(
    tmp_path: Path, umask_022: None
) -> None:
    source = apsw.Connection(str(tmp_path / "src.db"))
    source.execute("CREATE TABLE context_entries (x); INSERT INTO context_entries VALUES (1)")
    vfs = _Watching()
    try:
        store_backup.copy(source, tmp_path / "copy.db")
    finally:
        source.close()
        vfs.unregister()
    written = {n: m for n, m in vfs.modes.items() if n.startswith(".copy.db")}
    assert written, vfs.modes
    assert all(m == 0o600 for m in written.values()), written
    assert mode(tmp_path / "copy.db") == 0o600

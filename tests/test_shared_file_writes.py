"""The sharer writes a shared memory's file after the store's change commits
(service/files/shared_files.write_file), on its own thread, so under load the write may
come after a teammate's edit of that file has landed (a pull, a hand edit). That edit
is not the sharer's to overwrite: a file changed since the store last read or wrote it
is left for the next read, which takes it as a new version. The engine in this process,
so that the sharer's late write can be made to come after the edit (no timing to hope
for); the write, the read and the files are the real ones."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import msgspec

from enyal_daemon.service.files import shared_files, sharing
from enyal_daemon.service.memory import memories
from enyal_daemon.store import entries, versions
from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from test_identity import git


def _shared(
    memory: Any, tmp_path: Path, content: str, tags: list[str]
) -> tuple[mf.MemoryFile, Path, p.ShareSyncParams]:
    """A repository whose `.enyal/` holds one memory's file, read into `memory`: the file
    as written, its path, and the share_sync params that read it."""
    root = tmp_path / "repo"
    git("init", "-q", str(root))
    first = mf.MemoryFile(
        id=str(uuid.uuid4()),
        content=content,
        tags=tags,
        created="2026-02-03T04:05:06Z",
        updated="2026-02-03T04:05:06Z",
    )
    path = root / mf.FOLDER / mf.file_name(first.id)
    path.parent.mkdir()
    path.write_text(mf.render(first))
    sync = p.ShareSyncParams(path=str(root))
    assert sharing.share_sync(memory, sync).added == 1  # its change: "created"
    return first, path, sync


def test_a_file_a_teammate_changed_before_the_sharers_write_is_not_overwritten(
    memory: Any, tmp_path: Path
) -> None:
    first, path, sync = _shared(
        memory, tmp_path, "Nightly builds publish to the staging bucket", ["ci"]
    )
    entry_id = first.id  # its change: "created"
    # A teammate's edit lands before the sharer gets to the "created" change.
    edited = msgspec.structs.replace(first, tags=["ci", "nightly"])
    path.write_text(mf.render(edited))
    assert shared_files.write_file(memory, entry_id) is False  # the sharer's late write
    assert path.read_text() == mf.render(edited)
    assert sharing.share_sync(memory, sync).updated == 1
    row = entries.get(memory.reader(), entry_id)
    assert row is not None and row.entry().tags == ["ci", "nightly"]
    assert len(versions.list_for(memory.reader(), entry_id, 10)) == 2


def test_a_teammates_write_landing_between_the_sharers_check_and_its_rename_is_kept(
    memory: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """The window the test above does not reach: the sharer hashed the file, found it as
    it last wrote it, and a pull replaces it before the sharer's rename. The only way to
    land a write there every time is to make it at the end of the sharer's own hash, so
    this wraps shared_files._hash_of (the write, the rename and the read stay real)."""
    first, path, sync = _shared(memory, tmp_path, "Deploys go out on Thursdays", ["deploy"])
    entry_id = first.id
    theirs = mf.render(
        msgspec.structs.replace(
            first,
            content="Deploys go out on Tuesdays",
            updated="2099-03-01T00:00:00Z",  # later than the local edit below
        )
    )
    real_hash = shared_files._hash_of

    def hash_then_pull(at: Path) -> str | None:
        seen = real_hash(at)
        if at == path:
            path.write_text(theirs)  # the pull lands just after the sharer's check
        return seen

    monkeypatch.setattr(shared_files, "_hash_of", hash_then_pull)
    memories.update(memory, p.UpdateParams(id=entry_id, tags=["deploy", "ops"]))
    assert shared_files.write_file(memory, entry_id) is False
    monkeypatch.undo()
    assert path.read_text() == theirs, "the teammate's write was overwritten"
    # The read takes it, current: it crossed the local edit and is the later of the two
    assert sharing.share_sync(memory, sync).updated == 1
    row = entries.get(memory.reader(), entry_id)
    assert row is not None and row.content == "Deploys go out on Tuesdays"


def test_a_teammates_write_landing_between_the_sharers_check_and_its_removal_is_kept(
    memory: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """The same window for a forget: the sharer checked the file and removes it, and a
    pull's edit lands in between; the edit stays for the read (which brings the memory
    back with it, listed for review: tests/test_shared_deletion.py)."""
    first, path, _ = _shared(memory, tmp_path, "Staging is reset every Monday", [])
    entry_id = first.id
    theirs = mf.render(msgspec.structs.replace(first, content="Staging is reset every Friday"))
    real_hash = shared_files._hash_of

    def hash_then_pull(at: Path) -> str | None:
        seen = real_hash(at)
        if at == path:
            path.write_text(theirs)
        return seen

    monkeypatch.setattr(shared_files, "_hash_of", hash_then_pull)
    memories.forget(memory, p.ForgetParams(id=entry_id))
    assert shared_files.write_file(memory, entry_id) is False
    monkeypatch.undo()
    assert path.exists() and path.read_text() == theirs, "the teammate's write was removed"
    assert [x.name for x in path.parent.iterdir()] == [path.name]  # nothing left aside

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
from enyal_daemon.store import entries, versions
from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p
from test_identity import git


def test_a_file_a_teammate_changed_before_the_sharers_write_is_not_overwritten(
    memory: Any, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    git("init", "-q", str(root))
    entry_id = str(uuid.uuid4())
    first = mf.MemoryFile(
        id=entry_id,
        content="Nightly builds publish to the staging bucket",
        tags=["ci"],
        created="2026-02-03T04:05:06Z",
        updated="2026-02-03T04:05:06Z",
    )
    path = root / mf.FOLDER / mf.file_name(entry_id)
    path.parent.mkdir()
    path.write_text(mf.render(first))
    sync = p.ShareSyncParams(path=str(root))
    assert sharing.share_sync(memory, sync).added == 1  # its change: "created"
    # A teammate's edit lands before the sharer gets to the "created" change.
    edited = msgspec.structs.replace(first, tags=["ci", "nightly"])
    path.write_text(mf.render(edited))
    assert shared_files.write_file(memory, entry_id) is False  # the sharer's late write
    assert path.read_text() == mf.render(edited)
    assert sharing.share_sync(memory, sync).updated == 1
    row = entries.get(memory.reader(), entry_id)
    assert row is not None and row.entry().tags == ["ci", "nightly"]
    assert len(versions.list_for(memory.reader(), entry_id, 10)) == 2

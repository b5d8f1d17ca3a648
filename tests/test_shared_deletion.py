"""A teammate's deletion of a shared memory against a local change of it, the two made
before this store reads the folder: a conflict, as two branches' edits of one memory
are. The edit is kept (nothing acknowledged is lost), the memory is listed by `review
--kind shared` with the other side in its reason, and the person settles it either way
(`share` keeps it, `forget` takes the deletion). Before, the sharer's write of the local
change put the file back, and the teammate's deletion was undone with no trace; the
other way round, the pulled edit restored the memory the user had just forgotten.
Two edits that crossed the same way are kept as a merge conflict's two sides.

Real git (a bare repository and two clones), real files, the real engine and model.
The teammate's clone is git alone: what its daemon leaves in `.enyal/` is a file
committed, or removed and committed. This clone's engine runs in this process so that
the local change lands between the pull and the read, every time: the sharer's two
steps (writing the change's file, then reading the folder once its listing moved) are
called in the order its thread takes them when the change commits before the read."""

from __future__ import annotations

import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.service.files import shared_files, sharing
from enyal_daemon.service.memory import memories, validity
from enyal_daemon.service.upkeep import health
from enyal_daemon.store import entries
from enyal_protocol import memory_file as mf
from enyal_protocol import wire as p


def git(cwd: Path, *args: str, who: str = "Alice") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", f"user.name={who}", "-c", f"user.email={who.lower()}@example.com"]
    subprocess.run(
        ["git", *ident, "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


@dataclass
class Team:
    theirs: Path  # the teammate's clone
    ours: Path  # this store's clone
    engine: Any
    entry_id: str

    def their_file(self) -> Path:
        return self.theirs / mf.FOLDER / mf.file_name(self.entry_id)

    def our_file(self) -> Path:
        return self.ours / mf.FOLDER / mf.file_name(self.entry_id)

    def push(self, message: str) -> None:
        git(self.theirs, "add", "-A", mf.FOLDER)
        git(self.theirs, "commit", "-q", "-m", message)
        git(self.theirs, "push", "-q", "origin", "HEAD:main")

    def pull(self) -> None:
        git(self.ours, "pull", "-q", "--no-rebase", "origin", "main", who="Bob")

    def read(self) -> p.ShareSyncResult:
        return sharing.share_sync(self.engine, p.ShareSyncParams(path=str(self.ours)))

    def review(self) -> dict[str, str]:
        listed = health.review(self.engine, p.ReviewParams(kind="shared")).shared or []
        return {x.id or "": x.reason for x in listed}

    def row(self) -> Any:
        row = entries.get(self.engine.reader(), self.entry_id)
        assert row is not None
        return row


@pytest.fixture
def team(tmp_path: Path, memory: Any) -> Team:
    """A memory the teammate shared, pulled and read here."""
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    theirs, ours = tmp_path / "alice" / "app", tmp_path / "bob" / "app"
    for clone in (theirs, ours):
        git(tmp_path, "clone", "-q", str(bare), str(clone))
    entry_id = str(uuid.uuid4())
    t = Team(theirs, ours, memory, entry_id)
    t.their_file().parent.mkdir()
    t.their_file().write_text(
        mf.render(
            mf.MemoryFile(
                id=entry_id,
                content="Releases are cut from the release branch",
                tags=["release"],
                created="2026-02-03T04:05:06Z",
                updated="2026-02-03T04:05:06Z",
            )
        )
    )
    t.push("share the release memory")
    t.pull()
    assert t.read().added == 1
    assert t.review() == {}
    return t


def test_a_teammates_deletion_then_a_local_edit_keeps_the_edit_and_flags_it(team: Team) -> None:
    team.their_file().unlink()
    team.push("forget the release memory")
    team.pull()
    assert not team.our_file().exists()
    # Before the folder is read, the memory is edited here; the sharer writes its file.
    edit = "Releases are cut from main, tagged vX.Y.Z"
    memories.update(team.engine, p.UpdateParams(id=team.entry_id, content=edit))
    shared_files.write_file(team.engine, team.entry_id)
    team.read()
    # The edit is kept, current and live; its file says it, for the person to commit.
    row = team.row()
    assert (row.content, row.is_deprecated) == (edit, False)
    assert mf.parse(team.our_file().read_text(), team.our_file().name).content == edit
    # And the teammate's deletion is the other side of a conflict listed for review.
    reason = team.review().get(team.entry_id)
    assert reason is not None, "the deletion was undone without a trace"
    assert "removed in the repository" in reason and "Alice" in reason
    # Settled by keeping it: shared again, off the list; the file stays to commit.
    sharing.share(team.engine, p.ShareParams(id=team.entry_id, cwd=str(team.ours)))
    assert team.review() == {}
    assert team.our_file().exists()
    team.read()  # the file as written is read as in line: nothing comes back
    assert team.review() == {} and not team.row().is_deprecated


def test_a_conflict_of_deletion_and_edit_settled_by_forgetting_takes_the_deletion(
    team: Team,
) -> None:
    team.their_file().unlink()
    team.push("forget the release memory")
    team.pull()
    memories.update(team.engine, p.UpdateParams(id=team.entry_id, tags=["release", "ci"]))
    shared_files.write_file(team.engine, team.entry_id)
    team.read()
    assert team.entry_id in team.review()
    memories.forget(team.engine, p.ForgetParams(id=team.entry_id))
    shared_files.write_file(team.engine, team.entry_id)  # the sharer's write of the forget
    assert not team.our_file().exists()  # the teammate's deletion stands
    assert team.review() == {}  # forgetting it settled it
    team.read()
    assert team.row().is_deprecated and team.review() == {}


def test_a_local_forget_then_a_teammates_edit_keeps_the_edit_and_flags_it(team: Team) -> None:
    edit = "Releases are cut from the release branch, every second Tuesday"
    _their_edit(team, edit, "2026-02-04T04:05:06Z")
    # Before the folder is read, the memory is forgotten here; the sharer's write of the
    # forget leaves the pulled file alone (it changed since last read).
    memories.forget(team.engine, p.ForgetParams(id=team.entry_id))
    shared_files.write_file(team.engine, team.entry_id)
    assert team.our_file().exists()
    team.read()
    # The teammate's edit is kept: the memory is back with it, and the local forget is
    # the other side of a conflict listed for review.
    row = team.row()
    assert (row.content, row.is_deprecated) == (edit, False)
    reason = team.review().get(team.entry_id)
    assert reason is not None, "the local forget was undone without a trace"
    assert "forgotten here" in reason and "Alice" in reason
    # Settled by forgetting it again: the file goes, off the list.
    memories.forget(team.engine, p.ForgetParams(id=team.entry_id))
    shared_files.write_file(team.engine, team.entry_id)
    assert not team.our_file().exists()
    assert team.review() == {}
    team.read()
    assert team.row().is_deprecated and team.review() == {}


def test_a_teammates_deletion_with_no_local_change_still_forgets(team: Team) -> None:
    """No conflict without a change on each side: the deletion alone forgets the memory,
    even when the sharer is asked to write its file before the read (a change that does
    not touch its version, a reconcile)."""
    team.their_file().unlink()
    team.push("forget the release memory")
    team.pull()
    shared_files.write_file(team.engine, team.entry_id)
    assert not team.our_file().exists()
    assert team.read().forgotten == 1
    assert team.row().is_deprecated and team.review() == {}


def _their_edit(team: Team, content: str, updated: str) -> None:
    team.their_file().write_text(
        mf.render(
            mf.MemoryFile(
                id=team.entry_id,
                content=content,
                tags=["release"],
                created="2026-02-03T04:05:06Z",
                updated=updated,
            )
        )
    )
    team.push("edit the release memory")
    team.pull()


def test_a_teammates_edit_then_a_later_local_edit_keeps_both_the_local_current(
    team: Team,
) -> None:
    """Two edits that crossed without a git conflict (the pull landed, then the edit
    here, before the read): both kept in history, the later current, listed for review,
    as two branches' edits git could not merge are. Before, the pulled file's edit
    replaced the local one unflagged."""
    theirs = "Releases are cut from the release branch by the release captain"
    _their_edit(team, theirs, "2026-02-04T04:05:06Z")
    mine = "Releases are cut from the release branch after the freeze"
    memories.update(team.engine, p.UpdateParams(id=team.entry_id, content=mine))
    shared_files.write_file(team.engine, team.entry_id)  # leaves the pulled file alone
    team.read()
    assert team.row().content == mine
    history = [
        v.content for v in validity.history(team.engine, p.HistoryParams(id=team.entry_id)).versions
    ]
    assert theirs in history and mine in history
    assert "two branches" in (team.review().get(team.entry_id) or "")
    assert mf.parse(team.our_file().read_text(), team.our_file().name).content == mine


def test_a_later_teammates_edit_crossing_a_local_edit_is_current_and_flagged(
    team: Team,
) -> None:
    theirs = "Releases are cut from the release branch on Mondays"
    _their_edit(team, theirs, "2099-01-01T00:00:00Z")  # made after the edit below
    mine = "Releases are cut from the release branch on Fridays"
    memories.update(team.engine, p.UpdateParams(id=team.entry_id, content=mine))
    shared_files.write_file(team.engine, team.entry_id)
    team.read()
    assert team.row().content == theirs
    history = [
        v.content for v in validity.history(team.engine, p.HistoryParams(id=team.entry_id)).versions
    ]
    assert mine in history
    assert "two branches" in (team.review().get(team.entry_id) or "")

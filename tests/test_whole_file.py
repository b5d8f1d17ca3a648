"""enyal_protocol/whole_file.py, the one writer of a file whole or not at all (shared
by sharing's .enyal/ files, the client's settings and the claude-memory export): the
mode asked for whatever the umask, the old file replaced, and a failed write leaves the
old file and no temporary one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from enyal_protocol.whole_file import write_whole


def test_the_file_is_replaced_with_the_mode_asked_for(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    old = os.umask(0o077)  # would make a new file 0600 were the mode left to it
    try:
        write_whole(target, b"new\n", 0o644)
    finally:
        os.umask(old)
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.mkdir()  # a folder where the file goes: the rename fails
    (target / "kept").write_text("x")
    with pytest.raises(OSError):
        write_whole(target, b"{}\n", 0o600)
    assert (target / "kept").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]

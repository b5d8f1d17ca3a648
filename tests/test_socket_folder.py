"""ENYAL_SOCKET in a folder Enyal did not make: used as it is, never chmod-ed, and refused
when other users can write into it (they could put their own socket in its place)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from enyal_protocol.paths import ensure_private_dir
from service_support import env_for


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_daemon_refuses_a_socket_folder_others_can_write(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = env_for(tmp_path / "home", ENYAL_SOCKET=str(shared / "enyal.sock"))
    run = subprocess.run(
        [sys.executable, "-m", "enyal_daemon"], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1
    assert "writable by other users" in run.stderr and str(shared) in run.stderr
    assert mode(shared) == 0o777  # left as it was
    assert not (shared / "enyal.sock").exists()


def test_folders_are_tightened_only_when_enyal_made_them(tmp_path: Path) -> None:
    ours = tmp_path / "run"
    ours.mkdir(mode=0o755)
    ours.chmod(0o755)
    ensure_private_dir(ours)
    assert mode(ours) == 0o700
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o755)  # readable, not writable, by others: usable, and left alone
    ensure_private_dir(theirs, ours=False)
    assert mode(theirs) == 0o755
    theirs.chmod(0o1777)  # like /tmp
    with pytest.raises(PermissionError, match="writable by other users"):
        ensure_private_dir(theirs, ours=False)
    assert mode(theirs) == 0o1777
    fresh = tmp_path / "new" / "sock-dir"
    ensure_private_dir(fresh, ours=False)
    assert mode(fresh) == 0o700

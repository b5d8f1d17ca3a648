"""scripts/benchlib/clients.py's clean-up of the client virtualenvs it builds in a cache
dir two bench runs may share: only other virtualenvs unused for a day that no run holds
are removed (before, a build removed every other one, under a run using it)."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

from benchlib import clients  # noqa: E402


def test_a_build_removes_only_stale_virtualenvs_no_run_holds(tmp_path: Path) -> None:
    cache = tmp_path
    old = time.time() - clients.STALE_AFTER - 60
    venvs = {name: cache / f"{clients.PREFIX}{name}" for name in ("mine", "fresh", "stale", "held")}
    for venv in venvs.values():
        (venv / "bin").mkdir(parents=True)
    for name in ("stale", "held"):
        os.utime(venvs[name], (old, old))
    # Another run timing its clients from an old build holds its lock (shared) meanwhile.
    fd = os.open(cache / f"{clients.PREFIX}held.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        removed = clients.remove_stale(cache, keep=venvs["mine"])
    finally:
        os.close(fd)
    assert removed == [venvs["stale"]]
    assert sorted(p.name for p in cache.iterdir() if p.is_dir()) == [
        f"{clients.PREFIX}{n}" for n in ("fresh", "held", "mine")
    ]
    # Released, the old build is stale like any other.
    assert clients.remove_stale(cache, keep=venvs["mine"]) == [venvs["held"]]

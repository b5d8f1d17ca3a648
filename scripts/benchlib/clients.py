"""Where the client commands the benchmark times come from: a regular install, as users get it.

The suite's .venv holds Enyal editable (scripts/test), and an editable install adds an
import hook to every process start (5-15 ms of a CLI run here), a cost no user's
`pip install` has. So the sections that time a client process start (cli, hooks, cold)
run `enyal` and `enyal-mcp` from a virtualenv of its own with this tree installed the
regular way, built once per version of the sources and kept in the cache dir. When it
cannot be built (no package index), they use .venv's and the report says so.

Two bench runs may share the cache dir (two work trees, two versions): each holds a
shared lock on its virtualenv's lock file while it runs (an exclusive one while it
builds it), and a build removes only other virtualenvs that are stale (older than
STALE_AFTER) and that nobody holds. Before, a build removed every other one, under a
run timing its clients from it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import enyal_client
from benchlib.procs import BIN, HERE

REPO = HERE.parent.parent
SOURCES = ("client", "daemon", "pyproject.toml")
STALE_AFTER = 24 * 3600.0  # seconds unused before another run's build may remove one
PREFIX = "client-venv-"

# The lock files this process holds (shared) while it runs: closed only at its exit.
_held: list[int] = []


def editable() -> bool:
    """Whether this process's enyal_client is the work tree's, not a site-packages copy."""
    return Path(enyal_client.__file__).resolve().is_relative_to(REPO)


def _key() -> str:
    h = hashlib.sha256()
    for top in SOURCES:
        root = REPO / top
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(str(f.relative_to(REPO)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def client_bin(cache: Path, log: Callable[[str], None]) -> tuple[Path, str]:
    """(bin dir holding `enyal` and `enyal-mcp`, a note on which install it is)."""
    if not editable():
        return BIN, "the running virtualenv's regular install"
    venv = cache / f"{PREFIX}{_key()}"
    done = venv / "installed"  # written last: a build cut short is built again
    cache.mkdir(parents=True, exist_ok=True)
    fd = os.open(_lock_of(venv), os.O_RDWR | os.O_CREAT, 0o644)
    _held.append(fd)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a run building it now: wait for its build
    try:
        if not done.exists():
            return _build(cache, venv, log)
        os.utime(venv)  # used now: not stale for another run's build
        return venv / "bin", "a regular install of this tree (pip install ., as users get it)"
    finally:
        fcntl.flock(fd, fcntl.LOCK_SH)  # held while this run uses it


def _lock_of(venv: Path) -> Path:
    return venv.with_name(venv.name + ".lock")


def remove_stale(cache: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove the other virtualenvs unused for STALE_AFTER that no run holds (a lock
    taken without waiting); returns those removed."""
    now = time.time() if now is None else now
    removed = []
    for old in sorted(cache.glob(f"{PREFIX}*")):
        if old == keep or not old.is_dir():
            continue
        with contextlib.suppress(OSError):
            if now - old.stat().st_mtime < STALE_AFTER:
                continue
            fd = os.open(_lock_of(old), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # OSError: a run holds it
                # Its lock file stays (empty): removed, a run opening it meanwhile would
                # lock another file than a third.
                shutil.rmtree(old, ignore_errors=True)
                removed.append(old)
            finally:
                os.close(fd)
    return removed


def _build(cache: Path, venv: Path, log: Callable[[str], None]) -> tuple[Path, str]:
    """Build the virtualenv, under its lock held exclusively."""
    done = venv / "installed"
    log(f"installing this tree the regular way into {venv} (once per version)")
    for old in remove_stale(cache, venv):
        log(f"removed {old}, unused for a day")
    try:
        # Built where it stays: a virtualenv's scripts name its python by absolute path.
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run(
            [*pip, "--disable-pip-version-check", str(REPO)],
            check=True,
            capture_output=True,
            timeout=900,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(venv, ignore_errors=True)
        return BIN, f"the suite's editable install (a regular one could not be built: {exc})"
    done.touch()
    return venv / "bin", "a regular install of this tree (pip install ., as users get it)"

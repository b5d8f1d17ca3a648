"""Where the client commands the benchmark times come from: a regular install, as users get it.

The suite's .venv holds Enyal editable (scripts/test), and an editable install adds an
import hook to every process start (5-15 ms of a CLI run here), a cost no user's
`pip install` has. So the sections that time a client process start (cli, hooks, cold)
run `enyal` and `enyal-mcp` from a virtualenv of its own with this tree installed the
regular way, built once per version of the sources and kept in the cache dir. When it
cannot be built (no package index), they use .venv's and the report says so.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import enyal_client
from benchlib.procs import BIN, HERE

REPO = HERE.parent.parent
SOURCES = ("client", "daemon", "pyproject.toml")


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
    venv = cache / f"client-venv-{_key()}"
    done = venv / "installed"  # written last: a build cut short is built again
    if not done.exists():
        log(f"installing this tree the regular way into {venv} (once per version)")
        for old in cache.glob("client-venv-*"):
            shutil.rmtree(old, ignore_errors=True)
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

"""Helpers for the service tests (activation, autostart, service, doctor, model, config):
running `enyal` with an environment of one's own, finding daemon processes, waiting.

Not a test module: the tests import it by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harnesslib.daemons import home_env

BIN = Path(sys.executable).parent
ENYAL = str(BIN / "enyal")


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def env_for(home: Path, **extra: str | None) -> dict[str, str]:
    """This process's environment with ENYAL_HOME=home and the extra variables
    (None removes one)."""
    env = home_env(home)
    for k in ("ENYAL_IDLE_TIMEOUT", "ENYAL_MODEL_URL"):
        env.pop(k, None)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def enyal(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    p = subprocess.run(
        [ENYAL, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    return Run(p.returncode, p.stdout, p.stderr)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) is not a running daemon.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state != "Z"


def daemon_pids(home: Path) -> set[int]:
    """Live `python -m enyal_daemon` processes serving `home` (read from /proc)."""
    found: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        mine = b"enyal_daemon" in cmdline and f"ENYAL_HOME={home}".encode() in environ
        if mine and alive(int(proc.name)):
            found.add(int(proc.name))
    return found

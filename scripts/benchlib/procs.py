"""Processes the benchmark runs: the daemon on a private ENYAL_HOME, and RSS readings."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from enyal_client import transport
from enyal_protocol import paths as enyal_paths
from harnesslib import daemons

BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ENYAL_HOME"] = str(home)
    for var in ("ENYAL_SOCKET", "ENYAL_MODEL_DIR"):
        env.pop(var, None)
    user_blas = env.pop("ENYAL_BENCH_USER_OPENBLAS", None)  # set by scripts/bench
    if user_blas is not None:
        env.pop("OPENBLAS_NUM_THREADS", None)
        if user_blas:
            env["OPENBLAS_NUM_THREADS"] = user_blas
    pycache = env.pop("ENYAL_BENCH_PYCACHE", None)  # set by scripts/bench
    if pycache and env.pop("PYTHONDONTWRITEBYTECODE", None):
        # An installed package has its bytecode compiled; with writing it turned off every
        # CLI start would compile the client from source (~5-7 ms here). Cache it under
        # the bench's own dir, never beside the sources of a shared work tree.
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MB (1e6 bytes); nan when it is gone."""
    rss = hwm = float("nan")
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024 / 1e6
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) * 1024 / 1e6
    except OSError:
        pass
    return rss, hwm


def daemon_command() -> list[str]:
    """How the daemon is started: `python -m enyal_daemon`, or $ENYAL_BENCH_DAEMON (a
    command line, for A/B runs of a patched daemon against the same benchmark)."""
    custom = os.environ.get("ENYAL_BENCH_DAEMON")
    return shlex.split(custom) if custom else [sys.executable, "-m", "enyal_daemon"]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (nan when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_calls(pid: int) -> int:
    """How many read system calls a process has made so far (/proc's syscr: SQLite's
    pread of a page its cache did not hold is one); -1 when it is gone."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("syscr:"))
    except (OSError, StopIteration):
        return -1


@dataclass
class Daemon:
    proc: subprocess.Popen[bytes]
    home: Path
    paths: enyal_paths.Paths
    start_seconds: float

    @classmethod
    def start(cls, home: Path, timeout: float = 120.0) -> Daemon:
        env = env_for(home)
        paths = enyal_paths.resolve(env)
        paths.log_dir.mkdir(parents=True, exist_ok=True)
        log = (paths.log_dir / "bench-daemon.log").open("ab")
        t0 = time.perf_counter()
        with log:
            proc = subprocess.Popen(
                daemon_command(),
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

        def why() -> str:
            return (paths.log_dir / "bench-daemon.log").read_text(errors="replace")[-2000:]

        daemons.wait_until_answering(proc, paths, timeout, why, poll=0.01)
        return cls(proc, home, paths, time.perf_counter() - t0)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> tuple[float, float]:
        return rss_mb(self.proc.pid)

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def read_calls(self) -> int:
        return read_calls(self.proc.pid)

    def connect(self) -> transport.Connection:
        return transport.connect(self.paths, autostart=False)

    def stop(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):  # killed by then
            daemons.stop(self.proc)

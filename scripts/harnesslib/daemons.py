"""A daemon as a subprocess: started on an environment of its own, waited for until its
socket answers, and stopped; on a clock a test can move if asked (clockfile.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from enyal_client import transport
from enyal_protocol import paths as enyal_paths

CLOCKED_DAEMON = Path(__file__).resolve().parent / "clocked_daemon.py"
POLL_SECONDS = 0.02  # between looks at the socket while the daemon starts

Output = int | IO[bytes] | None  # what subprocess takes for stdout and stderr


def home_env(home: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for a daemon of its own: this home, the default socket under it."""
    env = dict(os.environ if base is None else base)
    env["ENYAL_HOME"] = str(home)
    env.pop("ENYAL_SOCKET", None)
    env.pop("ENYAL_MODEL_DIR", None)
    return env


def command(clock: Path | None = None) -> list[str]:
    """`python -m enyal_daemon`; with `clock`, the same daemon on a clock that runs that
    file's seconds ahead (clocked_daemon.py)."""
    if clock is None:
        return [sys.executable, "-m", "enyal_daemon"]
    return [sys.executable, str(CLOCKED_DAEMON), str(clock)]


def spawn(
    env: dict[str, str],
    *,
    stdout: Output = subprocess.DEVNULL,
    stderr: Output = None,
    clock: Path | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command(clock),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        preexec_fn=preexec,
    )


class DaemonExited(RuntimeError):
    """The daemon exited while starting."""


def wait_until_answering(
    proc: subprocess.Popen[bytes],
    paths: enyal_paths.Paths,
    timeout: float,
    why: Callable[[], str],
    poll: float = POLL_SECONDS,
) -> None:
    """Return once the daemon's socket answers. DaemonExited (with `why()`, what it logged)
    if it exits first; TimeoutError, after killing it, if it takes longer than `timeout`.
    `poll`: the seconds between looks (the bench, timing the start, looks more often)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock = transport.try_connect(paths.socket)
        if sock is not None:
            sock.close()
            return
        if proc.poll() is not None:
            raise DaemonExited(f"the daemon exited with {proc.returncode} while starting: {why()}")
        time.sleep(poll)
    proc.kill()
    proc.wait()
    raise TimeoutError(f"the daemon did not open {paths.socket} in {timeout:.0f} s")


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 60) -> int:
    """Signal it (if still running) and wait; past `timeout` it is killed, and
    subprocess.TimeoutExpired raised."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise

"""Another user on the same machine, for the cases where Enyal must not trust one: a
process forked from ours that drops to an unprivileged uid (nobody) and listens on a
Unix socket where a victim's client may look for its daemon, keeping what it receives.

Switching uid needs root (CI runs as root); elsewhere `other_user` raises Skip with the
reason. Used by scripts/torture (case "hostile") and by tests/test_socket_folder.py.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import select
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


class Skip(Exception):
    """This machine cannot play another user (not root, or no unprivileged account)."""


def other_user() -> tuple[int, int]:
    """(uid, gid) of an unprivileged account we can become."""
    if os.getuid() != 0:
        raise Skip("playing another user needs root (os.setuid); not root here")
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        raise Skip("no unprivileged account `nobody` on this machine") from None
    return entry.pw_uid, entry.pw_gid


@dataclass
class Impostor:
    """A listener of another uid: `path` is its socket, `received()` what was sent to it."""

    pid: int
    path: Path
    _pipe: int

    def received(self) -> bytes:
        out = b""
        while select.select([self._pipe], [], [], 0)[0]:
            chunk = os.read(self._pipe, 65536)
            if not chunk:
                break
            out += chunk
        return out


def _serve(path: Path, make_folder: bool, uid: int, gid: int, pipe: int) -> None:
    """In the child: become the other user, listen, report readiness then every byte."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if make_folder:
        path.parent.mkdir(mode=0o755)  # readable by the victim, writable by us alone
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    os.chmod(path, 0o777)  # anyone may connect: the bait
    srv.listen(16)
    os.write(pipe, b"R")
    while True:
        conn, _ = srv.accept()
        conn.settimeout(2)
        with contextlib.suppress(OSError), conn:
            while data := conn.recv(65536):
                os.write(pipe, data)
                # A forged answer, as a real impostor would send: a client must not take it.
                conn.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"forged":true}}\n')


@contextlib.contextmanager
def impostor(path: Path, *, make_folder: bool) -> Iterator[Impostor]:
    """Another user listening on `path` (making its folder first if `make_folder`)."""
    uid, gid = other_user()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.close(r)
            _serve(path, make_folder, uid, gid, w)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    try:
        ready = select.select([r], [], [], 10)[0] and os.read(r, 1) == b"R"
        if not ready:
            raise RuntimeError(f"the impostor (uid {uid}) did not start listening on {path}")
        yield Impostor(pid, path, r)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        os.close(r)


@contextlib.contextmanager
def shared_temp_dir() -> Iterator[Path]:
    """A fresh folder like /tmp (1777, every user may create in it) for TMPDIR: the
    victim's /tmp/enyal-<uid> fallback then lives where the other user can reach it."""
    import shutil
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="enyal-hostile-", dir="/tmp"))
    where.chmod(0o1777)
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)

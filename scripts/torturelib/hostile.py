"""Case 6: a hostile machine (issue 25).

Another user: a process forked from ours drops to an unprivileged uid (nobody) and
listens where a victim's client may look for its daemon, keeping what it receives:
at an ENYAL_SOCKET in its own folder, in the /tmp/enyal-<uid> fallback it made first,
and behind a socket file moved into our folder and given to us (only its credentials
tell). Nothing may reach it; the fallback case must still work, elsewhere. Switching
uid needs root (CI runs as root); elsewhere the row is skipped, saying so.

Descriptors: a daemon under a 256-descriptor limit gets 60 connections more than it
can serve. The extra ones are refused with -32003 (reason "connections"); writes on a
connection it serves go on; the log holds no traceback and few refusal lines.

ENYAL_SOCKET at a regular file or a folder: the daemon refuses to start (exit 1, one
line saying so), the client refuses to connect, and the file or folder is left as it was.

The impostor helpers are also used by tests/test_socket_folder.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import pwd
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from enyal_client import transport

from .harness import Daemon, Row, Skip, check_db, home_env, log, logged_faults

ENYAL = str(Path(sys.executable).parent / "enyal")
FD_LIMIT = 256


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


# --- the cases -----------------------------------------------------------------------------


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENYAL, *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


def _refused(row: Row, what: str, run: subprocess.CompletedProcess[str], says: str) -> None:
    row.runs += 1
    if run.returncode != 1 or says not in run.stderr:
        row.problem("errors", f"{what}: exit {run.returncode}, {run.stderr.strip()[:200]!r}")


def _nothing_reached(row: Row, what: str, them: Impostor) -> None:
    got = them.received()
    if got:
        row.problem("lost", f"{what}: the other user received {len(got)} bytes: {got[:80]!r}")


def other_users(row: Row, root: Path) -> None:
    other_user()
    memory = "The deploy key is in the vault."
    with shared_temp_dir() as shared:
        bait = shared / "theirs" / "enyal.sock"
        env = home_env(root / "home-a")
        with impostor(bait, make_folder=True) as them:
            run = _cli("remember", memory, env={**env, "ENYAL_SOCKET": str(bait)})
            _refused(row, "ENYAL_SOCKET in their folder", run, "belongs to uid")
            _nothing_reached(row, "ENYAL_SOCKET in their folder", them)
            ours = root / "ours"
            ours.mkdir(mode=0o700)
            os.rename(bait, ours / "enyal.sock")
            os.chown(ours / "enyal.sock", os.getuid(), os.getgid())
            run = _cli("recall", "deploy", env={**env, "ENYAL_SOCKET": str(ours / "enyal.sock")})
            _refused(row, "their listener on our socket file", run, "runs as uid")
            _nothing_reached(row, "their listener on our socket file", them)
        # The fallback: no XDG_RUNTIME_DIR, a home too deep for a socket path.
        deep = root / ("d" * 60) / ("e" * 60) / "home"
        env = home_env(deep)
        env.pop("XDG_RUNTIME_DIR", None)
        env.update(TMPDIR=str(shared), XDG_STATE_HOME=str(root / "state"))
        digest = hashlib.sha256(str(deep / "run").encode()).hexdigest()[:16]
        taken = shared / f"enyal-{os.getuid()}" / f"{digest}.sock"
        with impostor(taken, make_folder=True) as them:
            row.runs += 1
            try:
                run = _cli("remember", memory, env=env)
                if run.returncode != 0:
                    row.problem("errors", f"fallback taken: exit {run.returncode}, {run.stderr}")
                else:
                    row.acked += 1
                    status = json.loads(_cli("status", "--json", env=env).stdout)
                    if not status["socket"].startswith(str(root / "state")):
                        row.problem("errors", f"fallback taken: socket at {status['socket']}")
                    got = _cli("recall", "deploy key", "--json", env=env)
                    if memory not in got.stdout:
                        row.problem("lost", "fallback taken: the memory is not recalled")
                _nothing_reached(row, "fallback taken", them)
            finally:
                _cli("daemon", "stop", env=env)
        for problem in check_db(deep / "enyal.db").problems:
            row.bad_integrity(problem)
    row.note(
        "uid nobody at ENYAL_SOCKET and behind our own socket file: refused, 0 bytes sent; "
        "its /tmp/enyal-<uid> passed over for ~/.local/state/enyal/run"
    )


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def descriptors(row: Row, root: Path, extra: int = 60) -> None:
    from enyal_daemon.server.limits import reserve
    from enyal_daemon.server.logs import BURST, WINDOW_SECONDS

    cap = FD_LIMIT - reserve()
    started = time.monotonic()
    d = Daemon(home_env(root / "home-fd"), root / "daemon-fd.log", preexec=_low_fd_limit)
    d.start()
    silent: list[socket.socket] = []
    kept = d.connect()
    try:
        kept.call("remember", {"content": "Written before the crowd.", "scope": "global"})
        row.acked += 1
        crowded = time.monotonic()
        for _ in range(cap + extra):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(d.paths.socket))
            silent.append(s)
        row.runs += len(silent)
        waiting, refused = list(silent), [0]

        def take(timeout: float) -> None:
            ready, _, _ = select.select(waiting, [], [], timeout)
            for s in ready:
                waiting.remove(s)
                line = s.recv(65536).split(b"\n")[0]
                err = json.loads(line).get("error", {}) if line else {}
                if err.get("data", {}).get("reason") == "connections":
                    refused[0] += 1
                else:
                    row.problem("errors", f"a connection past the cap got {line[:160]!r}")

        # Refusals come at once; the served ones are closed after HANDSHAKE_SECONDS (10 s),
        # so reading stops well before that, once the refusals expected are in.
        while refused[0] < extra + 1 and time.monotonic() - crowded < 7:
            take(0.2)
        take(0.5)  # a refusal too many would show by now
        if refused[0] != extra + 1:  # `kept` holds one of the cap's slots
            row.problem("errors", f"{refused[0]} connections refused, not {extra + 1}")
        for i in range(20):
            try:
                kept.call("remember", {"content": f"Written in the crowd, #{i}", "scope": "global"})
                row.acked += 1
            except transport.RpcError as exc:
                row.problem("errors", f"a write on a served connection: {exc.code} {exc.message}")
    finally:
        for s in silent:
            s.close()
        kept.close()
    deadline = time.monotonic() + 30
    while True:  # room again once the daemon has seen the silent ones close
        try:
            total = d.call("stats", {})["total"]
            break
        except transport.RpcError as exc:
            if time.monotonic() > deadline:
                row.problem("errors", f"no room after the crowd left: {exc.message}")
                total = -1
                break
            time.sleep(0.1)
    if total != row.acked:
        row.problem("lost", f"{row.acked} writes acknowledged, {total} stored")
    code = d.stop()
    if code != 0:
        row.problem("crashes", f"SIGTERM: exit {code}")
    text = d.log_text()
    for fault in logged_faults(text):
        row.problem("errors", fault)
    lines = text.count("refused a connection")
    if lines > BURST * math.ceil((time.monotonic() - started) / WINDOW_SECONDS):
        row.problem("errors", f"{lines} refusal lines logged: not rate-limited")
    for problem in check_db(d.paths.db).problems:
        row.bad_integrity(problem)
    row.note(
        f"limit {FD_LIMIT} fds: {cap} connections served, {refused[0]} refused -32003; "
        f"20 writes on a served one; {lines} refusal lines logged"
    )


def socket_path_taken(row: Row, root: Path) -> None:
    notes = root / "notes.txt"
    notes.write_text("my notes\n")
    folder = root / "afolder"
    folder.mkdir()
    for target in (notes, folder):
        env = {**home_env(root / "home-sock"), "ENYAL_SOCKET": str(target)}
        row.runs += 1
        run = subprocess.run(
            [sys.executable, "-m", "enyal_daemon"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if run.returncode != 1 or "Traceback" in run.stderr or f"{target} is a" not in run.stderr:
            row.problem(
                "crashes" if "Traceback" in run.stderr else "errors",
                f"daemon at {target.name}: exit {run.returncode}, {run.stderr[-200:]!r}",
            )
        _refused(row, f"client at {target.name}", _cli("status", env=env), "is not a socket")
    if notes.read_text() != "my notes\n" or not folder.is_dir():
        row.problem("lost", "the file or folder named by ENYAL_SOCKET was changed")
    row.note("daemon exit 1 with one line, client exit 1; the file and the folder left alone")


def run(rows: list[Row], root: Path) -> None:
    for row, case in zip(rows, (other_users, descriptors, socket_path_taken), strict=True):
        try:
            case(row, root)
            log(f"[{row.case}] {row.runs} runs, {row.errors} unexpected")
        except Skip as skip:
            row.skipped = str(skip)
            log(f"[{row.case}] skipped: {skip}")
        except Exception as exc:  # reported on its row; the other cases still run
            row.problem("errors", f"the case stopped: {type(exc).__name__}: {exc}")
            row.note(f"stopped: {type(exc).__name__}: {str(exc)[:160]}")

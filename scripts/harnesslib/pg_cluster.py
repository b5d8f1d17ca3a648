"""A throwaway PostgreSQL cluster for the hub's tests and bench: Debian's binaries, a temp
directory, a private socket directory and (if asked) a free loopback port; stopped with
`-m immediate` and removed at the end. Nothing of the machine's own PostgreSQL is used.

initdb refuses to run as root (CI runs as root), so as root every server command runs as
the `postgres` OS user (`runuser -u postgres --`) on a directory given to it; otherwise as
whoever runs the tests. The superuser is `postgres` either way, trusted on this cluster's
own socket and loopback only; every other role logs in with a password from a .pgpass
file (PGPASSFILE), never one in a URL: libpq's usual means, as a user's hub would.

`hub_setup()` is the one-time admin setup docs/ARCHITECTURE.md ("The hub") tells a hub's
admin to do: the owner role `enyal_hub`, the group `enyal_member`, member roles, and the
database owned by the owner. The schema itself is made by `enyal hub init` as the owner.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

SUPERUSER = "postgres"
OWNER = "enyal_hub"
MEMBER_GROUP = "enyal_member"  # the same name as enyal_daemon.hub.schema.MEMBER_GROUP
DATABASE = "enyal"

# For tests only: a throwaway cluster need not survive a power cut, and fsync off keeps
# initdb and every commit from waiting on a disk shared by the whole machine. It still
# survives its own crash (`stop()` is one): a commit's WAL reaches the OS before the
# commit is acknowledged, and the OS keeps it. synchronous_commit stays on for that
# reason: off, a stop -m immediate loses the last acknowledged commits. A hub that
# matters keeps PostgreSQL's defaults.
TEST_SETTINGS = {
    "fsync": "off",
    "full_page_writes": "off",
    "shared_buffers": "32MB",
    "max_connections": "60",
    "log_min_messages": "warning",
}


def pg_bin() -> Path | None:
    """The newest Debian PostgreSQL's bin directory (or initdb on PATH); None if none."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    """One cluster: `start()` (initdb on first use), `stop()`, `restart()`, `down()` for
    a while, `url(role)`, `admin()` for SQL as the superuser, `close()` to remove it."""

    def __init__(self, *, tcp: bool = False, bin_dir: Path | None = None) -> None:
        found = bin_dir or pg_bin()
        if found is None:
            raise FileNotFoundError("no PostgreSQL initdb (Debian: apt-get install postgresql)")
        self.bin = found
        self.tcp = tcp
        # Not under pytest's tmp_path: that is private to the running user, and as root
        # the server runs as `postgres`, which must own its directory and reach it (so
        # /tmp itself then, whatever TMPDIR says).
        root_user = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="enyal-pg-", dir="/tmp" if root_user else None))
        self.data = self.root / "data"
        self.sockets = self.root / "sock"
        self.sockets.mkdir()
        self.log = self.root / "server.log"
        self.passfile = self.root / "pgpass"
        self.port = free_port()
        self.passwords: dict[str, str] = {}
        self._as: list[str] = []
        if root_user:
            owner = pwd.getpwnam("postgres")  # KeyError: no `postgres` user to run as
            for path in (self.root, self.sockets):
                os.chown(path, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._initdb()

    # -- the server ------------------------------------------------------------------

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.root,
        )

    def _initdb(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
            "--no-sync", "--encoding=UTF8", "--locale=C",
        )  # fmt: skip
        settings = {
            **TEST_SETTINGS,
            "port": str(self.port),
            "unix_socket_directories": f"'{self.sockets}'",
            "listen_addresses": "'127.0.0.1'" if self.tcp else "''",
        }
        with (self.data / "postgresql.conf").open("a") as f:
            f.writelines(f"{k} = {v}\n" for k, v in settings.items())
        # The superuser is trusted (the harness's own setup); members use passwords.
        (self.data / "pg_hba.conf").write_text(
            f"local all {SUPERUSER} trust\n"
            "local all all scram-sha-256\n"
            f"host all {SUPERUSER} 127.0.0.1/32 trust\n"
            "host all all 127.0.0.1/32 scram-sha-256\n"
        )

    def start(self) -> None:
        for attempt in range(3):
            try:
                self._run(
                    "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                    "start",
                )  # fmt: skip
                return
            except subprocess.CalledProcessError:
                # The free port was taken between free_port() and the server's bind (two
                # test workers, say): another one, set by a later line of the conf.
                if not self.tcp or "could not bind" not in self._log_text() or attempt == 2:
                    raise
                self.port = free_port()
                with (self.data / "postgresql.conf").open("a") as f:
                    f.write(f"port = {self.port}\n")

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop at once, as a crash would (no shutdown checkpoint, sessions cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """The server stopped for the body of the `with`, then started again."""
        self.stop()
        try:
            yield
        finally:
            self.start()

    def stop_for(self, seconds: float) -> threading.Thread:
        """Stop now and start again after `seconds`, in the background; join the thread
        returned to wait for the start."""
        self.stop()
        timer = threading.Timer(seconds, self.start)
        timer.start()
        return timer

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    # -- connecting ------------------------------------------------------------------

    def url(self, role: str, *, tcp: bool | None = None, database: str = DATABASE) -> str:
        """A libpq URL for `role`, with no password: libpq reads it from PGPASSFILE."""
        if tcp if tcp is not None else self.tcp:
            if not self.tcp:
                raise ValueError("this cluster listens on its socket only")
            return f"postgresql://{role}@127.0.0.1:{self.port}/{database}"
        host = str(self.sockets).replace("/", "%2F")
        return f"postgresql://{role}@{host}:{self.port}/{database}"

    def env(self) -> dict[str, str]:
        """What a process needs in its environment to log in as a member."""
        return {"PGPASSFILE": str(self.passfile)}

    def admin(self, database: str = DATABASE) -> Any:
        """An autocommit psycopg connection as the superuser (bypasses row security)."""
        import psycopg

        return psycopg.connect(self.url(SUPERUSER, tcp=False, database=database), autocommit=True)

    # -- the hub's one-time admin setup ----------------------------------------------

    def hub_setup(self, members: Sequence[str] = ("alice", "bob", "carol")) -> None:
        """Roles and database as docs/ARCHITECTURE.md tells a hub's admin to make them,
        each login role's password written to the .pgpass file."""
        with self.admin(database="postgres") as conn:
            conn.execute(f"CREATE ROLE {MEMBER_GROUP} NOLOGIN")
            for role in (OWNER, *members):
                self.passwords[role] = secrets.token_urlsafe(12)
                conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{self.passwords[role]}'")
            for role in members:
                conn.execute(f"GRANT {MEMBER_GROUP} TO {role}")
        self.passfile.write_text(
            "".join(f"*:*:*:{role}:{pw}\n" for role, pw in self.passwords.items())
        )
        self.passfile.chmod(0o600)  # libpq ignores a pgpass others can read
        self.new_database(DATABASE)

    def new_database(self, name: str) -> None:
        """Another hub database on this cluster, as `hub_setup` makes the first."""
        with self.admin(database="postgres") as conn:
            conn.execute(f"CREATE DATABASE {name} OWNER {OWNER}")
            conn.execute(f"REVOKE CONNECT ON DATABASE {name} FROM PUBLIC")
            conn.execute(f"GRANT CONNECT ON DATABASE {name} TO {MEMBER_GROUP}")

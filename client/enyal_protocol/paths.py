"""Where Enyal keeps things. Light on purpose: clients import it on every start.

ENYAL_HOME moves everything (database, socket, logs, config) under one folder,
which is how tests isolate themselves. Without it the platform's own places are
used (platformdirs). ENYAL_SOCKET overrides the socket alone, ENYAL_CACHE_DIR the
cache (files derived from others and rebuilt when missing, such as the model's
8-bit build) alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP = "enyal"
DB_NAME = "enyal.db"
SOCKET_NAME = "enyal.sock"

# sun_path is 104 bytes on macOS and the BSDs, 108 on Linux, NUL included.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107


@dataclass(frozen=True)
class Paths:
    home: Path | None
    data_dir: Path
    runtime_dir: Path
    log_dir: Path
    config_dir: Path
    socket: Path
    cache_dir: Path

    @property
    def db(self) -> Path:
        return self.data_dir / DB_NAME

    @property
    def log_file(self) -> Path:
        return self.log_dir / "enyal.log"

    @property
    def pid_file(self) -> Path:
        return self.runtime_dir / "enyal.pid"

    @property
    def socket_dir_is_ours(self) -> bool:
        """Whether the socket's folder is one Enyal made (so it may tighten it)."""
        parent = self.socket.parent
        return parent == self.runtime_dir or parent.name == f"enyal-{os.getuid()}"

    @property
    def spawn_lock(self) -> Path:
        return self.runtime_dir / "spawn.lock"

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"


def _temp_dir() -> Path:
    # Imported here: tempfile costs ~10 ms at start and most runs never need it.
    import tempfile

    return Path(tempfile.gettempdir())


def short_socket_path(key: str) -> Path:
    """A socket path that fits in sun_path whatever the home's depth."""
    import hashlib

    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return _temp_dir() / f"enyal-{os.getuid()}" / f"{digest}.sock"


def _runtime_dir(env: Mapping[str, str]) -> Path:
    """The per-user runtime dir. Without XDG_RUNTIME_DIR (containers, ssh, cron) Linux has
    none, and platformdirs warns on every call; like tmux, fall back to a private folder
    under the temp dir, keyed by uid."""
    if sys.platform.startswith("linux"):
        # Read from `env`, not through platformdirs (which reads os.environ), so that
        # resolve() answers for the environment it is given.
        runtime = env.get("XDG_RUNTIME_DIR")
        return Path(runtime) / APP if runtime else _temp_dir() / f"enyal-{os.getuid()}"
    import platformdirs

    return Path(platformdirs.user_runtime_dir(APP, appauthor=False))


def resolve(environ: Mapping[str, str] | None = None) -> Paths:
    env = os.environ if environ is None else environ
    home_env = env.get("ENYAL_HOME")
    if home_env:
        home = Path(home_env).expanduser().absolute()
        data_dir, runtime_dir = home, home / "run"
        log_dir, config_dir, cache_dir = home / "logs", home, home / "cache"
    else:
        import platformdirs

        home = None
        data_dir = Path(platformdirs.user_data_dir(APP, appauthor=False))
        log_dir = Path(platformdirs.user_log_dir(APP, appauthor=False))
        config_dir = Path(platformdirs.user_config_dir(APP, appauthor=False))
        cache_dir = Path(platformdirs.user_cache_dir(APP, appauthor=False))
        runtime_dir = _runtime_dir(env)
    socket_env = env.get("ENYAL_SOCKET")
    if socket_env:
        socket = Path(socket_env).expanduser().absolute()
    else:
        socket = runtime_dir / SOCKET_NAME
        if len(os.fsencode(socket)) > SOCKET_PATH_MAX:
            socket = short_socket_path(str(runtime_dir))
    cache_env = env.get("ENYAL_CACHE_DIR")
    if cache_env:
        cache_dir = Path(cache_env).expanduser().absolute()
    return Paths(home, data_dir, runtime_dir, log_dir, config_dir, socket, cache_dir)


def ensure_private_dir(path: Path, *, ours: bool = True) -> None:
    """A directory for the socket or the pidfile that no other user can write into.

    One that does not exist is created, 0700. An existing one must belong to this user.
    If it is Enyal's own (`ours`: the runtime dir, /tmp/enyal-<uid>) it is tightened to
    0700; any other folder (ENYAL_SOCKET=/tmp/enyal.sock names /tmp) is never changed,
    and is refused if others can write into it, since they could replace the socket."""
    if not path.exists():
        # The folders above too (ENYAL_HOME for ENYAL_HOME/run): 0700, not the umask's.
        from .private import make_private_dirs

        make_private_dirs(path)
    st = path.stat()
    if st.st_uid != os.getuid():  # e.g. /tmp/enyal-<uid> made by someone else first
        raise PermissionError(f"{path} belongs to uid {st.st_uid}, not to this user")
    if ours:
        if st.st_mode & 0o077:
            path.chmod(0o700)
    elif st.st_mode & 0o022:
        raise PermissionError(
            f"{path} is writable by other users, who could replace the socket there; "
            "point ENYAL_SOCKET into a folder only you can write (Enyal does not change "
            "the permissions of folders it did not create)"
        )

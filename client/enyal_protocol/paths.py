"""Where Enyal keeps things. Light on purpose: clients import it on every start.

ENYAL_HOME moves everything (database, socket, logs, config) under one folder,
which is how tests isolate themselves. Without it the platform's own places are
used (platformdirs). ENYAL_SOCKET overrides the socket alone, ENYAL_CACHE_DIR the
cache (files derived from others and rebuilt when missing, such as the model's
8-bit build) alone.
"""

from __future__ import annotations

import os
import stat
import sys

from . import str_paths

TYPE_CHECKING = False  # typing's own constant would import typing: records.py says why
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import NamedTuple
else:
    from .records import NamedTuple

APP = "enyal"
DB_NAME = "enyal.db"
SOCKET_NAME = "enyal.sock"
CONFIG_NAME = "config.toml"

# sun_path is 104 bytes on macOS and the BSDs, 108 on Linux, NUL included.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107


# NamedTuples, not dataclasses, here and in config.py: both load in every client process,
# and `dataclasses` imports `inspect` (ast, dis, tokenize): 45 M instructions of a
# command hook's start (docs/ARCHITECTURE.md, "Client start-up").
class Paths(NamedTuple):
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
        return (
            parent == self.runtime_dir
            or parent.name == f"enyal-{os.getuid()}"
            or str(parent) == _state_run_dir(os.environ)
        )

    @property
    def spawn_lock(self) -> Path:
        return self.runtime_dir / "spawn.lock"

    @property
    def config_file(self) -> Path:
        return self.config_dir / CONFIG_NAME


class Places(NamedTuple):
    """Paths' fields as the strings str() gives of them, resolved without importing
    pathlib: what the command hook reads (str_paths.py says why). The same fields in the
    same order as Paths (tests/test_str_paths.py holds it); resolve() makes a Paths of one."""

    home: str | None
    data_dir: str
    runtime_dir: str
    log_dir: str
    config_dir: str
    socket: str
    cache_dir: str

    @property
    def db(self) -> str:
        return str_paths.join(self.data_dir, DB_NAME)

    @property
    def config_file(self) -> str:
        return str_paths.join(self.config_dir, CONFIG_NAME)


def _temp_dir() -> str:
    """tempfile.gettempdir()'s answer without importing tempfile, which imports shutil,
    random, bz2 and lzma: 45 M instructions, a sixth of a command hook's start on a
    machine with no XDG_RUNTIME_DIR (docs/ARCHITECTURE.md, "Client start-up"). Its
    candidates in its order ($TMPDIR, $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp, the working
    folder), the first this user can create a file in: it proves that by creating one,
    access(2) answers the same (a read-only mount included) without writing. Where none
    is, tempfile itself says why."""
    names = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    try:
        here = os.getcwd()
    except OSError:
        here = os.curdir
    for folder in [*filter(None, names), "/tmp", "/var/tmp", "/usr/tmp", here]:
        folder = os.path.abspath(folder)
        if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return str_paths.pure(folder)
    import tempfile

    return str_paths.pure(tempfile.gettempdir())


# What a client or the daemon refusing a socket or its folder tells the user to do.
WHAT_TO_DO = "remove it, or set XDG_RUNTIME_DIR or ENYAL_SOCKET to a folder only you can write"


def _taken(folder: str) -> bool:
    """Whether `folder` exists as anything but a real folder of this user: in the shared
    temp dir another user may have made it (or a symlink) first, to listen in our place
    or just to lock us out, and we cannot remove what is theirs."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return False
    return not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid()


def _state_run_dir(env: Mapping[str, str]) -> str:
    """The fallback's fallback: a folder in the user's own home, which nobody else can write."""
    return str_paths.join(_xdg(env, "XDG_STATE_HOME", ".local/state", _user_home), "run")


def _private_temp_dir(env: Mapping[str, str] | None = None) -> str:
    folder = str_paths.join(_temp_dir(), f"enyal-{os.getuid()}")
    return _state_run_dir(os.environ if env is None else env) if _taken(folder) else folder


def private_temp_dir(env: Mapping[str, str] | None = None) -> Path:
    """The per-user folder under the temp dir, /tmp/enyal-<uid> (short, as sockets need);
    when another user took that name first, ~/.local/state/enyal/run instead, so that
    nobody can lock us out by making a folder."""
    from pathlib import Path

    return Path(_private_temp_dir(env))


def _short_socket_path(key: str, env: Mapping[str, str] | None = None) -> str:
    import hashlib

    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return str_paths.join(_private_temp_dir(env), f"{digest}.sock")


def short_socket_path(key: str, env: Mapping[str, str] | None = None) -> Path:
    """A socket path that fits in sun_path whatever the home's depth."""
    from pathlib import Path

    return Path(_short_socket_path(key, env))


def _runtime_dir(env: Mapping[str, str]) -> str:
    """The per-user runtime dir. Without XDG_RUNTIME_DIR (containers, ssh, cron) Linux has
    none, and platformdirs warns on every call; like tmux, fall back to a private folder
    under the temp dir, keyed by uid."""
    if sys.platform.startswith("linux"):
        # Read from `env`, not through platformdirs (which reads os.environ), so that
        # resolve() answers for the environment it is given.
        runtime = env.get("XDG_RUNTIME_DIR")
        return str_paths.join(runtime, APP) if runtime else _private_temp_dir(env)
    import platformdirs

    return str_paths.pure(platformdirs.user_runtime_dir(APP, appauthor=False))


def _xdg(env: Mapping[str, str], var: str, default: str, home: Callable[[], str]) -> str:
    """An XDG base directory's folder for Enyal, as platformdirs makes it on Linux
    (`home`: the user's home folder, asked for only when `var` is unset)."""
    return str_paths.join(env.get(var, "").strip() or str_paths.join(home(), default), APP)


def _user_home() -> str:
    """Path.home(): expanduser's, which raises where it finds no home as Path.home() does."""
    home = os.path.expanduser("~")
    if home == "~":
        raise RuntimeError("Could not determine home directory.")
    return home


def resolve(environ: Mapping[str, str] | None = None) -> Paths:
    return as_paths(places(environ))


def as_paths(p: Places) -> Paths:
    from pathlib import Path  # not on the command hook's path: it reads places()

    home = None if p.home is None else Path(p.home)
    return Paths(home, *(Path(field) for field in p[1:]))


def places(environ: Mapping[str, str] | None = None) -> Places:
    """Where Enyal keeps things, for `environ` (os.environ by default)."""
    env = os.environ if environ is None else environ
    home_env = env.get("ENYAL_HOME")
    home: str | None
    if home_env:
        home = str_paths.absolute(home_env)
        data_dir, runtime_dir = home, str_paths.join(home, "run")
        log_dir, config_dir = str_paths.join(home, "logs"), home
        cache_dir = str_paths.join(home, "cache")
    elif sys.platform.startswith("linux"):
        # platformdirs' XDG rules, read from `env` (it reads os.environ): clients compare
        # the database they resolved with the daemon's, so it must answer for `env`.
        home = None
        user_home: list[str] = []  # expanduser reads os.environ: once, not per folder

        def once() -> str:
            if not user_home:
                user_home.append(_user_home())
            return user_home[0]

        data_dir = _xdg(env, "XDG_DATA_HOME", ".local/share", once)
        log_dir = str_paths.join(_xdg(env, "XDG_STATE_HOME", ".local/state", once), "log")
        config_dir = _xdg(env, "XDG_CONFIG_HOME", ".config", once)
        cache_dir = _xdg(env, "XDG_CACHE_HOME", ".cache", once)
        runtime_dir = _runtime_dir(env)
    else:
        import platformdirs

        home = None
        data_dir = str_paths.pure(platformdirs.user_data_dir(APP, appauthor=False))
        log_dir = str_paths.pure(platformdirs.user_log_dir(APP, appauthor=False))
        config_dir = str_paths.pure(platformdirs.user_config_dir(APP, appauthor=False))
        cache_dir = str_paths.pure(platformdirs.user_cache_dir(APP, appauthor=False))
        runtime_dir = _runtime_dir(env)
    socket_env = env.get("ENYAL_SOCKET")
    if socket_env:
        socket = str_paths.absolute(socket_env)
    else:
        socket = str_paths.join(runtime_dir, SOCKET_NAME)
        if len(os.fsencode(socket)) > SOCKET_PATH_MAX:
            socket = _short_socket_path(runtime_dir, env)
    cache_env = env.get("ENYAL_CACHE_DIR")
    if cache_env:
        cache_dir = str_paths.absolute(cache_env)
    return Places(home, data_dir, runtime_dir, log_dir, config_dir, socket, cache_dir)


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
    # Our own folder is looked at itself (lstat): a symlink there was put by someone else.
    st = path.lstat() if ours else path.stat()
    if ours and not stat.S_ISDIR(st.st_mode):
        raise PermissionError(f"{path} is not a folder (a symlink?); {WHAT_TO_DO}")
    if st.st_uid != os.getuid():  # e.g. /tmp/enyal-<uid> made by someone else first
        raise PermissionError(
            f"{path} belongs to uid {st.st_uid}, not to this user (uid {os.getuid()}); "
            + WHAT_TO_DO
        )
    if ours:
        if st.st_mode & 0o077:
            path.chmod(0o700)
    elif st.st_mode & 0o022:
        raise PermissionError(
            f"{path} is writable by other users, who could replace the socket there; "
            "point ENYAL_SOCKET into a folder only you can write (Enyal does not change "
            "the permissions of folders it did not create)"
        )


def check_socket(path: str) -> bool:
    """Whether a socket to connect to is at `path`; PermissionError when it or its folder
    could be another user's, who would then read every memory and query sent, and answer
    with memories of their own. The folder must be this user's (or root's) and writable
    by nobody else; the socket must be a socket and this user's (only its owner can make
    one there; the daemon's peer credentials are checked once connected)."""
    uid = os.getuid()
    folder = str_paths.parent(path)  # str(Path.parent), in the messages as before
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return False
    if st.st_uid not in (uid, 0):
        raise PermissionError(
            f"{folder} belongs to uid {st.st_uid}, not to this user (uid {uid}); {WHAT_TO_DO}"
        )
    if st.st_mode & 0o022:
        raise PermissionError(
            f"{folder} is writable by other users, who could put their own socket there; "
            f"{WHAT_TO_DO}"
        )
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(st.st_mode):
        raise PermissionError(f"{path} is not a socket; {WHAT_TO_DO}")
    if st.st_uid != uid:
        raise PermissionError(
            f"the socket {path} belongs to uid {st.st_uid}, not to this user (uid {uid}); "
            + WHAT_TO_DO
        )
    return True

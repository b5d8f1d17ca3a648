"""config.toml as last parsed, kept as JSON in the cache folder: importing tomllib costs 43 M
instructions (it imports typing and datetime and compiles its patterns), more than all of
Enyal's own code on a command hook's path, and every `enyal hook EVENT` and `enyal
recall` reads the config (docs/ARCHITECTURE.md, "Client start-up"). Read and written
with lean_json, as the rest of those paths: the json package alone costs them 32 M.

An entry is the file's path, what stat(2) says of it (modification and change times in
nanoseconds, size, inode: an edit or a replacement changes one) and the parsed TOML. It
is used only when all of that matches, so a changed file is parsed again; a cache that
is missing, unreadable or of another file is the same as none. One entry a config file
(named by a checksum of its path), so homes sharing a cache folder (ENYAL_CACHE_DIR)
keep theirs apart. Written 0600 and atomically (a temporary file renamed), never into
a folder that is not there: a client creates no folder for it."""

from __future__ import annotations

import os

from . import lean_json

TYPE_CHECKING = False  # typing's own constant would import typing (records.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def entry_path(cache_dir: Path, file: Path) -> Path:
    from pathlib import Path  # not on the command hook's path, which reads _entry's

    return Path(_entry(cache_dir, file))


def _entry(cache_dir: os.PathLike[str] | str, file: os.PathLike[str] | str) -> str:
    import zlib  # only with a config file: a home without one never gets here

    return os.path.join(cache_dir, f"config-{zlib.crc32(os.fsencode(file)):08x}.json")


def stamp(st: os.stat_result) -> list[int]:
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def cached(
    cache_dir: os.PathLike[str] | str, file: os.PathLike[str] | str, st: os.stat_result
) -> dict[str, Any] | None:
    """The parsed TOML of `file` if the cache holds it as the file is now, else None."""
    try:
        with open(_entry(cache_dir, file), "rb") as f:
            own = os.fstat(f.fileno())
            # Only an entry this user wrote and nobody else can: in a cache folder others
            # may write to (ENYAL_CACHE_DIR is the user's choice), a planted one could
            # turn redaction off for the daemon, which reads its config through here.
            if own.st_uid != os.getuid() or own.st_mode & 0o022:
                return None
            entry = lean_json.loads(f.read())
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("file") != str(file):
        return None
    data = entry.get("data")
    return data if entry.get("stamp") == stamp(st) and isinstance(data, dict) else None


def keep(
    cache_dir: os.PathLike[str] | str,
    file: os.PathLike[str] | str,
    st: os.stat_result,
    data: dict[str, Any],
) -> None:
    """Remember `data` as `file`'s parse, if the cache folder is there and it can be
    written as JSON (a TOML date cannot: then nothing is kept)."""
    try:
        text = lean_json.dumps({"file": str(file), "stamp": stamp(st), "data": data})
    except (TypeError, ValueError):
        return
    path = _entry(cache_dir, file)
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:  # no cache folder, or not ours to write: parse again next time
        import contextlib  # only here: the hook's path has no other use for it

        with contextlib.suppress(OSError):
            os.unlink(tmp)

"""Reading what `index` is given without leaving it (issue 25 item 2).

A folder handed to `index` may hold links that someone else put there (a cloned
repository's `docs/env.md -> /proc/self/environ`, `notes.md -> ~/.pgpass`): the
daemon runs as the user and would read whatever the link names, and recall would
hand it to any agent. So a file is read only if its real path (every link resolved)
stays under the real path of its bound: the folder indexed, or, for a file named on
its own or a path named that is a link, its project (a repository's `AGENTS.md ->
CLAUDE.md` is fine, a `CLAUDE.md` pointing at ~/.ssh is not). Only regular files are
read: a FIFO would block the reader forever, a device or socket is no note, and a
/proc or /sys file (a "regular" file whose stat size is not what it reads) is refused
as well. Links to folders are never followed (a folder inside the bound is walked
under its own name anyway); one leading out is reported.

The check and the read are one: the file is opened at its resolved path with
O_NOFOLLOW and O_NONBLOCK (so a link or FIFO swapped in after the check is refused,
not followed or waited on) and the open file itself is checked again.
"""

from __future__ import annotations

import os
import stat

from ...errors import InvalidValue, PathRefused, TooLarge
from ..rules import scopes


def bound_of(root: str) -> tuple[str, str]:
    """(the real folder nothing read for `root` may resolve outside of, that folder as
    the user knows it): `root` itself if it is a folder, else the project holding it, for
    a file and for a link (a folder named through a link must lead inside its project:
    a cloned repository's `docs -> ~` is no more read than its `CLAUDE.md -> ~/.pgpass`)."""
    if os.path.isdir(root) and not os.path.islink(root):
        return os.path.realpath(root), root
    project = scopes.project_root(os.path.dirname(root) or ".")
    return os.path.realpath(project), project


def inside(real: str, bound: str) -> bool:
    return real == bound or real.startswith(bound.rstrip("/") + "/")


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def resolve(path: str, bound: str, shown: str) -> str:
    """The real path of `path`, a regular file under `bound`; else PathRefused. `shown` is how
    the bound is named in the reason (the path as the user gave it)."""
    try:
        real = os.path.realpath(path, strict=True)
    except OSError:
        if os.path.islink(path):
            raise PathRefused(f"a link to {os.readlink(path)}, which is missing") from None
        raise
    if not inside(real, bound):
        raise PathRefused(f"a link to {real}, outside {shown}")
    kind = _kind(os.stat(real).st_mode)
    if kind is not None:
        raise PathRefused(f"not a regular file: {kind}")
    return real


def folder_link(path: str, bound: str, shown: str) -> str | None:
    """Why a link to a folder met in a walk is worth reporting: it leads outside the bound
    (never followed either way). None for one inside, or a broken one (nothing to read)."""
    real = os.path.realpath(path)
    if inside(real, bound) or not os.path.isdir(real):
        return None
    return f"a link to the folder {real}, outside {shown}: not followed"


def read(path: str, bound: str, shown: str, limit: int) -> tuple[bytes, os.stat_result]:
    """The bytes of `path` and its stat, read as the module docstring says; PathRefused,
    TooLarge, InvalidValue (it changed while read), or OSError (it went away, or cannot be
    read)."""
    real = resolve(path, bound, shown)
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        kind = _kind(st.st_mode)
        if kind is not None:  # swapped in since resolve
            raise PathRefused(f"not a regular file: {kind}")
        if st.st_size > limit:
            raise TooLarge(f"{st.st_size} bytes; files over {limit} are not indexed")
        parts: list[bytes] = []
        size = 0
        while size <= limit and (block := os.read(fd, limit + 1 - size)):
            parts.append(block)
            size += len(block)
        data = b"".join(parts)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if (after.st_mtime_ns, after.st_size) != (st.st_mtime_ns, st.st_size):
        raise InvalidValue(f"{path} changed while it was read; it is read again next time")
    if len(data) != st.st_size:
        # Same stat before and after, other bytes: no file on disk but a kernel view.
        raise PathRefused(
            f"not a regular file: its size says {st.st_size} bytes and it reads "
            f"{'more' if len(data) > st.st_size else 'fewer'} (a /proc or /sys file)"
        )
    return data, st

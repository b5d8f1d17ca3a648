"""Two paths' files exchanged in one step (Linux renameat2 RENAME_EXCHANGE): a file
put in place this way leaves what it replaced under its own old name, where a rename
over it would have destroyed it. The sharer uses it so that a teammate's write landing
just before its own (shared_files._replace_unless_changed) can be put back, never lost.
Where the system cannot (another OS, a filesystem without it), `exchange` says so and
the caller renames as before."""

from __future__ import annotations

import ctypes
import errno
import os
import sys

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_renameat2 = getattr(_libc, "renameat2", None)  # glibc 2.28 and later


def exchange(a: str, b: str) -> bool:
    """Swap the files at `a` and `b`, both of which must exist; False: not supported
    here (nothing changed). Raises OSError for anything else (one of them is gone)."""
    if _renameat2 is None:
        return False
    done = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), b)

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
from typing import Literal

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_renameat2 = getattr(_libc, "renameat2", None)  # glibc 2.28 and later


def exchange(a: str, b: str) -> Literal["swapped", "gone", "unsupported"]:
    """Swap the files at `a` and `b`. "gone": one of them is not there; "unsupported":
    not on this system or filesystem, or refused for another reason. Either way nothing
    changed, and the caller renames as before: a rename meets the same refusal, if it
    lasts, as the OSError the rest of the sharer already handles (so none is made here)."""
    if _renameat2 is None:
        return "unsupported"
    done = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return "swapped"
    return "gone" if ctypes.get_errno() == errno.ENOENT else "unsupported"

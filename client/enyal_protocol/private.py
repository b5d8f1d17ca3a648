"""Files and folders that hold memories, readable by their user alone (issue 25 item 3).

An export holds everything stored, as a backup does; the folders under ENYAL_HOME hold
the database and logs that quote it. Left to the umask (0644 / 0755 on most systems)
any local user could read them, so what Enyal writes is 0600 and the folders it makes
0700, whatever the umask. Folders that already exist (a home shared with other tools,
~/.local/share) are left as they are: Enyal changes only what it made.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700


def make_private_dirs(path: Path) -> None:
    """`path` and any missing folder above it, each made 0700."""
    missing: list[Path] = []
    here = path
    while not here.exists() and here.parent != here:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:  # made meanwhile by another process: not ours to change
            continue
        # mkdir's mode passes through the umask; set it as meant.
        with contextlib.suppress(OSError):
            os.chmod(folder, DIR_MODE)


def open_private(path: str) -> IO[bytes]:
    """`path` opened for writing, emptied, 0600: made so, or, if it existed, made so before
    a byte is written. What is no regular file (/dev/stdout, a pipe) is written as it is."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "wb")

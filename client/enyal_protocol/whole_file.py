"""A file written whole or not at all: its bytes go to a temporary file beside it, are
fsync'd, given their mode, and renamed over it, so a reader (an agent, the sharing
watcher, another process) never sees half a file and a crash leaves the old one.

Shared (standard library only) by the daemon's .enyal/ files (service/files/sharing.py)
and the client's settings and exports (commands/mcp_config.py, commands/transfer.py).
The temporary name starts with a dot and ends with no known suffix, so a reader of
`*.md` or of a folder's visible names (the sharing scan) passes over it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_whole(path: Path, data: bytes, mode: int) -> None:
    """Replace `path` by `data`, mode `mode` whatever the umask. The folder must exist."""
    tmp = write_beside(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_beside(path: Path, data: bytes, mode: int) -> str:
    """`data` whole in a temporary file beside `path` (fsync'd, mode `mode`), for the
    caller to move in place; its name is returned."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp

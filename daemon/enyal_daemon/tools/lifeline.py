"""A tool lives no longer than the `enyal` that ran it.

Before the split the work ran inside `enyal`, so killing `enyal` stopped it; a tool
left running would go on writing the database (or installing a download) behind a
command the user believes dead. The spawner holds our stdin open and writes nothing:
EOF means it is gone. On Linux the kernel also kills us the moment it dies
(PR_SET_PDEATHSIG), so no batch commits after its death is observed; the stdin
watch covers other systems and a spawner that died before we set that.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _watch() -> None:
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    # SIGKILL, not an exception: the main thread may be deep in inference or a download,
    # and dying at once is what killing the spawner did before.
    os.kill(os.getpid(), signal.SIGKILL)


def hold() -> None:
    _die_with_parent()
    threading.Thread(target=_watch, name="lifeline", daemon=True).start()

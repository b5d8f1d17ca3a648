"""Ctrl-C in the `enyal` command: at any moment of a run it stops it, with one line on
stderr and exit status 130 (entry.py), never a traceback, a crash or a hang. Two things
stood in the way (docs/ARCHITECTURE.md, "Ctrl-C"; tests/test_interrupts.py):

- Start-up. A KeyboardInterrupt raised inside an import can leave a module half made
  that imports without error. msgspec's _core does not check its import of datetime's
  C API: interrupted there, `import msgspec` succeeds and its first Decoder of a type
  past the datetime checks dereferences NULL (SIGSEGV). So from before cli.py's imports
  until the verb's work begins, SIGINT is only noted (hold()); go() raises it then.
- A read from the daemon. Python runs the handler that raises KeyboardInterrupt between
  bytecodes; a SIGINT that arrives after the last look and before recv() blocks, or
  that the kernel hands to another thread, waits for the daemon's next line, which for
  `enyal watch` may never come. hold() also has the signal write a byte to a pipe
  (signal.set_wakeup_fd), and a read waits for that pipe as well as for the socket
  (wait_readable); the handler runs as the wait returns.

`signal` and `select` are imported only by the functions that need them: transport.py
imports this module in every client, and only the command line holds SIGINT.
"""

from __future__ import annotations

import _thread
import os

TYPE_CHECKING = False  # typing's own constant would import typing
if TYPE_CHECKING:
    import socket
    from types import FrameType

# The pipe's reading end once hold() has run, else None: then a read waits for its socket
# alone, as any other client's does. Only the thread that ran hold() (the main thread,
# the only one Python runs signal handlers in) waits for it too.
wake_fd: int | None = None
_waker = -1  # that thread's ident
_noted = False


def _note(signum: int, frame: FrameType | None) -> None:
    global _noted
    _noted = True


def hold() -> None:
    """From now until go(), SIGINT is noted, not raised; from now on it also wakes a read
    from the daemon. Main thread only (signal.signal's rule)."""
    global wake_fd, _waker
    import signal

    signal.signal(signal.SIGINT, _note)
    if wake_fd is None:
        read_end, write_end = os.pipe()
        os.set_blocking(read_end, False)
        os.set_blocking(write_end, False)  # set_wakeup_fd's rule: a full pipe never blocks
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        wake_fd, _waker = read_end, _thread.get_ident()


def go() -> None:
    """SIGINT raises KeyboardInterrupt again, at once if one came while held."""
    global _noted
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    if _noted:
        _noted = False
        raise KeyboardInterrupt


def wait_readable(sock: socket.socket) -> None:
    """Return once `sock` has something to read (or its end), or at once on a signal: the
    interpreter then runs the handler, which raises KeyboardInterrupt for SIGINT, as this
    call returns. Elsewhere than in hold()'s thread, or on a closed socket (the read then
    fails as it always did), it returns at once."""
    if wake_fd is None or _thread.get_ident() != _waker or sock.fileno() < 0:
        return
    import select

    poller = select.poll()
    poller.register(sock, select.POLLIN)
    poller.register(wake_fd, select.POLLIN)
    while not any(fd != wake_fd for fd, _ in poller.poll()):
        # The byte of a signal whose handler has run (held SIGINT, or one caught between
        # bytecodes before this wait): drop it and wait again.
        try:
            while os.read(wake_fd, 512):
                pass
        except BlockingIOError:
            pass

"""Running the daemon's tools (`python -m enyal_daemon <tool> ...`) for the verbs whose
work needs the daemon's libraries: the client runs them, it never imports them.

The tool's stderr is the user's (its progress bars draw on this terminal); its stdout
is one JSON document, decoded into the Struct the caller names (enyal_protocol.tools).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

import msgspec

from enyal_protocol.exits import EXIT_ALREADY_RUNNING, EXIT_INTERRUPTED
from enyal_protocol.tools import EXIT_FAILED, LIFELINE_FLAG, ToolError

from .transport import ClientError

T = TypeVar("T")


class ToolFailed(ClientError):
    """The tool refused or failed, and said why (message); code is its exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message, self.code = message, code


class ToolInterrupted(Exception):
    """Ctrl-C stopped the tool; it has already said so on stderr."""


def _ignore(signum: int, frame: FrameType | None) -> None:
    pass


@contextmanager
def _sigint_goes_to_the_tool() -> Iterator[None]:
    """Ctrl-C reaches the whole foreground process group, the tool included: it stops and
    says so, and we wait for that instead of dying first (which would cut its lifeline).
    A no-op handler rather than SIG_IGN, which the tool would inherit."""
    previous = signal.signal(signal.SIGINT, _ignore)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run(args: list[str], result: type[T]) -> T:
    """`python -m enyal_daemon *args`, decoded into `result`. Raises ToolFailed with the
    tool's own message, ToolInterrupted, or ClientError when it did not run as a tool."""
    command = [sys.executable, "-m", "enyal_daemon", *args, LIFELINE_FLAG]
    with (
        _sigint_goes_to_the_tool(),
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc,
    ):
        assert proc.stdout is not None
        out = proc.stdout.read()  # stdin stays open until the tool is done: its lifeline
        code = proc.wait()
    if code in (EXIT_INTERRUPTED, -signal.SIGINT):
        raise ToolInterrupted
    try:
        if code == 0:
            return msgspec.json.decode(out, type=result)
        if code in (EXIT_FAILED, EXIT_ALREADY_RUNNING):
            raise ToolFailed(msgspec.json.decode(out, type=ToolError).message, code)
    except msgspec.DecodeError:
        pass
    raise ClientError(
        f"`{' '.join(command[1:-1])}` failed (exit status {code}); its error, if any, is above"
    )

"""The daemon's errors, drawn once and mapped once to JSON-RPC codes.

    EnyalError                      -32603  never raised itself: only a bug lands here
    ├── InvalidParams               -32602  params of the wrong shape or type
    ├── NotFound                    -32001  no entry with that id
    ├── InvalidValue                -32002  well-formed but not acceptable
    │   └── PathRefused             -32002  a file index must not read (a link out, a FIFO);
    │                                       reported as skipped, not as a failure
    ├── TooLarge                    -32003  content, batch or frame over a limit
    ├── ModelUnavailable            -32004  model files missing or failing their hash
    │   └── FetchError              -32004  a model download failed or did not verify
    ├── Conflict                    -32005  the request contradicts the stored state
    ├── ShuttingDown                -32006  the daemon is stopping; retry on the next one
    ├── VersionMismatch             -32008  the client expects another release; not run
    ├── StorageError                -32009  disk full, read-only or failing storage
    ├── BadPath                     -32010  a path the file system cannot hold or reach
    ├── Busy                        -32011  another process holds the write lock; retry
    ├── HubUnavailable              -32012  the team hub cannot be reached or refused us
    ├── HttpRefused                 -32602  never on the wire: the hook endpoint's HTTP
    │                                       refusal (server/hook_http.py), by its status
    └── StartupError                -32007  the daemon cannot start; never on the wire, the
        ├── AlreadyRunning                  process exits (AlreadyRunning with 75, so that
        └── ActivationError                 a client that spawned it just connects)

The engine raises these and never prints; the server turns them into JSON-RPC
error objects (server/dispatch.py), the CLI into a message and exit code 1.
Every class names its code here; tests/test_errors.py holds every subclass to it.
"""

from __future__ import annotations

from typing import Any

from enyal_protocol import wire as protocol


class EnyalError(Exception):
    code = protocol.INTERNAL_ERROR

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class InvalidParams(EnyalError):
    code = protocol.INVALID_PARAMS


class NotFound(EnyalError):
    code = protocol.NOT_FOUND


class InvalidValue(EnyalError):
    code = protocol.INVALID_VALUE


class PathRefused(InvalidValue):
    """`message` is the reason the file is not read (service/files/confined.py)."""

    code = protocol.INVALID_VALUE


class TooLarge(EnyalError):
    code = protocol.TOO_LARGE


class ModelUnavailable(EnyalError):
    code = protocol.MODEL_UNAVAILABLE


class FetchError(ModelUnavailable):
    code = protocol.MODEL_UNAVAILABLE


class Conflict(EnyalError):
    code = protocol.CONFLICT


class ShuttingDown(EnyalError):
    code = protocol.SHUTTING_DOWN


class VersionMismatch(EnyalError):
    code = protocol.VERSION_MISMATCH


class StorageError(EnyalError):
    code = protocol.STORAGE_UNAVAILABLE


class BadPath(EnyalError):
    code = protocol.BAD_PATH


class Busy(EnyalError):
    code = protocol.BUSY


class HubUnavailable(EnyalError):
    """The hub (PostgreSQL) cannot be reached, or refused this role: what is local goes
    on, and what waits for the hub stays in the outbox."""

    code = protocol.HUB_UNAVAILABLE


class HttpRefused(EnyalError):
    """A request to the loopback hook endpoint refused before any method runs: answered
    with an HTTP status, not a JSON-RPC error (the code is the nearest one, were it)."""

    code = protocol.INVALID_PARAMS

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class StartupError(EnyalError):
    code = protocol.STARTUP_FAILED


class AlreadyRunning(StartupError):
    code = protocol.STARTUP_FAILED


class ActivationError(StartupError):
    """The service manager passed something we cannot serve on."""

    code = protocol.STARTUP_FAILED

"""The daemon's errors, drawn once and mapped once to JSON-RPC codes.

    EnyalError                      -32603 unless a subclass says otherwise
    ├── InvalidParams               -32602  params of the wrong shape or type
    ├── NotFound                    -32001  no entry with that id
    ├── InvalidValue                -32002  well-formed but not acceptable
    ├── TooLarge                    -32003  content, batch or frame over a limit
    ├── ModelUnavailable            -32004  model files missing or failing their hash
    ├── Conflict                    -32005  the request contradicts the stored state
    └── ShuttingDown                -32006  the daemon is stopping; retry on the next one

The engine raises these and never prints; the server turns them into JSON-RPC
error objects (server/dispatch.py), the CLI into a message and exit code 1.
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


class TooLarge(EnyalError):
    code = protocol.TOO_LARGE


class ModelUnavailable(EnyalError):
    code = protocol.MODEL_UNAVAILABLE


class Conflict(EnyalError):
    code = protocol.CONFLICT


class ShuttingDown(EnyalError):
    code = protocol.SHUTTING_DOWN

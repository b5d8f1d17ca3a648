"""A Unix socket spoken to byte by byte, for frames no well-behaved client sends."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any


def frame(method: str, params: Any = None, req_id: Any = 1, **extra: Any) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": req_id, **extra}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode() + b"\n"


class RawConn:
    def __init__(self, path: Path, timeout: float = 20) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self._buf = b""

    def __enter__(self) -> RawConn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_line(self) -> bytes | None:
        """One newline-terminated line, or None at end of stream (a reset counts as one)."""
        while b"\n" not in self._buf:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def read(self) -> dict[str, Any]:
        line = self.read_line()
        assert line is not None, "the daemon closed the connection instead of answering"
        msg: dict[str, Any] = json.loads(line)
        return msg

    def request(self, method: str, params: Any = None, req_id: Any = 1) -> dict[str, Any]:
        self.send(frame(method, params, req_id))
        return self.read()

    def at_eof(self) -> bool:
        """True once the daemon has closed its end."""
        return self.read_line() is None

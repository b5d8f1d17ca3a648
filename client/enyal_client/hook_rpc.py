"""`enyal hook EVENT`'s connection to the daemon: JSON-RPC on the socket with the standard
library's JSON accelerator (enyal_protocol/lean_json.py: not even the json package), so
the process Claude Code starts for a command hook imports no msgspec (docs/ARCHITECTURE.md,
"Client start-up": msgspec and what it pulls in were the largest share of a hook's
start). Used by the command hook and by `enyal recall`'s lean path
(commands/lean_recall.py); every other client goes through transport.py, whose framing
(enyal_protocol/framing.py) and socket checks (reach.py) this shares.

What it keeps of transport.Connection: the daemon's release and database checked on
the first request (`enyal_expect`), a request the daemon hung up on sent once more
under the same `enyal_key` (the daemon runs a keyed non-read once: server/replies.py;
it ignores the key on a read, so every request carries one rather than this module
importing wire.METHODS to tell them apart), and an error object turned into the
client error transport.error_of makes. What it leaves to transport.py, imported only
then: a daemon that is not on our socket (the database's owner elsewhere, or none:
then started), and the error mapping. A hook that asks nothing opens nothing."""

from __future__ import annotations

import _socket
import itertools
import os

from enyal_protocol import __version__, lean_json
from enyal_protocol.framing import DELIMITER, JSONRPC, MAX_LINE, PROTOCOL_VERSION
from enyal_protocol.paths import Places, as_paths, places

from .reach import DaemonUnavailable, connect_unix

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from typing import Any


class HookConnection:
    """A Caller of the hook logic (enyal_protocol/hooks/caller.py) on one socket."""

    def __init__(self, paths: Places | None = None, *, autostart: bool = True) -> None:
        """`autostart`: find or start a daemon not on our socket (transport.py's), else
        raise DaemonUnavailable."""
        self._paths = paths
        self._autostart = autostart
        self._sock: _socket.socket | None = None
        self._file: Any = None
        self._ids = itertools.count(1)
        self._checked = False  # one answered request proves the release

    def _open(self) -> None:
        paths = self._paths = self._paths or places()
        sock = connect_unix(paths.socket)
        if sock is None and not self._autostart:
            raise DaemonUnavailable(f"no daemon answers on {paths.socket}")
        if sock is None:  # not on our socket: found elsewhere or started, as every client
            from .transport import open_socket

            sock = open_socket(as_paths(paths), autostart=True)
        # socket.py's makefile, which _socket lacks: a reader of the descriptor itself.
        self._sock, self._file = sock, open(sock.fileno(), "rb", closefd=False)  # noqa: SIM115

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._sock is not None:
            self._sock.close()
        self._sock = self._file = None

    def _send(self, frame: bytes) -> tuple[dict[str, Any], bytes] | None:
        """The response to `frame` (sent on a fresh connection if need be) and its line,
        None when the daemon hung up first."""
        if self._sock is None:
            self._open()
        assert self._sock is not None
        try:
            self._sock.sendall(frame)
            while line := self._file.readline(MAX_LINE):
                try:
                    msg = lean_json.loads(line)
                except ValueError:  # not JSON, or not UTF-8
                    raise DaemonUnavailable("the daemon sent a line that is not JSON") from None
                if isinstance(msg, dict) and "id" in msg:  # else a notification: not ours
                    return msg, line
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close()
        return None

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.call_with_text(method, params)[0]

    def call_with_text(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The result, and its JSON text as the daemon wrote it (member_text)."""
        request: dict[str, Any] = {"jsonrpc": JSONRPC, "id": next(self._ids), "method": method}
        request |= {"params": params, "enyal_key": os.urandom(16).hex()}
        if not self._checked:
            if self._paths is None:
                self._paths = places()
            expect = {"version": __version__, "protocol": PROTOCOL_VERSION}
            request["enyal_expect"] = expect | {"db": self._paths.db}
        frame = lean_json.dumps(request, ensure_ascii=False).encode() + DELIMITER
        answer = self._send(frame)
        if answer is None:  # once: a daemon that keeps hanging up is a real failure
            answer = self._send(frame)
        if answer is None:
            raise DaemonUnavailable("the daemon closed the connection")
        reply, line = answer
        if "error" in reply:
            raise _error(reply["error"], request.get("enyal_expect"))
        self._checked = True
        result = reply.get("result")
        if not isinstance(result, dict):
            raise DaemonUnavailable(f"the daemon answered {method} with no result object")
        return result, member_text(line.decode(), "result")


def member_text(text: str, name: str) -> str:
    """The JSON text of member `name` of the object `text` holds, as it was written. The
    daemon writes with msgspec, and the full CLI's --json prints what msgspec writes
    again of what it decoded: these same bytes, which the standard library's json would
    not give back (it writes 1e-05 where msgspec writes 0.00001, 1e+16 for 1e16)."""
    i = _space(text, 0)
    if not text.startswith("{", i):
        raise DaemonUnavailable("the daemon sent a line that is not a JSON object")
    i = _space(text, i + 1)
    while text.startswith('"', i):
        key, i = lean_json.raw_decode(text, i)
        i = _space(text, _space(text, i) + 1)  # past the colon
        _, end = lean_json.raw_decode(text, i)
        if key == name:
            return text[i:end]
        i = _space(text, _space(text, end) + 1)  # past the comma
    raise DaemonUnavailable(f"the daemon's answer has no {name}")


def _space(text: str, i: int) -> int:
    """The index of the first character at or after `i` that is not JSON's whitespace."""
    while text[i : i + 1] in (" ", "\t", "\n", "\r"):
        i += 1
    return i


def _error(error: Any, expect: dict[str, Any] | None) -> Exception:
    """The error transport.py's clients get for this error object (imported only now)."""
    import msgspec

    from enyal_protocol import wire as p

    from .transport import error_of

    try:
        obj = msgspec.convert(error, p.ErrorObject)
    except msgspec.ValidationError:
        return DaemonUnavailable(f"the daemon sent an unreadable error: {error!r}")
    return error_of(obj, None if expect is None else msgspec.convert(expect, p.Expect))

"""A hand-written MCP stdio client: one JSON-RPC message a line, the same for every server
it drives, so `enyal-mcp` and the per-client server are timed by identical code."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import IO, Any

PROTOCOL = "2025-06-18"


class StdioError(Exception):
    pass


class StdioClient:
    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        stderr: IO[bytes] | int,
        cwd: str | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd
        )
        self._next = 0

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self._next += 1
        rid = self._next
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise StdioError(f"{method}: the server closed stdout (exit {self.proc.poll()})")
            msg = json.loads(line)
            if msg.get("id") != rid or "method" in msg:
                continue  # a notification or a server-to-client request: not ours
            if "error" in msg:
                raise StdioError(f"{method}: {msg['error']}")
            return msg["result"]

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    def close(self, timeout: float = 30.0) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def first_recall(
    argv: list[str], env: dict[str, str], query: str, log: Path
) -> tuple[float, float, Any]:
    """Spawn a server, initialize, call enyal_recall once. Returns (seconds to the initialize
    result, seconds to the recall result, the recall result), both from before the spawn."""
    with log.open("ab") as err:
        t0 = time.perf_counter()
        client = StdioClient(argv, env, err)
        try:
            client.request(
                "initialize",
                {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "enyal-bench", "version": "1"},
                },
            )
            t_init = time.perf_counter() - t0
            client.notify("notifications/initialized")
            result = client.request(
                "tools/call", {"name": "enyal_recall", "arguments": {"query": query, "limit": 5}}
            )
            t_first = time.perf_counter() - t0
        finally:
            client.close()
    if isinstance(result, dict) and result.get("isError"):
        raise StdioError(f"enyal_recall returned an error: {str(result)[:300]}")
    return t_init, t_first, result

"""`enyal watch`: a real CLI process subscribed to a real daemon prints the changes other
clients make, only those its filter allows, and stops cleanly."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from conftest import BIN, DaemonProc, run_cli

WAIT = 60  # seconds: a guard against a hang, never a measure


class Watcher:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "enyal"), "watch", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.said: queue.Queue[str] = queue.Queue()
        self.pumps = [
            threading.Thread(target=self._pump, args=(stream, into), daemon=True)
            for stream, into in ((self.proc.stdout, self.lines), (self.proc.stderr, self.said))
        ]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: IO[str] | None, into: queue.Queue[str]) -> None:
        assert stream is not None
        for line in stream:
            into.put(line.rstrip("\n"))

    def started(self) -> str:
        """The banner it prints once subscribed: changes after it are heard."""
        return self.said.get(timeout=WAIT)

    def next(self) -> Any:
        return json.loads(self.lines.get(timeout=WAIT))

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=WAIT)
        for pump in self.pumps:  # they end at the pipes' EOF
            pump.join(WAIT)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code


def test_watch_prints_the_changes_its_filter_allows(daemon: DaemonProc, tmp_path: Path) -> None:
    w = Watcher("--json", "--type", "fact", "--scope", "global")
    try:
        assert w.started() == "watching scope global, types fact (Ctrl-C stops)"
        pref = daemon.call(
            "remember",
            {"content": "Tabs, never spaces", "content_type": "preference", "scope": "global"},
        )
        fact = daemon.call("remember", {"content": "The API runs on port 8080", "scope": "global"})
        seen = w.next()
        # The preference came first but is not a fact: the first line is the fact.
        assert (seen["kind"], seen["id"], seen["content_type"]) == ("created", fact["id"], "fact")
        assert "content" not in seen, "a change names a memory, never its text"
        daemon.call("forget", {"id": pref["id"]})
        daemon.call("forget", {"id": fact["id"]})
        seen = w.next()
        assert (seen["kind"], seen["id"]) == ("forgotten", fact["id"])
    finally:
        code = w.stop()
    assert code == 0


def test_watch_prints_a_line_a_change(daemon: DaemonProc) -> None:
    w = Watcher()
    try:
        assert w.started() == "watching every memory (Ctrl-C stops)"
        made = daemon.call(
            "remember", {"content": "Releases are cut on Thursdays", "scope": "global"}
        )
        line = w.lines.get(timeout=WAIT)
        assert f"created  fact  {made['id']}  [global]" in line
    finally:
        assert w.stop() == 0


def test_watch_refuses_a_bad_filter(daemon: DaemonProc) -> None:
    r = run_cli("watch", "--type", "gossip")
    assert r.code == 2 and "invalid choice" in r.err
    r = run_cli("watch", "--scope", "global", "--scope-path", "/x")  # global has no path
    assert r.code == 2, r.err
    assert r.err.startswith("enyal watch: ") and "scope_path" in r.err

"""Case 3: malformed frames to the daemon's socket, then to enyal-mcp on stdio.

The daemon: frames go one at a time (and now and then a burst of them pipelined in
one write); each must be answered with an error object of an allowed code, carrying
its id or null (a malformed batch: an array of them, one an item); a notification must
get no answer (a valid request sent after it is answered next); a line over 1 MiB gets
-32003 and the connection is closed. The daemon must stay up, log no traceback, and the
store must be exactly as before.

The shim: after initialize, each malformed line is followed by a `ping`; what comes
back before the ping's answer is the line's answer: one error object (or, for a tool
call whose arguments the tool's schema refuses, a result marked isError: MCP 2025-11-25,
SEP-1303), or nothing for a notification or a response. It must answer a last ping
and exit 0 on EOF.
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from enyal_protocol import wire as p

from .badframes import ANY, HELLO, DaemonFrames, Frame, McpFrames, generate
from .harness import (
    Daemon,
    RawConn,
    Row,
    check_db,
    home_env,
    log,
    logged_faults,
    snapshot,
    track,
)

READ_TIMEOUT = 30.0
SEED_ENTRIES = [
    ("The primary database is PostgreSQL 16", "fact"),
    ("Use ruff to lint and format Python code", "convention"),
    ("Deploys go out every Tuesday afternoon", "decision"),
    ("Prefer small pull requests over big rewrites", "preference"),
    ("Retry flaky network calls with exponential backoff", "pattern"),
]
CODE_NAMES = {
    getattr(p, n): n
    for n in dir(p)
    if n.isupper() and isinstance(getattr(p, n), int) and -32800 < getattr(p, n) < -32000
}


def show(data: bytes, n: int = 90) -> str:
    text = repr(data[:n])
    return text + (f"… ({len(data)} bytes)" if len(data) > n else "")


def judge(line: bytes, f: Frame) -> tuple[str | None, int | None]:
    """(what is wrong with this answer to `f`, or None; its error code)."""
    try:
        msg = json.loads(line)
    except ValueError:
        return f"answer is not JSON: {show(line)}", None
    if f.expect == "errors":
        return _errors(msg, line, f)
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or "id" not in msg:
        return f"answer is not a JSON-RPC 2.0 response: {show(line)}", None
    if "result" in msg:
        if f.expect == "tool-error":
            return _tool_error(msg, line, f)
        return f"answered with a result: {show(line)}", None
    err = msg.get("error")
    if not (
        isinstance(err, dict)
        and isinstance(err.get("code"), int)
        and isinstance(err.get("message"), str)
        and err["message"]
    ):
        return f"malformed error object: {show(line)}", None
    code = err["code"]
    if f.rid is not ANY and msg["id"] is not None and msg["id"] != f.rid:
        return f"answer carries id {msg['id']!r}, the frame {f.rid!r}", code
    if code not in f.codes:
        want = "/".join(CODE_NAMES.get(c, str(c)) for c in sorted(f.codes))
        got = CODE_NAMES.get(code, str(code))
        return f"code {got} ({err['message'][:120]!r}), expected {want}", code
    return None, code


def _errors(msg: Any, line: bytes, f: Frame) -> tuple[str | None, int | None]:
    """A batch's answer: an array of `f.items` error responses, each of `f.codes`."""
    if not isinstance(msg, list) or len(msg) != f.items:
        return f"answer is not an array of {f.items} responses: {show(line)}", None
    each = Frame(f.kind, f.data, "error", f.codes, ANY)
    codes = [judge(json.dumps(item).encode(), each) for item in msg]
    problem = next((why for why, _ in codes if why is not None), None)
    return problem, codes[0][1]


def _tool_error(msg: dict[str, Any], line: bytes, f: Frame) -> tuple[str | None, int | None]:
    """A tool call's arguments refused as MCP 2025-11-25 says (SEP-1303): a result marked
    isError whose text says why, under the frame's id."""
    result = msg["result"]
    blocks = result.get("content") if isinstance(result, dict) else None
    said = isinstance(blocks, list) and any(
        isinstance(b, dict) and isinstance(b.get("text"), str) and b["text"] for b in blocks
    )
    if not (isinstance(result, dict) and result.get("isError") is True and said):
        return f"answered with a result that is no tool error: {show(line)}", None
    if f.rid is not ANY and msg["id"] != f.rid:
        return f"answer carries id {msg['id']!r}, the frame {f.rid!r}", None
    return None, None


class Tally:
    def __init__(self, row: Row) -> None:
        self.row = row
        self.codes: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.dropped = 0
        self.closed = 0
        self.bursts = 0

    def bad(self, f: Frame, what: str) -> None:
        self.row.problem("errors", f"{f.kind} frame {show(f.data, 60)}: {what}")

    def answered(self, f: Frame, line: bytes) -> None:
        problem, code = judge(line, f)
        if code is not None:
            self.codes[CODE_NAMES.get(code, str(code))] += 1
        elif problem is None:
            self.codes["isError"] += 1
        if problem:
            self.bad(f, problem)


# --- the daemon ----------------------------------------------------------------------------


def sentinel(n: int) -> tuple[bytes, str]:
    sid = f"sentinel-{n}"
    return json.dumps({"jsonrpc": "2.0", "method": "stats", "id": sid}).encode() + b"\n", sid


def is_answer_to(line: bytes | None, sid: str) -> bool:
    if line is None:
        return False
    try:
        msg = json.loads(line)
    except ValueError:
        return False
    return isinstance(msg, dict) and msg.get("id") == sid and "result" in msg


class DaemonDriver:
    def __init__(self, d: Daemon, tally: Tally, rng: random.Random) -> None:
        self.d, self.tally, self.rng = d, tally, rng
        self.conn = RawConn(d.paths.socket, READ_TIMEOUT)
        self.n = 0

    def reconnect(self) -> None:
        self.conn.close()
        self.conn = RawConn(self.d.paths.socket, READ_TIMEOUT)

    def read(self, f: Frame) -> bytes | None:
        try:
            return self.conn.read_line()
        except TimeoutError:
            self.tally.bad(f, f"no answer in {READ_TIMEOUT:.0f} s")
            return None

    def one(self, f: Frame) -> None:
        t = self.tally
        t.kinds[f.kind] += 1
        try:
            self.conn.send(f.data + b"\n")
        except OSError as exc:
            if f.expect != "oversize":
                t.bad(f, f"the daemon stopped reading: {exc}")
                self.reconnect()
                return
        if f.expect == "oversize":
            line = self.read(f)
            if line is not None:
                t.answered(f, line)
                if self.read(f) is not None:
                    t.bad(f, "the connection stayed open after an oversize frame")
            t.closed += 1
            self.reconnect()
            return
        if f.expect == "drop":
            self.n += 1
            probe, sid = sentinel(self.n)
            self.conn.send(probe)
            line = self.read(f)
            if not is_answer_to(line, sid):
                t.bad(f, f"a notification was answered: {show(line or b'(closed)')}")
                self.reconnect()
                return
            t.dropped += 1
            return
        line = self.read(f)
        if line is None:
            t.bad(f, "the daemon closed the connection instead of answering")
            self.reconnect()
            return
        t.answered(f, line)
        if judge(line, f)[0] is not None:
            self.reconnect()  # out of step, maybe: start afresh

    def burst(self, frames: list[Frame]) -> None:
        """Pipelined: all written at once; answers may come in any order."""
        t = self.tally
        t.bursts += 1
        for f in frames:
            t.kinds[f.kind] += 1
        self.conn.send(b"".join(f.data + b"\n" for f in frames))
        lines = []
        for f in frames:
            line = self.read(f)
            if line is None:
                t.bad(f, "no answer in a pipelined burst")
                self.reconnect()
                return
            lines.append(line)
        remaining = list(frames)
        for line in lines:
            try:
                rid = json.loads(line).get("id")
            except (ValueError, AttributeError):
                t.bad(frames[0], f"burst answer is not a JSON object: {show(line)}")
                continue
            # A null id may answer any frame of the burst: judge it against the likeliest.
            pool = [x for x in remaining if rid is None or x.rid is ANY or x.rid == rid]
            if not pool:
                t.bad(frames[0], f"burst answer for an id nobody sent: {show(line)}")
                continue
            f = next((x for x in pool if judge(line, x)[0] is None), pool[0])
            remaining.remove(f)
            t.answered(f, line)


def run_daemon(row: Row, d: Daemon, count: int, rng: random.Random) -> None:
    frames = generate(DaemonFrames(rng), count)
    tally = Tally(row)
    driver = DaemonDriver(d, tally, rng)
    i = 0
    started = time.monotonic()
    while i < len(frames):
        if rng.random() < 0.04:
            group: list[Frame] = []
            while (
                i < len(frames) and len(group) < rng.randint(2, 16) and frames[i].expect == "error"
            ):
                group.append(frames[i])
                i += 1
            if group:
                driver.burst(group)
                continue
        driver.one(frames[i])
        i += 1
        if not d.alive():
            row.problem("crashes", f"the daemon died after {show(frames[i - 1].data)}")
            return
    driver.conn.close()
    row.runs = len(frames)
    took = time.monotonic() - started
    top = ", ".join(f"{n} {c}" for c, n in tally.codes.most_common(4))
    row.note(
        f"{len(frames)} frames in {took:.2f} s ({len(tally.kinds)} kinds, {tally.bursts} "
        f"pipelined bursts): {top}; {tally.dropped} notifications unanswered; "
        f"{tally.closed} oversize → -32003 + close"
    )
    row.details["codes"] = dict(tally.codes)
    row.details["kinds"] = dict(tally.kinds)


# --- the MCP shim --------------------------------------------------------------------------


class Shim:
    def __init__(self, env: dict[str, str], cwd: Path, log_path: Path) -> None:
        exe = Path(sys.executable).parent / "enyal-mcp"
        self.log_path = log_path
        with log_path.open("ab") as err:
            self.proc = track(
                subprocess.Popen(
                    [str(exe)],
                    env=env,
                    cwd=cwd,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=err,
                )
            )
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.inbox.put(line.rstrip(b"\n"))
        self.inbox.put(None)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def until(self, sid: str, timeout: float = READ_TIMEOUT) -> tuple[str, list[bytes]]:
        """("ok", the lines that came before the answer to request `sid`), or ("eof", …)
        if stdout closed first, or ("timeout", …)."""
        before: list[bytes] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return "timeout", before
            if line is None:
                self.inbox.put(None)  # stays at EOF
                return "eof", before
            if is_answer_to(line, sid):
                return "ok", before
            before.append(line)

    def close(self) -> int | None:
        try:
            if self.proc.stdin is not None and not self.proc.stdin.closed:
                self.proc.stdin.close()
            return self.proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self.reader.join(10)
            if self.proc.stdout is not None:
                self.proc.stdout.close()


def ping(n: int) -> tuple[bytes, str]:
    sid = f"ping-{n}"
    return json.dumps({"jsonrpc": "2.0", "id": sid, "method": "ping"}).encode(), sid


def open_shim(env: dict[str, str], root: Path) -> Shim | None:
    """enyal-mcp, initialized; None if it does not get that far."""
    shim = Shim(env, root, root / "enyal-mcp.log")
    hello = {**HELLO, "protocolVersion": "2025-11-25"}
    shim.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                          "params": hello}).encode())  # fmt: skip
    shim.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    probe, sid = ping(0)
    shim.send(probe)
    if shim.until(sid)[0] != "ok":
        shim.close()
        return None
    return shim


def run_mcp(row: Row, env: dict[str, str], root: Path, count: int, rng: random.Random) -> None:
    frames = generate(McpFrames(rng), count)
    tally = Tally(row)
    started = time.monotonic()
    shim = open_shim(env, root)
    if shim is None:
        row.problem("crashes", "enyal-mcp did not answer initialize and a ping")
        return
    restarts = 0
    try:
        for n, f in enumerate(frames, 1):
            row.runs += 1
            tally.kinds[f.kind] += 1
            probe, sid = ping(n)
            try:
                shim.send(f.data)
                shim.send(probe)
                status, before = shim.until(sid)
            except OSError:
                status, before = "eof", []
            if status != "ok":
                if status == "eof":
                    code = shim.close()
                    row.problem("crashes", f"enyal-mcp exited ({code}) on {f.kind} {show(f.data)}")
                else:
                    shim.proc.kill()
                    shim.close()
                    row.problem("crashes", f"enyal-mcp hung on {f.kind} {show(f.data)}: killed")
                restarts += 1
                reopened = open_shim(env, root)  # and carry on with a new one
                if reopened is None:
                    row.problem("crashes", "enyal-mcp does not start again")
                    return
                shim = reopened
                continue
            if f.expect == "drop":
                if before:
                    tally.bad(f, f"a notification or response was answered: {show(before[0])}")
                else:
                    tally.dropped += 1
                continue
            if len(before) != 1:
                tally.bad(f, f"{len(before)} answers instead of one: {before[:2]!r}"[:300])
                continue
            tally.answered(f, before[0])
            if f.expect == "oversize":
                tally.closed += 1
        final, sid = ping(len(frames) + 1)
        shim.send(final)
        if shim.until(sid)[0] != "ok":
            row.problem("crashes", "enyal-mcp does not answer the final ping")
    finally:
        code = shim.close()
        if code != 0:
            row.problem("errors", f"enyal-mcp exited with {code} on EOF, not 0")
        text = shim.log_path.read_text(errors="replace")
        for fault in logged_faults(text):
            row.problem("errors", f"enyal-mcp {fault}")
    took = time.monotonic() - started
    top = ", ".join(f"{n} {c}" for c, n in tally.codes.most_common(4))
    row.note(
        f"{len(frames)} lines in {took:.1f} s ({len(tally.kinds)} kinds): {top}; "
        f"{tally.dropped} notifications/responses dropped; {tally.closed} oversize → -32003, "
        "served on"
    )
    if restarts:
        row.note(f"enyal-mcp died {restarts} times (restarted each time to go on)")
        row.note("then: final ping answered, exit 0 on EOF")
    else:
        row.note("final ping answered, exit 0 on EOF")
    row.details["codes"] = dict(tally.codes)
    row.details["kinds"] = dict(tally.kinds)


# --- both ---------------------------------------------------------------------------------


def run(rows: list[Row], root: Path, count: int, rng: random.Random) -> None:
    env = home_env(root / "home")
    d = Daemon(env, root / "daemon.log").start()
    try:
        ids = []
        for text, kind in SEED_ENTRIES:
            res = d.call("remember", {"content": text, "content_type": kind, "scope": "global"})
            ids.append(res["id"])
        d.call("update", {"id": ids[0], "content": "The primary database is PostgreSQL 17"})
        d.call("link", {"source_id": ids[1], "target_id": ids[0], "edge_type": "depends_on"})
        d.call("forget", {"id": ids[4]})
        for target, run_one in (
            (rows[0], lambda: run_daemon(rows[0], d, count, rng)),
            (rows[1], lambda: run_mcp(rows[1], env, root, count, rng)),
        ):
            before = snapshot(d.call)
            counts = check_db(d.paths.db)
            run_one()
            if not d.alive():
                if target.crashes == 0:
                    target.problem("crashes", f"the daemon died: {d.log_tail()}")
                return
            if d.call("status", {})["pid"] != d.pid:
                target.problem("crashes", "another daemon answers")
            after = snapshot(d.call)
            if after != before:
                changed = len(set(before) ^ set(after))
                target.problem("lost", f"the store changed: {changed} lines differ")
                target.bad_integrity("store changed")
            check = check_db(d.paths.db)
            for problem in check.problems:
                target.bad_integrity(problem)
            if (check.entries, check.vectors, check.fts) != (
                counts.entries,
                counts.vectors,
                counts.fts,
            ):
                target.bad_integrity("row counts changed")
            target.note(f"store unchanged ({len(before)} export lines, rows {check.entries}×3)")
            log(f"[{target.case}] {target.runs} frames, {target.errors} unexpected")
    finally:
        code = d.stop()
        if code != 0:
            rows[0].problem("errors", f"SIGTERM at the end: exit {code}")
        for fault in logged_faults(d.log_text()):
            rows[0].problem("errors", f"daemon {fault}")

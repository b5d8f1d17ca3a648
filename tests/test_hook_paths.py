"""The three ways a hook event reaches Enyal (issue 29) answer alike: `enyal hook EVENT`
(a process), the enyal_hook tool of a running enyal-mcp (Claude Code's mcp_tool hook)
and the daemon's loopback endpoint (Claude Code's http hook) give the same hook JSON for
the same recorded input. The endpoint is off by default, and refuses a wrong token, a
wrong Host and a browser's Origin while changing nothing. One daemon and one shim for
the module."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN
from daemon_support import RunningDaemon, isolated_env, launch_env
from enyal_client.commands.hooks import mcp_input
from enyal_client.hook_rpc import HookConnection
from enyal_protocol import config
from enyal_protocol.hooks.answer import FIELDS, answer, answered_alone
from enyal_protocol.hooks.token import hook_token
from enyal_protocol.paths import places, resolve
from test_session_hooks import FAILURE, fixture

ROOT = Path(__file__).resolve().parent.parent
# The recorded inputs of the events that may come over MCP or HTTP, by `enyal hook` verb.
CASES = {
    "prompt-submit": "prompt-submit",
    "pre-tool-use": "pre-tool-use",
    "post-tool-use": "post-tool-use",
    FAILURE: "post-tool-use",
    "subagent-start": "subagent-start",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def substituted(template: dict[str, str], data: dict[str, Any]) -> dict[str, str]:
    """What Claude Code (2.1.197) passes an mcp_tool hook: each `${path}` of a string
    filled from the hook input, an object as JSON text, a missing one as ""."""

    def fill(m: re.Match[str]) -> str:
        value: Any = data
        for part in m.group(1).split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return ""
        return json.dumps(value, separators=(",", ":")) if isinstance(value, dict) else str(value)

    return {k: re.sub(r"\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}", fill, v) for k, v in template.items()}


class Shim:
    """enyal-mcp over pipes, initialized: tools/call in, the result out."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "enyal-mcp")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        self.ids = 0
        hello = {"capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        self.ask("initialize", {**hello, "protocolVersion": "2025-06-18"})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.ids:
                return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@dataclass
class Served:
    d: RunningDaemon
    env: dict[str, str]
    project: Path
    port: int
    token: str
    shim: Shim

    def command(self, verb: str, data: dict[str, Any]) -> Any:
        r = subprocess.run(
            [str(BIN / "enyal"), "hook", verb],
            input=json.dumps(data),
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def mcp(self, verb: str, data: dict[str, Any]) -> Any:
        args = substituted(mcp_input(verb), data)
        reply = self.shim.ask("tools/call", {"name": "enyal_hook", "arguments": args})
        result = reply["result"]
        assert not result.get("isError"), result
        (block,) = result["content"]
        return json.loads(block["text"])

    def post(
        self, path: str, body: bytes, headers: dict[str, str] | None = None, method: str = "POST"
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        conn.request(method, path, body=body, headers={**sent, **(headers or {})})
        reply = conn.getresponse()
        text = reply.read()
        conn.close()
        return reply.status, json.loads(text) if text else None

    def http(self, verb: str, data: dict[str, Any]) -> Any:
        status, out = self.post(f"/hook/{verb}", json.dumps(data).encode())
        assert status == 200, out
        return out


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("hookpaths")
    project = root / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    port = free_port()
    env = isolated_env(root / "home")
    env |= {"HOME": str(root / "user"), "ENYAL_HOOKS_HTTP": "1"}
    env["ENYAL_HOOKS_HTTP_PORT"] = str(port)
    d = launch_env(env)
    shim = Shim(env, project)
    try:
        assert d.paths.home is not None
        yield Served(d, env, project, port, hook_token(d.paths), shim)
    finally:
        shim.close()
        d.stop()
    assert "Traceback" not in d.log.text(), d.log.text()


def test_each_path_gives_the_same_answer(served: Served) -> None:
    cwd = str(served.project)
    (served.project / "src" / "billing.py").write_text("def invoice(): ...\n")
    for text, kind in (
        ("Lint with ruff, line length 100.", "convention"),
        (
            "sqlite3.OperationalError database is locked in the billing tests: a leftover "
            "pytest process holds the file; kill it.",
            "pattern",
        ),
    ):
        served.d.call("remember", {"content": text, "content_type": kind, "cwd": cwd})
    billing = str(served.project / "src" / "billing.py")
    served.d.call(
        "remember",
        {
            "content": "billing.py rounds invoice totals half-even, as the tax office requires.",
            "scope": "file",
            "scope_path": billing,
            "cwd": cwd,
        },
    )
    served.d.call("log_append", {"text": "billing.py: split invoice() in two", "cwd": cwd})
    for name, verb in CASES.items():
        # A brief's header says the minute it was made: three answers that straddle a
        # minute's turn differ there alone (a CI run's flake), so they are asked again.
        for attempt in range(3):
            minute = time.strftime("%Y-%m-%d %H:%M")
            answers = {}
            for path in ("command", "mcp", "http"):
                # A session of its own per path: what one was shown is not shown it again.
                data = fixture(name, served.project, session_id=f"{path}-{name}-{attempt}")
                answers[path] = getattr(served, path)(verb, data)
            if time.strftime("%Y-%m-%d %H:%M") == minute:
                break
        assert answers["command"], f"{name}: the fixture should bring something back"
        assert answers["mcp"] == answers["command"] == answers["http"], name
        # And the session state is the same one: asked again, nothing is repeated.
        again = fixture(name, served.project, session_id=f"command-{name}-{attempt}")
        assert served.mcp(verb, again) == served.http(verb, again) == {}, name


def test_a_write_after_a_hook_is_seen_by_the_next(served: Served) -> None:
    """The daemon remembers what a hook asked the model (token counts, a query's vector:
    embedder/memo.py), never what the store answered: a memory written between two hooks
    of the same input is in the second's answer, on every path."""
    cwd = str(served.project)
    ledger = served.project / "src" / "ledger.py"
    ledger.write_text("def post(): ...\n")
    read = {"tool_input": {"file_path": str(ledger)}}
    for path in ("command", "mcp", "http"):
        ask = getattr(served, path)
        before = ask(
            "pre-tool-use",
            fixture("pre-tool-use", served.project, **read, session_id=f"{path}-write-1"),
        )
        note = f"ledger.py posts entries in batches of {len(path)}00 ({path})."
        served.d.call(
            "remember", {"content": note, "scope": "file", "scope_path": str(ledger), "cwd": cwd}
        )
        after = ask(
            "pre-tool-use",
            fixture("pre-tool-use", served.project, **read, session_id=f"{path}-write-2"),
        )
        assert note not in json.dumps(before) and note in json.dumps(after), path
        brief = ask(
            "subagent-start", fixture("subagent-start", served.project, agent_id=f"{path}-a1")
        )
        rule = f"Every ledger change is reviewed by two people ({path})."
        served.d.call(
            "remember", {"content": rule, "content_type": "convention", "importance": 5, "cwd": cwd}
        )
        again = ask(
            "subagent-start", fixture("subagent-start", served.project, agent_id=f"{path}-a2")
        )
        assert rule not in json.dumps(brief) and rule in json.dumps(again), path


class Counted:
    """The command hook's own connection to the daemon, each method it asks noted."""

    def __init__(self, served: Served) -> None:
        self.conn = HookConnection(places(served.env), autostart=False)
        self.asked: list[str] = []

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(method)
        return self.conn.call(method, params)


def test_a_hook_asks_the_daemon_once_per_search(served: Served) -> None:
    """Issue 29: the recall and what the session was shown of it in one round trip
    (recall's session_id and lines_about), not a recall and then session_seen; a file's
    hook first asks whether the session saw the file at all, which spares the search."""
    something_to_recall(served)
    cwd = str(served.project)
    (served.project / "src" / "billing.py").write_text("def invoice(): ...\n")
    locked = "sqlite3.OperationalError database is locked: a leftover pytest holds the file."
    served.d.call("remember", {"content": locked, "content_type": "pattern", "cwd": cwd})
    billing = {"content": "billing.py rounds half-even.", "scope": "file", "cwd": cwd}
    billing["scope_path"] = str(served.project / "src" / "billing.py")
    served.d.call("remember", billing)
    trips = {
        "prompt-submit": ["recall"],
        FAILURE: ["recall"],
        "pre-tool-use": ["session_seen", "recall_by_scope"],
    }
    for name, asked in trips.items():
        verb = CASES[name]
        data = fixture(name, served.project, session_id=f"trips-{name}")
        c = Counted(served)
        try:
            assert answer(c, verb, data), name  # something was found, and shown
            assert c.asked == asked, name
            c.asked.clear()
            assert answer(c, verb, data) == {}, name  # shown once: not again
            assert c.asked == asked[:1], name
        finally:
            c.conn.close()


def test_an_error_of_any_size_is_asked_about(served: Served) -> None:
    """The error's words go to the daemon as recall's lines_about: a word of any length,
    and at most the 1,000 the field holds, so no error printed makes the hook fail."""
    huge = (
        "Exit code 1\nFAILED "
        + "a" * 5000  # sorts first: among the 1,000 words sent
        + "\nError: "
        + " ".join(f"word{i:04d}" for i in range(1500))
    )
    for path in ("command", "mcp", "http"):
        data = fixture(FAILURE, served.project, session_id=f"huge-{path}", error=huge)
        assert isinstance(getattr(served, path)("post-tool-use", data), dict), path


# What the command hook's process must not import (issue 29: ≤ 50 ms, "a client path
# that imports no more than it needs"): msgspec and what it pulls in, the CLI's parser,
# dataclasses (which imports inspect) and tempfile (docs/ARCHITECTURE.md, "Client start-up").
NOT_IN_A_HOOK = ("msgspec", "typing_extensions", "argparse", "enyal_protocol.wire")
NOT_IN_A_HOOK += ("dataclasses", "inspect", "tempfile")
# typing (records.py) and socket.py's enums (reach.py): 17 and 14 M instructions of 124.
NOT_IN_A_HOOK += ("typing", "socket")
# pathlib, and urllib.parse which it imports: 17.7 M (enyal_protocol/str_paths.py).
NOT_IN_A_HOOK += ("pathlib", "urllib")
NOT_IN_A_HOOK += ("struct",)  # the peer's credentials are read with int.from_bytes (peercred.py)
# collections.namedtuple and what it imports: records.py builds its records itself.
NOT_IN_A_HOOK += ("collections", "operator", "reprlib", "keyword")


def test_the_command_hook_imports_no_msgspec(served: Served) -> None:
    """`enyal hook prompt-submit` as the installed console script runs it (its entry point
    read from pyproject.toml; the shared venv's script may predate it), with
    `-X importtime`: every module the process imported is listed, the daemon's answer
    included, and none of NOT_IN_A_HOOK is. With -S and this tree's client folder on
    PYTHONPATH: an editable install's finder, run by site, imports pathlib before any of
    our code (a regular install has none), and the hook needs nothing from site-packages."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, func = scripts["enyal"].split(":")
    launcher = f"import sys\nfrom {module} import {func}\nsys.exit({func}())"
    cwd = str(served.project)
    text = "Invoices are rounded half-even in the billing module, as the tax office requires."
    served.d.call("remember", {"content": text, "cwd": cwd})
    data = fixture("prompt-submit", served.project, session_id="imports")
    data["prompt"] = "how are invoices rounded in billing?"
    env = served.env | {"PYTHONPATH": str(ROOT / "client")}
    r = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", launcher, "hook", "prompt-submit"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "half-even" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert not imported & set(NOT_IN_A_HOOK), sorted(imported & set(NOT_IN_A_HOOK))
    assert "enyal_protocol.hooks.inject" in imported, "the listing is of the hook's own path"


def test_the_command_hook_checks_which_database_answers(served: Served, tmp_path: Path) -> None:
    """The command hook's own connection (hook_rpc.py) sends what transport.py's first
    request sends: a daemon serving another database refuses it, and the hook says so
    (exit 1, never 2) instead of answering from another home's memories."""
    other = tmp_path / "other-home"
    env = served.env | {"ENYAL_HOME": str(other), "ENYAL_SOCKET": str(served.d.paths.socket)}
    data = fixture("prompt-submit", served.project, session_id="other-db")
    r = subprocess.run(
        [str(BIN / "enyal"), "hook", "prompt-submit"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert (r.returncode, r.stdout) == (1, ""), r
    assert "serves the database" in r.stderr and str(other / "enyal.db") in r.stderr, r.stderr
    assert not (other / "enyal.db").exists()


def something_to_recall(served: Served) -> None:
    """What the recorded prompt ("How do we lint here?") recalls, stored by the test that
    needs it and not left to an earlier test of the module: run alone (-k, a rerun of a
    failure), "nothing was recorded" found an empty store, whose {} it cannot tell apart."""
    lint = {"content": "Lint with ruff, line length 100.", "content_type": "convention"}
    served.d.call("remember", {**lint, "cwd": str(served.project)})


def test_the_endpoint_refuses_and_changes_nothing(served: Served) -> None:
    something_to_recall(served)
    data = fixture("prompt-submit", served.project, session_id="refused")
    body = json.dumps(data).encode()
    host = f"127.0.0.1:{served.port}"
    refusals = [
        ("/hook/prompt-submit", {"Authorization": "Bearer " + "x" * 43}, "POST", 403),
        ("/hook/prompt-submit", {"Authorization": ""}, "POST", 403),
        ("/hook/prompt-submit", {"Host": "attacker.example"}, "POST", 403),
        ("/hook/prompt-submit", {"Host": f"evil.example:{served.port}"}, "POST", 403),
        ("/hook/prompt-submit", {"Origin": f"http://{host}"}, "POST", 403),
        ("/hook/session-start", {}, "POST", 404),
        ("/hook/prompt-submit", {}, "GET", 405),
    ]
    for path, headers, method, status in refusals:
        got, out = served.post(path, body, headers, method)
        assert got == status and out["error"], (path, headers, got, out)
    assert served.post("/hook/prompt-submit", b"{not json")[0] == 400
    assert served.post("/hook/prompt-submit", body, {"X-Pad": "a" * 20_000})[0] == 400
    assert served.post("/hook/prompt-submit", body, {"Content-Length": "999999999"})[0] == 413
    assert served.post("/hook/prompt-submit", b"[]")[0] == 400
    for raw in (b"GARBAGE\r\n\r\n", b"\xff\xfe\r\n\r\n", b"POST /hook/stop"):
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as s:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)  # an incomplete request, then nothing more
            assert s.recv(100).startswith(b"HTTP/1.1 4"), raw
    no_cwd = {k: v for k, v in data.items() if k != "cwd"}
    assert served.post("/hook/prompt-submit", json.dumps(no_cwd).encode())[0] == 400
    # Nothing was recorded for the refused session: its first real ask still shows.
    assert served.http("prompt-submit", data) != {}
    assert served.d.call("status")["pid"] == served.d.proc.proc.pid


def test_the_auth_scheme_is_case_insensitive(served: Served) -> None:
    """RFC 9110 §11.1: the scheme is case-insensitive (`bearer`, `BEARER`), the token is
    not: it stays an exact compare."""
    data = fixture("pre-tool-use", served.project, tool_name="Glob", session_id="scheme")
    body = json.dumps(data).encode()
    for scheme in ("bearer", "BEARER", "BeArEr"):
        auth = {"Authorization": f"{scheme} {served.token}"}
        assert served.post("/hook/pre-tool-use", body, auth) == (200, {}), scheme
    for wrong in (f"Basic {served.token}", f"Bearer {served.token.swapcase()}", served.token):
        got, out = served.post("/hook/pre-tool-use", body, {"Authorization": wrong})
        assert got == 403 and out["error"], wrong


def test_the_shim_refuses_bad_hook_arguments(served: Served) -> None:
    bad = [{"event": "session-start", "cwd": "/"}, {"event": "prompt-submit", "cwd": 3}]
    bad += [{"event": "prompt-submit", "cwd": "/", "command": "x"}]
    for args in bad:
        reply = served.shim.ask("tools/call", {"name": "enyal_hook", "arguments": args})
        assert reply["error"]["code"] == -32602, reply
    # Input the event cannot use is a tool error (Claude Code: a non-blocking error).
    args = {"event": "prompt-submit", "cwd": str(served.project)}
    result = served.shim.ask("tools/call", {"name": "enyal_hook", "arguments": args})["result"]
    assert result["isError"] and "no prompt" in result["content"][0]["text"]
    listed = served.shim.ask("tools/list", {})["result"]["tools"]
    assert "enyal_hook" not in {t["name"] for t in listed}, "not offered to the agent"


class NoDaemon:
    """A Caller for input answered alone: any call is a failure of the test."""

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError(f"{method} was called for an event answered alone")


def test_what_is_answered_alone_needs_no_daemon(tmp_path: Path, monkeypatch: Any) -> None:
    """answered_alone (what the shim and the endpoint answer where they read it) holds
    for the tools that touch no file before and the tools other than Bash after, each
    then `{}` with no call; never for a file's PreToolUse or a command's failure."""
    monkeypatch.setenv("ENYAL_HOME", str(tmp_path / "home"))
    alone = [
        ("pre-tool-use", {"tool_name": "Glob"}),
        ("pre-tool-use", {"tool_name": "mcp__x__y"}),
        ("pre-tool-use", {"tool_input": {"command": "ls"}}),  # a Read of no file_path
        ("post-tool-use", {"tool_name": "Read"}),
        (FAILURE, {"tool_name": "Edit"}),
    ]
    for name, over in alone:
        data = fixture(name, tmp_path, **over)
        verb = CASES[name]
        assert answered_alone(verb, data), (name, over)
        assert answer(NoDaemon(), verb, data) == {}, (name, over)
    for name in CASES:  # the recorded inputs: a file read, a failed command, a prompt...
        assert not answered_alone(CASES[name], fixture(name, tmp_path)), name


def test_a_hook_answered_alone_waits_for_no_call(served: Served) -> None:
    """The shim answers a PreToolUse of a tool touching no file where it reads it: while
    every call worker waits on a daemon that does not answer (stopped here), it is still
    answered at once (it queued behind them before)."""
    from enyal_client.mcp.server import CALL_WORKERS

    shim = served.shim
    assert shim.proc.stdout is not None
    pid = served.d.proc.proc.pid
    waiting = []
    os.kill(pid, signal.SIGSTOP)
    try:
        for n in range(CALL_WORKERS):
            data = fixture("prompt-submit", served.project, session_id=f"waiting-{n}")
            args = substituted(mcp_input("prompt-submit"), data)
            shim.ids += 1
            waiting.append(shim.ids)
            params = {"name": "enyal_hook", "arguments": args}
            shim.send({"jsonrpc": "2.0", "id": shim.ids, "method": "tools/call", "params": params})
        data = fixture("pre-tool-use", served.project, tool_name="Glob", session_id="alone")
        args = substituted(mcp_input("pre-tool-use"), data)
        shim.ids += 1
        params = {"name": "enyal_hook", "arguments": args}
        shim.send({"jsonrpc": "2.0", "id": shim.ids, "method": "tools/call", "params": params})
        ready, _, _ = select.select([shim.proc.stdout], [], [], 10)
        assert ready, "the hook answered alone waited behind the calls to the daemon"
        reply = json.loads(shim.proc.stdout.readline())
        assert reply["id"] == shim.ids and reply["result"]["content"][0]["text"] == "{}"
    finally:
        os.kill(pid, signal.SIGCONT)
    answered = {json.loads(shim.proc.stdout.readline())["id"] for _ in waiting}
    assert answered == set(waiting)


def test_the_endpoint_is_off_by_default(tmp_path: Path) -> None:
    home = {"ENYAL_HOME": str(tmp_path / "home")}
    assert config.load(resolve(home), environ=home).hook_http is False
    port = free_port()
    env = isolated_env(tmp_path / "home") | {"ENYAL_HOOKS_HTTP_PORT": str(port)}
    d = launch_env(env)
    try:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        d.stop()


def test_only_the_events_with_their_fields_go_without_a_process() -> None:
    from enyal_client.commands.hooks import HOOKS, group, plugin_hooks

    hooks = plugin_hooks()["hooks"]
    for event, hook in HOOKS.items():
        (entry,) = hooks[event][0]["hooks"]
        assert entry["type"] == ("mcp_tool" if hook.verb in FIELDS else "command"), event
    for via, kind in (("mcp", "mcp_tool"), ("http", "http")):
        (entry,) = group("UserPromptSubmit", "enyal hook prompt-submit", via)["hooks"]
        assert entry["type"] == kind
    (entry,) = group("UserPromptSubmit", "x", "http")["hooks"]
    assert entry["headers"] == {"Authorization": "Bearer $ENYAL_HOOK_TOKEN"}
    assert entry["allowedEnvVars"] == ["ENYAL_HOOK_TOKEN"]
    assert entry["url"].startswith("http://127.0.0.1:") and entry["url"].endswith(
        "/hook/prompt-submit"
    )


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "enyal"), *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_the_cli_writes_each_path_and_prints_the_token(served: Served, tmp_path: Path) -> None:
    env = served.env | {"HOME": str(tmp_path / "user")}
    r = cli(env, "hooks", "token", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["token"] == served.token, "the daemon's token"
    assert cli(env, "hooks", "install").returncode == 2, "install needs --client"

    def printed(*flags: str) -> dict[str, Any]:
        args = ("hooks", "install", "--client", "claude-code", "--prompt-recall", "--print")
        r = cli(env, *args, *flags, "--json")
        assert r.returncode == 0, r.stderr
        hooks: dict[str, Any] = json.loads(r.stdout)
        return {e: g[0]["hooks"][0] for e, g in hooks["config"]["hooks"].items()}

    # auto: commands until Claude Code has the MCP server, then mcp_tool where it may.
    assert {h["type"] for h in printed().values()} == {"command"}
    (tmp_path / "user").mkdir(exist_ok=True)
    (tmp_path / "user" / ".claude.json").write_text('{"mcpServers": {"enyal": {}}}')
    auto = printed()
    assert auto["UserPromptSubmit"]["type"] == "mcp_tool"
    assert auto["UserPromptSubmit"]["server"] == "enyal"
    assert auto["SessionStart"]["type"] == "command"
    http_hooks = printed("--via", "http")
    url = http_hooks["PreToolUse"]["url"]
    assert url == f"http://127.0.0.1:{served.port}/hook/pre-tool-use", "the configured port"
    # What it wrote is what the daemon answers, given the token Claude Code would send.
    data = fixture("pre-tool-use", served.project, tool_name="Glob", session_id="cli")
    assert served.post(url.split(str(served.port))[1], json.dumps(data).encode()) == (200, {})


def test_an_event_turned_off_is_off_on_every_path(served: Served) -> None:
    """config.toml's [hooks] switch, read at each event, holds for the shim and the
    daemon's endpoint as for `enyal hook`."""
    assert served.d.paths.home is not None
    toml = served.d.paths.config_file
    something_to_recall(served)
    data = fixture("prompt-submit", served.project, session_id="off")
    toml.write_text("[hooks]\nprompt_submit = false\n")
    try:
        for path in ("command", "mcp", "http"):
            assert getattr(served, path)("prompt-submit", data) == {}, path
    finally:
        toml.unlink()
    assert served.http("prompt-submit", data) != {}, "nothing was recorded while off"


def test_claude_code_sends_its_http_hook_with_the_token(served: Served, tmp_path: Path) -> None:
    """The real Claude Code (tests/test_plugin.py's) runs the http hooks `enyal hooks
    install --via http` wrote: UserPromptSubmit fires before the login check of
    `claude -p`, and its POST carries the token from ENYAL_HOOK_TOKEN (allowedEnvVars)
    and a Host the endpoint takes: answered 200."""
    from test_plugin import CLAUDE, claude

    if not CLAUDE.exists():
        pytest.skip(f"Claude Code's CLI is not at {CLAUDE}")
    home, work = tmp_path / "user", tmp_path / "work"
    work.mkdir()
    env = served.env | {"HOME": str(home)}
    r = cli(env, "hooks", "install", "--client", "claude-code", "--via", "http", "--prompt-recall")
    assert r.returncode == 0, r.stderr
    log = tmp_path / "debug.log"
    debug = ("--debug", "hooks", "--debug-file", str(log))
    more = {"ENYAL_HOOK_TOKEN": served.token, "ENYAL_HOME": served.env["ENYAL_HOME"]}
    claude(home, "-p", "how do we lint here?", *debug, cwd=work, **more)
    text = log.read_text()
    assert f"HTTP hook POST to http://127.0.0.1:{served.port}/hook/prompt-submit" in text, text
    assert "HTTP hook response status 200" in text, text


def test_text_that_is_not_unicode_is_answered_on_every_path(served: Served) -> None:
    """JSON may escape a lone surrogate (`"\\ud800"`, half of an emoji cut in two), and a
    prompt piped from a non-UTF-8 terminal arrives as such: each path answers with the
    rest of the text (the half replaced) instead of a traceback, a 502 or a tool error."""
    for n, (field, value) in enumerate((("prompt", "lint \ud83d here"), ("cwd", None))):
        data = fixture("prompt-submit", served.project, session_id=f"surrogate-{n}")
        if value is None:  # a lone surrogate in a path: the project's own path with it
            data[field] = f"{served.project}/\udcff"
        else:
            data[field] = value
        for path in ("command", "mcp", "http"):
            assert isinstance(getattr(served, path)("prompt-submit", data), dict), path

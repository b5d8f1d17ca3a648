"""The Neovim client (client/nvim): a real headless Neovim against a real daemon.

Each test runs `nvim --headless --clean -u NONE` on a scenario in tests/nvim/ (Lua, the
`-c 'luafile …'` form that Neovim 0.7 supports). The scenario records what the user
would have seen (vim.notify messages, the labels of every picker, buffer lines, virtual
lines) in a JSON file, and the test asserts on that and on what the daemon holds.

Neovim is Debian's `neovim` package, which scripts/test installs; a missing `nvim` fails
these tests (as a missing systemd-analyze fails the service tests) rather than skipping.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN, DaemonProc, run_cli
from enyal_protocol import __version__, wire
from enyal_protocol import paths as enyal_paths

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "client" / "nvim"
SCENARIOS = Path(__file__).resolve().parent / "nvim"
ERROR, WARN, INFO = 4, 3, 2  # vim.log.levels
CHECK_ERRMSG = "if v:errmsg != '' | cquit 1 | endif"


# The lines live_refresh.lua shows after its other client's `enyal remember`, beside the
# test's own memory (test_identity runs the script too, on a file named by its place).
LIVE_AFTER = [
    "  enyal [fact] Another client says: keep this file free of globals",
    "  enyal [fact] app.py must stay import-light",
]


def stale_note(file: str) -> str:
    """An import line: a memory of `file` last changed in 2020, which review calls stale
    (file_memories.lua looks for it; test_identity runs that script too)."""
    old = {
        "content": "Old note: this module used to call the v1 API",
        "scope_level": "file",
        "scope_path": file,
        "created_at": "2020-01-02T00:00:00Z",
        "updated_at": "2020-01-02T00:00:00Z",
    }
    return json.dumps(old)


def _nvim() -> str:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.fail(
            "nvim is missing: install Debian's `neovim` package "
            "(scripts/test does with apt-get when run as root)"
        )
    return nvim


def nvim_args() -> list[str]:
    return [_nvim(), "--headless", "--clean", "-u", "NONE"]


def run_nvim(
    scenario: str, tmp_path: Path, *, cwd: Path | None = None, timeout: float = 60, **env: str
) -> dict[str, Any]:
    out = tmp_path / f"{scenario}.json"
    environ = {
        **os.environ,
        # The `enyal` a user has on PATH: the plugin starts the daemon through it.
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "ENYAL_NVIM_PLUGIN": str(PLUGIN),
        "ENYAL_NVIM_TESTS": str(SCENARIOS),
        "ENYAL_NVIM_OUT": str(out),
        **env,
    }
    p = subprocess.run(
        [*nvim_args(), "-c", f"luafile {SCENARIOS / (scenario + '.lua')}", "-c", "cquit 3"],
        env=environ,
        cwd=cwd or tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"nvim wrote no result (exit {p.returncode}): {p.stdout}{p.stderr}"
    result: dict[str, Any] = json.loads(out.read_text())
    assert p.returncode == 0, f"nvim exited {p.returncode}: {p.stderr}"
    assert "lua_error" not in result["out"], result["out"].get("lua_error")
    assert result["leaked_globals"] == [], "the plugin set Lua globals"
    for note in result["notes"]:
        assert "stack traceback" not in note["msg"] and ".lua:" not in note["msg"], note
    return result


def messages(result: dict[str, Any], level: int) -> list[str]:
    return [n["msg"] for n in result["notes"] if n["level"] == level]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / "src" / "app.py").write_text("import os\n")
    return proj


def test_remember_a_range_recall_it_open_it_and_forget_it(
    daemon: DaemonProc, project: Path, tmp_path: Path
) -> None:
    file = project / "src" / "app.py"
    r = run_nvim("remember_recall_forget", tmp_path, cwd=project, ENYAL_TEST_FILE=str(file))

    # :2,3EnyalRemember asked the type (from the protocol's content types), then the tags.
    assert r["selects"][0]["labels"] == list(wire.CONTENT_TYPES)
    assert r["inputs"][:2] == ["Tags (comma-separated, optional): ", "Recall: "]
    assert any(m.startswith("enyal: remembered ") for m in messages(r, INFO)), r["notes"]

    # The daemon holds the two lines, as a convention scoped to the file, written by the user.
    entry_id = r["out"]["entry_buffer"]["id"]
    entry = daemon.call("get", {"id": entry_id})
    assert entry["content"] == "Lint with ruff, never flake8\nFormat with ruff format too"
    assert (entry["content_type"], entry["scope_level"]) == ("convention", "file")
    assert entry["scope_path"] == str(file)
    assert entry["tags"] == ["lint", "style"]
    assert entry["written_by"] == "user"

    # The picker showed content, type, scope and score.
    label = r["selects"][1]["labels"][0]
    assert re.fullmatch(
        r"Lint with ruff, never flake8 Format with ruff format too  \[convention\] "
        r"file:src/app\.py \d\.\d\d",
        label,
    ), label

    # Choosing it opened a scratch buffer with the memory and its fields.
    buf = r["out"]["entry_buffer"]
    assert buf["name"] == f"enyal://{entry_id}"
    assert (buf["buftype"], buf["modifiable"]) == ("nofile", False)
    assert buf["lines"][:2] == entry["content"].split("\n")
    assert f"id:          {entry_id}" in buf["lines"]
    assert "tags:        lint, style" in buf["lines"]

    # gy copied the id; dd forgot it: deprecated in the daemon, and out of recall.
    assert r["out"]["register"] == entry_id
    assert daemon.call("get", {"id": entry_id})["is_deprecated"] is True
    assert any(line.startswith("forgotten:   yes") for line in r["out"]["lines_after_forget"])
    assert any(m.startswith(f"enyal: forgot {entry_id[:8]}") for m in messages(r, INFO))
    assert len(r["selects"]) == 2  # the last recall found nothing to pick
    assert 'enyal: nothing recalled for "which linter do we use"' in messages(r, INFO)


def test_file_memories_in_virtual_lines_and_in_enyal_file(
    daemon: DaemonProc, project: Path, tmp_path: Path
) -> None:
    file = str(project / "src" / "app.py")
    here = {"scope": "file", "scope_path": file}
    daemon.call("remember", {"content": "app.py must stay import-light", **here})
    daemon.call("remember", {"content": "A project-wide rule", "cwd": str(project)})
    assert daemon.call("import", {"lines": [stale_note(file)]})["stored"] == 1

    r = run_nvim("file_memories", tmp_path, cwd=project, ENYAL_TEST_FILE=file)

    before = r["out"]["virt_before"]
    assert before == [
        "  enyal [fact] app.py must stay import-light",
        "  enyal [fact] Old note: this module used to call the v1 API",
    ]
    assert r["out"]["textoff"] == 2  # the sign column
    # :write refreshed them (BufWritePost) with the memory remembered meanwhile.
    assert r["out"]["virt_after_write"][0] == (
        "  enyal [fact] The retry loop here backs off exponentially"
    )
    assert len(r["out"]["virt_after_write"]) == 3

    labels = r["selects"][0]["labels"]
    assert len(labels) == 3  # the file's three, not the project's
    assert [x for x in labels if x.endswith(" stale")] == [
        "Old note: this module used to call the v1 API  [fact] file:src/app.py stale"
    ]
    assert r["out"]["opened"][0] == "Old note: this module used to call the v1 API"


def test_enyal_brief_shows_the_project_brief(
    daemon: DaemonProc, project: Path, tmp_path: Path
) -> None:
    daemon.call("task_add", {"content": "Port the plugin to 0.10's API", "cwd": str(project)})
    r = run_nvim("brief", tmp_path, cwd=project)
    lines = r["out"]["float"]
    assert lines[0] == "# Enyal brief: proj"
    assert "## Open tasks" in lines
    assert any("Port the plugin to 0.10's API" in line for line in lines)


def test_a_remember_from_another_client_shows_up_without_a_buffer_event(
    daemon: DaemonProc, project: Path, tmp_path: Path
) -> None:
    """With virtual text on, the plugin subscribes to the daemon's changes on a second
    pipe: the CLI's remember for the open file refreshes the buffer's lines by itself."""
    file = str(project / "src" / "app.py")
    daemon.call(
        "remember",
        {"content": "app.py must stay import-light", "scope": "file", "scope_path": file},
    )

    r = run_nvim("live_refresh", tmp_path, cwd=project, ENYAL_TEST_FILE=file)

    assert r["out"]["listening"] is True, r["out"]
    assert r["out"]["virt_before"] == ["  enyal [fact] app.py must stay import-light"]
    assert r["out"]["cli_status"] == 0, r["out"]["cli"]
    assert r["out"]["buffer_events"] == 0
    assert r["out"]["virt_after"] == LIVE_AFTER


def test_without_subscribe_in_the_daemon_the_buffer_events_still_refresh(
    tmp_path: Path,
) -> None:
    sock = tmp_path / "old.sock"  # an older daemon inside Neovim: tests/nvim/live_fallback.lua
    file = str(tmp_path / "app.py")
    r = run_nvim("live_fallback", tmp_path, ENYAL_SOCKET=str(sock), ENYAL_TEST_FILE=file)
    out = r["out"]
    assert out["unsupported"] is True and out["active"] is False
    assert out["virt"] == ["  enyal [fact] a memory from an old daemon"]
    # :edit and the later BufEnter fetch (`list`); `subscribe` was asked once, never again.
    assert out["methods"] == ["list", "subscribe", "list"]
    assert not messages(r, WARN) and not messages(r, ERROR)


def test_daemon_errors_are_messages(daemon: DaemonProc, tmp_path: Path) -> None:
    r = run_nvim("errors", tmp_path)
    errors = messages(r, ERROR)
    assert len(errors) == 4, r["notes"]
    mismatch, too_long, not_found, too_large = errors
    assert mismatch.startswith(
        f"enyal: this Neovim plugin is for enyal 0.0.1-test (protocol 1) but the daemon "
        f"(pid {daemon.proc.pid}) runs enyal {__version__}"
    )
    assert "enyal daemon restart" in mismatch
    assert too_long.startswith("enyal: invalid params for recall") and "query" in too_long
    assert not_found.startswith("enyal: ") and "ffffffff" in not_found
    assert too_large == "enyal: content is 70000 bytes; the limit is 65536"
    warnings = messages(r, WARN)
    assert warnings == ["enyal: this buffer is not a file"]
    assert daemon.call("stats")["total"] == 0


@pytest.mark.usefixtures("autostarted")
def test_no_daemon_the_plugin_starts_one(home: Path, project: Path, tmp_path: Path) -> None:
    socket = enyal_paths.resolve().socket
    assert not socket.exists()
    r = run_nvim("autostart", tmp_path, cwd=project)
    assert r["out"] == {"connected_before": False, "connected_after": True}
    assert any(m.startswith("enyal: remembered ") for m in messages(r, INFO)), r["notes"]
    listed = run_cli("list", "--json")
    assert listed.code == 0, listed.err
    (entry,) = listed.json()["entries"]
    assert entry["content"] == "Deploys go through the staging branch first"
    assert (entry["content_type"], entry["tags"]) == ("decision", ["deploy"])
    # The bang: project scope, resolved by the daemon from the cwd sent (the .git folder).
    assert (entry["scope_level"], entry["scope_path"]) == ("project", str(project))


def test_no_daemon_and_no_way_to_start_one_is_a_clear_message(tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "enyal")
    r = run_nvim("cannot_start", tmp_path, ENYAL_TEST_MISSING=missing)
    assert messages(r, ERROR) == [
        f"enyal: no Enyal daemon answers and `{missing}` is not an executable on PATH to "
        "start one (install Enyal, or set require('enyal').setup({ cmd = { '/path/to/enyal' } }))",
        'enyal: `sh -c echo "the model is missing" >&2; exit 3 sh status --json` could not '
        "start the daemon (exit status 3): the model is missing",
    ]


def test_framing_ids_and_retries(tmp_path: Path) -> None:
    sock = tmp_path / "fake.sock"  # a server inside Neovim: see tests/nvim/framing.lua
    r = run_nvim("framing", tmp_path, ENYAL_SOCKET=str(sock))
    out = r["out"]
    assert "first_err" not in out
    assert out["results"] == [
        {"n": 1},
        {"n": 2, "text": "é, 中文 and a \\n: \n"},
        {"n": 3},
        {"n": 4},
    ]
    assert out["stopping"] == {"n": "stopping"}
    first, second, third = ([json.loads(line) for line in c] for c in out["received"])
    db = str(enyal_paths.resolve().db)  # the database the plugin's environment means
    expect = {"version": __version__, "protocol": wire.PROTOCOL_VERSION, "db": db}
    # The request the first connection hung up on went again, on a new connection; each
    # connection's first request carries enyal_expect, and only that one.
    assert [(q["method"], q["params"], q.get("enyal_expect")) for q in first] == [
        ("echo", {"n": 1}, expect)
    ]
    assert [(q["params"]["n"], q.get("enyal_expect")) for q in second] == [
        (1, expect),
        ("stopping", None),
    ]
    assert [(q["params"]["n"], q.get("enyal_expect")) for q in third] == [
        ("stopping", expect),
        (2, None),
        (3, None),
        (4, None),
    ]
    assert all(q["jsonrpc"] == "2.0" for q in first + second + third)
    assert len({q["id"] for q in third}) == 4


def test_the_socket_is_found_as_enyal_protocol_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    deep = str(tmp_path / ("d" * 100))
    base = {"TMPDIR": tempfile.gettempdir()}  # Python reads HOME and the temp dir from os.environ
    envs: list[dict[str, str]] = [
        {"ENYAL_SOCKET": "rel/./x.sock"},
        {"ENYAL_SOCKET": "~/s.sock", "ENYAL_HOME": "/elsewhere"},
        {"ENYAL_HOME": str(tmp_path / "h") + "/"},
        {"ENYAL_HOME": "relative//home"},
        {"ENYAL_HOME": deep},
        {"XDG_RUNTIME_DIR": str(tmp_path / "xdg")},
        {"XDG_RUNTIME_DIR": deep},
        {},
    ]
    cases = [{"env": {**base, **e}, "cwd": str(tmp_path)} for e in envs]
    r = run_nvim("paths", tmp_path, ENYAL_TEST_CASES=json.dumps(cases))
    expected = [str(enyal_paths.resolve({**base, **e}).socket) for e in envs]
    assert r["out"]["sockets"] == expected
    # Python takes XDG_DATA_HOME and HOME from os.environ (platformdirs): Lua is given them.
    dbs = [
        {**base, **e, **{k: os.environ[k] for k in ("HOME", "XDG_DATA_HOME") if k in os.environ}}
        for e in envs
    ]
    cases = [{"env": e, "cwd": str(tmp_path)} for e in dbs]
    r = run_nvim("paths", tmp_path, ENYAL_TEST_CASES=json.dumps(cases))
    assert r["out"]["dbs"] == [str(enyal_paths.resolve(e).db) for e in dbs]


def test_the_plugin_matches_the_protocol_and_its_help_parses(tmp_path: Path) -> None:
    version = (PLUGIN / "lua" / "enyal" / "version.lua").read_text()
    assert f"version = '{__version__}'" in version
    assert f"protocol = {wire.PROTOCOL_VERSION}," in version
    commands = (PLUGIN / "lua" / "enyal" / "commands.lua").read_text()
    types = re.search(r"M\.CONTENT_TYPES = \{(.*?)\}", commands)
    assert types and re.findall(r"'(\w+)'", types.group(1)) == list(wire.CONTENT_TYPES)
    # :EnyalBrief sends what `brief` takes and shows the Markdown it answers.
    assert "client.call('brief', { cwd = vim.fn.getcwd() })" in commands
    assert {"cwd"} <= set(wire.BriefParams.__struct_fields__)
    assert "markdown" in wire.BriefResult.__struct_fields__

    doc = tmp_path / "doc"  # helptags writes `tags` beside the help: not in the repository
    shutil.copytree(PLUGIN / "doc", doc)
    p = subprocess.run(
        [*nvim_args(), "-c", f"helptags {doc}", "-c", CHECK_ERRMSG, "-c", "qall!"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, p.stderr
    tags = {line.split("\t")[0] for line in (doc / "tags").read_text().splitlines()}
    plugin = (PLUGIN / "plugin" / "enyal.lua").read_text()
    names = re.findall(r"^command\('(\w+)'", plugin, re.M)
    assert names == ["EnyalRecall", "EnyalRemember", "EnyalFile", "EnyalBrief"]
    readme = (ROOT / "README.md").read_text()
    for name in names:
        assert f":{name}" in tags, f":{name} has no tag in doc/enyal.txt"
        assert re.search(rf":(\[range\])?{name}\b", readme), f":{name} is not in README.md"
    assert {"enyal", "enyal-setup", "enyal-mappings", "enyal-socket"} <= tags


def test_a_socket_path_that_is_not_our_socket_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    missing = str(tmp_path / "no" / "enyal")
    r = run_nvim("untrusted", tmp_path, ENYAL_SOCKET=str(notes), ENYAL_TEST_MISSING=missing)
    assert messages(r, ERROR) == [
        f"enyal: cannot connect to the daemon at {notes}: {notes} is not a socket; remove "
        "it, or set XDG_RUNTIME_DIR or ENYAL_SOCKET to a folder only you can write"
    ]
    assert notes.read_text() == "my notes\n"


def test_a_daemon_of_another_data_dir_on_the_socket_is_noticed(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    other = tmp_path / "other-home"
    missing = str(tmp_path / "no" / "enyal")
    r = run_nvim(
        "untrusted",
        tmp_path,
        ENYAL_HOME=str(other),
        ENYAL_SOCKET=str(daemon.paths.socket),
        ENYAL_TEST_MISSING=missing,
    )
    assert messages(r, ERROR) == [
        f"enyal: the daemon answering (pid {daemon.proc.pid}) serves the database "
        f"{daemon.paths.db}, not this client's {other / 'enyal.db'}: two data dirs share one "
        "socket. Give each its own ENYAL_SOCKET (or unset it), or stop that daemon"
    ]

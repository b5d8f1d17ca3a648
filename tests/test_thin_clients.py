"""Clients stay thin: starting `enyal` or `enyal-mcp` never loads the model's or the
database's libraries. Checked in a fresh interpreter, where sys.modules tells the truth."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli

HEAVY = ("numpy", "onnxruntime", "tokenizers", "apsw", "sqlite3", "_sqlite3", "sqlite_vec", "mcp")


@pytest.mark.parametrize(
    "module",
    [
        "enyal_client.cli",
        "enyal_client.mcp.stdio",
        "enyal_client.transport",
        "enyal_client.ui.server",
        "enyal_client.commands.hook",  # runs before every prompt: it must start fast
    ],
)
def test_client_imports_nothing_heavy(module: str) -> None:
    code = (
        f"import sys, {module}\nprint(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_builds_every_verb_without_heavy_imports() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from enyal_client import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    cli.main(['--help'])\n"
        f"print(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_only_the_cli_imports_the_clis_commands() -> None:
    """The web view and the shim (with its enyal_hook tool) share the connection layer
    (transport, params, pool), not the CLI's verb package (issue 26.4); the hook logic
    (enyal_protocol/hooks) is handed a Caller. One interpreter for all: any of them
    importing it shows."""
    modules = "enyal_client.ui.server, enyal_client.mcp.stdio, enyal_client.mcp.hook_tool"
    code = f"import sys, {modules}, enyal_protocol.hooks.answer\n" + (
        "print(sorted(m for m in sys.modules if '.commands' in m))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_command_hook_loads_no_argparse_nor_other_verbs(tmp_path: Path) -> None:
    """`enyal hook EVENT` runs before every prompt (issue 29): the console script answers
    it without argparse, cli.py, the contract module or another verb's module."""
    code = (
        "import sys\n"
        "from enyal_client import entry\n"
        "sys.argv = ['enyal', 'hook', 'pre-tool-use']\n"
        "code = entry.main()\n"
        f"loaded = [m for m in {AVOIDED_BY_HOOK!r} if m in sys.modules]\n"
        "print(code, *loaded, file=sys.stderr)"
    )
    # A tool that touches no file: answered {} before any daemon method.
    payload = {"tool_name": "Glob", "tool_input": {"pattern": "*"}, "cwd": str(tmp_path)}
    env = {**os.environ, "ENYAL_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout.strip() == "{}"
    assert out.stderr.split() == ["0"]


AVOIDED_BY_HOOK = (
    "argparse",
    "enyal_client.cli",
    "enyal_client.commands.contract",
    "enyal_client.commands.memory",
    "json",  # enyal_protocol/lean_json.py: the package alone is ~5 M instructions a hook
)


def test_command_hook_fails_as_before_on_its_own_path(tmp_path: Path) -> None:
    """The hook's own path answers a bad input as cli.py did: the message on stderr,
    nothing on stdout, exit 1 (never 2, which would block the prompt); with an option
    the parser takes the command line, and its usage error is exit 1 too (on pre-tool-use,
    2 would refuse every tool call)."""
    env = {**os.environ, "ENYAL_HOME": str(tmp_path)}
    bad = run_cli("hook", "prompt-submit", input="nope", env=env)
    assert (bad.code, bad.out) == (1, "")
    assert bad.err.startswith("enyal hook: the hook input on stdin is not JSON")
    listed = run_cli("hook", "prompt-submit", input="[1]", env=env)
    assert (listed.code, listed.err) == (
        1,
        "enyal hook: the hook input on stdin is not a JSON object\n",
    )
    parsed = run_cli("hook", "pre-tool-use", "--budget-tokens", "1", input="{}", env=env)
    assert parsed.code == 1 and "--budget-tokens: must be" in parsed.err


def test_records_are_what_typing_makes() -> None:
    """enyal_protocol/records.py stands in for typing.NamedTuple in paths.py and config.py
    (every client imports them; typing costs 17 M instructions): the same record, fields,
    defaults, methods and properties as typing's own makes of the same class body (this
    module's annotations are strings, as theirs are)."""
    import typing

    from enyal_protocol import records

    made = []
    for base in (records.NamedTuple, typing.NamedTuple):

        class R(base):  # type: ignore[misc,valid-type]
            a: int
            b: str = "x"

            def twice(self) -> int:
                return self.a * 2

            @property
            def half(self) -> float:
                return self.a / 2

        made.append(R)
    for cls in made:
        r = cls(2)
        assert (r, r.b, r.twice(), r.half, r._replace(a=3).twice()) == ((2, "x"), "x", 4, 1.0, 6)
        assert (cls._fields, cls._field_defaults, cls.__name__) == (("a", "b"), {"b": "x"}, "R")
        assert issubclass(cls, tuple) and cls(1, "y") == (1, "y")

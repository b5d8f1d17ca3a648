"""Clients stay thin: starting `enyal` or `enyal-mcp` never loads the model's or the
database's libraries. Checked in a fresh interpreter, where sys.modules tells the truth."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numpy", "onnxruntime", "tokenizers", "apsw", "sqlite3", "_sqlite3", "sqlite_vec", "mcp")


@pytest.mark.parametrize(
    "module",
    [
        "enyal_client.cli",
        "enyal_client.mcp.shim",
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
    modules = "enyal_client.ui.server, enyal_client.mcp.shim, enyal_client.mcp.hook_tool"
    code = f"import sys, {modules}, enyal_protocol.hooks.answer\n" + (
        "print(sorted(m for m in sys.modules if '.commands' in m))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""Docs drift: every daemon method, param, CLI verb and MCP tool is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from enyal_client import cli
from enyal_protocol import wire as p

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_MD = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(method: str) -> str:
    m = re.search(rf"^### {re.escape(method)}\n(.*?)(?=^### |\Z)", PROTOCOL_MD, re.S | re.M)
    assert m, f"docs/PROTOCOL.md has no section '### {method}'"
    return m.group(1)


@pytest.mark.parametrize("method", sorted(p.METHODS))
def test_every_method_and_param_is_in_protocol_md(method: str) -> None:
    text = section(method)
    for field in p.METHODS[method].params.__struct_fields__:
        assert f"`{field}`" in text, f"{method}: param {field} is undocumented"


def test_every_error_code_is_in_protocol_md() -> None:
    for code in p.ERROR_NAMES:
        assert f"| {code} |" in PROTOCOL_MD


def test_every_cli_verb_is_in_readme() -> None:
    _, reg = cli.build_parser()
    for verb in reg.handlers:
        assert f"`enyal {verb}" in README, f"CLI verb {verb} is not in README.md"


def test_every_mcp_tool_is_in_readme() -> None:
    from enyal_client.mcp import tools

    for tool in tools.TOOLS:
        assert f"`{tool.name}`" in README, f"MCP tool {tool.name} is not in README.md"
        assert tool.method in p.METHODS


def test_the_cli_verb_table_matches_the_modules() -> None:
    for module, verbs in cli.VERB_MODULES.items():
        _, reg = cli.build_parser(verbs[0])
        assert tuple(reg.handlers) == verbs, f"cli.VERB_MODULES[{module!r}] is out of date"

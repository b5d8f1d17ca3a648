"""What a method does (reads or writes, destructive, repeatable, sweeps expiry, returns
memories) is said once, as flags on wire.Method; the UI's, the MCP shim's and the
daemon's lists are derived from them. These tests hold the derived lists to what the
hand-written lists held before (issue 26), and every method to a CLI verb or a reason."""

from __future__ import annotations

import ast
from pathlib import Path

from enyal_client.mcp import calls, tools
from enyal_client.ui import server as ui
from enyal_daemon.service import verbs
from enyal_protocol import wire as p

ROOT = Path(__file__).resolve().parents[1]

# What the hand-written lists held when the flags replaced them.
UI_READS = {"recall", "list", "get", "history", "edges", "traverse", "impact", "health"}
UI_READS |= {"review", "stats", "task_list", "hub.status"}
UI_WRITES = {"forget": {"id"}, "restore": {"id", "version"}, "confirm": {"id"}}
MCP_READ_ONLY = {"recall", "recall_by_scope", "get", "recall_batch", "list", "stats", "edges"}
MCP_READ_ONLY |= {"traverse", "impact", "history", "health", "review", "analytics", "task_list"}
MCP_DESTRUCTIVE = {"update", "forget", "restore", "consolidate", "unlink"}
MCP_IDEMPOTENT = MCP_READ_ONLY | {"update", "forget", "index", "task_update", "brief"}
RECALLING = {"recall", "recall_by_scope", "recall_batch", "list", "get", "task_list"}

# Methods no CLI verb sends, and why.
NOT_IN_CLI = {
    # `enyal watch` runs until Ctrl-C, and closing the connection ends its subscription.
    "unsubscribe": "a subscription ends with its connection",
}


def flagged(flag: str) -> set[str]:
    return {name for name, method in p.METHODS.items() if getattr(method, flag)}


def test_the_ui_reads_with_get_only_what_only_reads_and_posts_only_writes() -> None:
    assert set(ui.READS) == UI_READS
    assert {m: set(params) for m, params in ui.WRITES.items()} == UI_WRITES
    assert not ui.READS & flagged("writes")
    assert set(ui.WRITES) <= flagged("writes")


def test_mcp_tool_hints_are_the_methods_flags() -> None:
    by_hint: dict[str, set[str]] = {"ro": set(), "destructive": set(), "idempotent": set()}
    for spec in tools.TOOLS:
        method = p.METHODS[spec.method]
        assert spec.read_only is not method.writes, spec.name
        assert spec.destructive is method.destructive, spec.name
        assert spec.idempotent is (method.idempotent or method.repeat_changes_nothing)
        for hint, on in (
            ("ro", spec.read_only),
            ("destructive", spec.destructive),
            ("idempotent", spec.idempotent),
        ):
            if on:
                by_hint[hint].add(spec.method)
    assert by_hint == {
        "ro": MCP_READ_ONLY,
        "destructive": MCP_DESTRUCTIVE,
        "idempotent": MCP_IDEMPOTENT,
    }


def test_results_framed_as_data_are_those_that_return_memories() -> None:
    assert set(calls.RECALLING) == flagged("returns_memories") == RECALLING


def test_the_verbs_that_sweep_expiry_themselves_are_flagged() -> None:
    assert set(verbs.SWEEP_THEMSELVES) == flagged("sweeps_expiry") == {"consolidate"}


def test_a_method_that_only_reads_is_safe_to_resend() -> None:
    # A read carries no resend key, so it must be one a lost reply may simply repeat.
    assert set(p.METHODS) - flagged("writes") <= flagged("idempotent")


def cli_methods() -> set[str]:
    """The methods the CLI's source sends: a method name given to call()/call_raw(). The
    session hooks count: they run as `enyal hook`."""
    sent: set[str] = set()
    sources = [ROOT / "client/enyal_client/cli.py"]
    sources += sorted((ROOT / "client/enyal_client/commands").glob("*.py"))
    sources += sorted((ROOT / "client/enyal_protocol/hooks").glob("*.py"))
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in ("call", "call_raw"):
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant) and arg.value in p.METHODS:
                    sent.add(arg.value)
    return sent


def test_every_method_is_offered_by_the_cli_or_listed_as_not() -> None:
    offered = cli_methods()
    assert set(p.METHODS) - offered == set(NOT_IN_CLI)
    assert not offered & set(NOT_IN_CLI)

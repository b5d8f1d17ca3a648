"""The packages' import rules, read from the source: the daemon never imports the client,
the client never imports the daemon, and both share only enyal_protocol, which imports
neither. Checked statically (every import statement, lazy ones included), because a lazy
import inside a function would slip past a check of sys.modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "enyal_daemon": ROOT / "daemon" / "enyal_daemon",
    "enyal_client": ROOT / "client" / "enyal_client",
    "enyal_protocol": ROOT / "client" / "enyal_protocol",
}
FORBIDDEN = {
    "enyal_daemon": {"enyal_client"},
    "enyal_client": {"enyal_daemon"},
    "enyal_protocol": {"enyal_client", "enyal_daemon"},
}


def imported_packages(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", ["enyal_daemon", "enyal_client", "enyal_protocol"])
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & FORBIDDEN[package])
        for path in sorted(PACKAGES[package].rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}

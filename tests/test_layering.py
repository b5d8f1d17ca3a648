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


# Inside the daemon the data flows down (docs/ARCHITECTURE.md): server -> service ->
# index -> store/embedder -> hygiene, over a base every part may use. A part (a folder, or
# a module at the top) imports only itself and parts on lower tiers. The offline tools
# (reindex, bulk load, model, doctor) share the server's tier: they run with no daemon,
# so they take nothing from its server (the pidfile lock they share is the base's
# locks.py).
DAEMON_TIERS: list[set[str]] = [
    {"__init__", "__main__"},
    {"server", "tools"},
    {"service"},
    {"index"},
    {"store", "embedder", "hub"},
    {"hygiene"},
    {"heap", "locks", "niced"},
    {"errors"},
]


def daemon_part(path: Path) -> str:
    return path.relative_to(PACKAGES["enyal_daemon"]).parts[0].removesuffix(".py")


def daemon_modules_imported(path: Path) -> set[tuple[str, ...]]:
    """The daemon's modules that `path` imports, as names below enyal_daemon, relative
    imports resolved against its own package (`from ..store import db` in service/x.py is
    ("store", "db")); a name may be a module's attribute, one part too long."""
    package = list(path.relative_to(PACKAGES["enyal_daemon"]).parts[:-1])
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[list[str]] = []
        if isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module.split(".") if node.module else []
            if node.level == 0:
                names = [module]
            else:
                base = ["enyal_daemon", *package[: len(package) - (node.level - 1)]]
                # `from .. import heap`: each name is a module of that package
                names = [base + module] if module else [[*base, a.name] for a in node.names]
        for name in names:
            if len(name) > 1 and name[0] == "enyal_daemon":
                found.add(tuple(name[1:]))
    return found


def daemon_parts_imported(path: Path) -> set[str]:
    return {name[0] for name in daemon_modules_imported(path)}


def test_every_daemon_part_has_a_tier() -> None:
    parts = {daemon_part(path) for path in PACKAGES["enyal_daemon"].rglob("*.py")}
    assert parts - set().union(*DAEMON_TIERS) == set()


def test_daemon_imports_run_only_down_its_tiers() -> None:
    tier = {part: n for n, parts in enumerate(DAEMON_TIERS) for part in parts}
    offenders: dict[str, list[str]] = {}
    for path in sorted(PACKAGES["enyal_daemon"].rglob("*.py")):
        mine = daemon_part(path)
        up = sorted(
            part
            for part in daemon_parts_imported(path)
            if part != mine and tier.get(part, len(DAEMON_TIERS)) <= tier[mine]
        )
        if up:
            offenders[str(path.relative_to(ROOT))] = up
    assert offenders == {}


# Inside service/ the same rule, one level down: its modules live in rooms, grouped by what
# calls what (docs/ARCHITECTURE.md, "Inside the service"), and a room imports only itself
# and rooms on lower tiers. verbs.py, the method table, stands on top of them all.
SERVICE = PACKAGES["enyal_daemon"] / "service"
SERVICE_TIERS: list[set[str]] = [
    {"__init__", "verbs"},
    {"session"},
    {"memory", "upkeep"},
    {"hub"},
    {"files"},
    {"core"},
    {"rules"},
]


def service_room(path: Path) -> str:
    return path.relative_to(SERVICE).parts[0].removesuffix(".py")


def test_every_service_module_is_in_a_room() -> None:
    rooms = set().union(*SERVICE_TIERS)
    loose = sorted(
        str(path.relative_to(ROOT))
        for path in SERVICE.rglob("*.py")
        if service_room(path) not in rooms or len(path.relative_to(SERVICE).parts) > 2
    )
    assert loose == []


def test_service_imports_run_only_down_its_rooms() -> None:
    tier = {room: n for n, rooms in enumerate(SERVICE_TIERS) for room in rooms}
    offenders: dict[str, list[str]] = {}
    for path in sorted(SERVICE.rglob("*.py")):
        mine = service_room(path)
        if mine not in tier:
            continue  # a module in no room: the test above names it
        up = sorted(
            name[1]
            for name in daemon_modules_imported(path)
            if len(name) > 1
            and name[0] == "service"
            and name[1] != mine
            and tier.get(name[1], len(SERVICE_TIERS)) <= tier[mine]
        )
        if up:
            offenders[str(path.relative_to(ROOT))] = up
    assert offenders == {}

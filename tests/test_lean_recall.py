"""`enyal recall` has a lean path (issue 30: within 3× `python -c pass`): the console script
answers a plain command line without argparse, msgspec or the wire's Structs
(commands/lean_recall.py), and must print what the full path prints, byte for byte, and
leave everything else to it. Both paths run here as processes against one daemon and
one store: the lean one as the installed console script runs (its entry point read from
pyproject.toml: the shared venv's script may predate it), the full one as cli.run.

Recency moves with the clock between two runs, so the compared runs ask --asked-at a
fixed time: their scores are then the same to the last bit, and so must their bytes
be."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import CliResult
from daemon_support import RunningDaemon, launch_env, project_home

ROOT = Path(__file__).resolve().parent.parent
_module, _func = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"][
    "enyal"
].split(":")
LEAN = f"import sys\nfrom {_module} import {_func}\nsys.exit({_func}())"
FULL = "import sys\nfrom enyal_client.cli import run\nsys.exit(run(sys.argv[1:]))"

# What the lean path's process must not import: what made `enyal recall` 11.7× a bare
# interpreter (docs/ARCHITECTURE.md, "Client start-up").
NOT_ON_THE_LEAN_PATH = ("msgspec", "typing_extensions", "argparse", "dataclasses")
NOT_ON_THE_LEAN_PATH += ("enyal_protocol.wire", "enyal_client.cli", "inspect")
NOT_ON_THE_LEAN_PATH += ("typing", "socket")  # as for the command hook (test_hook_paths.py)
NOT_ON_THE_LEAN_PATH += ("tomllib",)  # config.toml as parsed before (config_cache.py)
NOT_ON_THE_LEAN_PATH += ("pathlib", "urllib.parse", "struct")  # nor these (test_hook_paths.py)

ASKED_AT = "2031-05-04T12:00:00Z"  # fixed: the scores do not move between two runs
QUERY = "how are invoices rounded?"


class Store:
    def __init__(self, d: RunningDaemon, env: dict[str, str], project: Path) -> None:
        self.d, self.env, self.project = d, env, project

    def run(
        self, launcher: str, *args: str, importtime: bool = False, bare: bool = False
    ) -> CliResult:
        """bare: with -S and this tree's client folder on PYTHONPATH, as test_hook_paths
        runs the hook: an editable install's finder, run by site, imports pathlib before
        any of our code (a regular install has none)."""
        flags = ["-X", "importtime"] if importtime else []
        env = self.env
        if bare:
            flags.append("-S")
            env = env | {"PYTHONPATH": str(ROOT / "client")}
        r = subprocess.run(
            [sys.executable, *flags, "-c", launcher, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=self.project,
            timeout=120,
        )
        return CliResult(r.returncode, r.stdout, r.stderr)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Iterator[Store]:
    root = tmp_path_factory.mktemp("lean")
    env, project = project_home(root, model_cache)
    # A config file, as most users have: the daemon's start parses it, the clients reuse that.
    (root / "home").mkdir()
    (root / "home" / "config.toml").write_text("[recall]\nrelative = 0.5\n")  # the default
    d = launch_env(env)
    cwd = str(project)
    memories = [
        # Non-ASCII, tags, a source and a writer: every part of a hit's text.
        {
            "content": "Invoices are rounded half-even: «€ 0,005 → 0,00», as the tax office asks.",
            "tags": ["billing", "tax"],
            "source_type": "file",
            "source_ref": "src/billing.py",
            "written_by": "agent",
        },
        # Longer than the text shows (recall_text.SHOWN_CHARS): cut, with the count.
        {"content": "Invoice totals: " + "each line is rounded before it is summed; " * 8},
        {"content": "Invoices go out on the first working day of the month.", "tags": ["ops"]},
    ]
    for m in memories:
        d.call("remember", {**m, "cwd": cwd})
    try:
        yield Store(d, env, project)
    finally:
        d.stop()
    assert "Traceback" not in d.log.text(), d.log.text()


def imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line}


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", QUERY, "--asked-at", ASKED_AT],
        ["--json", "recall", QUERY, "--asked-at", ASKED_AT],
        ["recall", "--asked-at", ASKED_AT, "--json", "--limit", "2", QUERY],
        ["recall", "--all", QUERY, "--asked-at", ASKED_AT, "--limit", "7"],
        ["recall", "--all", "--json", QUERY, "--asked-at", ASKED_AT],
        ["recall", "kumquat zeppelin", "--asked-at", ASKED_AT],  # nothing matches
        ["recall", "kumquat zeppelin", "--asked-at", ASKED_AT, "--json"],
    ],
)
def test_the_lean_path_prints_what_the_full_path_prints(store: Store, argv: list[str]) -> None:
    lean = store.run(LEAN, *argv, importtime=True, bare=True)
    full = store.run(FULL, *argv)
    assert lean.code == full.code == 0, (lean.err[-2000:], full.err)
    assert lean.out == full.out
    assert lean.out.strip()
    took = imported(lean.err)
    assert "enyal_client.commands.lean_recall" in took, "the listing is of the lean path"
    assert not took & set(NOT_ON_THE_LEAN_PATH), sorted(took & set(NOT_ON_THE_LEAN_PATH))


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "-q", QUERY, "-q", "billing", "--asked-at", ASKED_AT],  # an option it lacks
        ["recall", "--limit=2", QUERY, "--asked-at", ASKED_AT],  # a form it does not read
        ["recall", "--limit", "0", QUERY],  # the daemon refuses it: argparse's message
        ["recall", "--limit", "100000", QUERY, "--json"],  # the same, one JSON document
        ["recall", "--asked-at", "someday", QUERY],  # the daemon's refusal, in plain words
        ["recall", "", "--json"],  # an empty query
        ["recall"],  # no query
        ["recall", QUERY, "another"],  # two
        ["recall", "--help"],
    ],
)
def test_what_the_lean_path_does_not_read_goes_to_the_full_path(
    store: Store, argv: list[str]
) -> None:
    lean = store.run(LEAN, *argv, importtime=True)
    full = store.run(FULL, *argv)
    assert lean.code == full.code, (lean, full)
    assert lean.out == full.out
    # The lean process's stderr is the listing, then the full path's message.
    assert lean.err.endswith(full.err)
    assert "argparse" in imported(lean.err), "answered by cli.py"


def test_the_lean_path_imports_no_msgspec(store: Store) -> None:
    """`enyal recall QUERY` as people type it (recency from now, so not compared above):
    the hits, and none of what the lean path exists to avoid. Last in the module: a
    recall asked now counts its hits as used, which moves their confidence a few seconds
    later (the bump is batched), and with it the bytes the tests above compare."""
    for argv in (["recall", QUERY], ["recall", "--json", QUERY]):
        r = store.run(LEAN, *argv, importtime=True, bare=True)
        assert r.code == 0, r.err[-2000:]
        assert "half-even" in r.out
        took = imported(r.err)
        assert "enyal_client.commands.lean_recall" in took
        assert not took & set(NOT_ON_THE_LEAN_PATH), sorted(took & set(NOT_ON_THE_LEAN_PATH))

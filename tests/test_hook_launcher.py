"""client/scripts/enyal-hook (issue 29): `enyal hook EVENT` started without `site`, for
each way Enyal is installed. Each case runs the real launcher under a real interpreter
laid out as that install lays it out, with a PreToolUse of a tool that touches no file
(answered `{}` before any daemon method, so no daemon is needed), and reads which
modules the process imported from `-X importtime` (PYTHONPROFILEIMPORTTIME):

    wheel     <venv>/bin/enyal-hook beside <venv>/bin/python, Enyal's packages in the
              venv's site-packages: found without site
    editable  site-packages holds a .pth naming the source folder (as an editable
              install does): not found without site, so site is run and it is found
    symlink   ~/.local/bin/enyal-hook a link into the venv (pipx): the link is followed
    no python the launcher alone (no interpreter beside it): `enyal hook` on PATH
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BIN
from enyal_protocol.exits import EXIT_HOOK_FAILED
from test_session_hooks import fixture

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "client" / "scripts" / "enyal-hook"
PACKAGES = ("enyal_client", "enyal_protocol")
SITE = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv of this interpreter's base with nothing installed: each test lays Enyal out."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    shutil.copy(LAUNCHER, root / "bin" / "enyal-hook")
    return root


def clean_site(venv: Path) -> Path:
    site = venv / SITE
    for entry in site.iterdir():
        if entry.name in PACKAGES or entry.suffix == ".pth":
            entry.unlink()
    return site


def run(launcher: Path, tmp_path: Path, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    data = fixture("pre-tool-use", tmp_path, session_id="launcher")
    data["tool_name"] = "Glob"  # touches no file: answered before any daemon method
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env = (
        base | {"ENYAL_HOME": str(tmp_path / "home"), "PYTHONPROFILEIMPORTTIME": "1"} | (env or {})
    )
    r = subprocess.run(
        [str(launcher), "pre-tool-use"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    return r.stdout, imported


def test_a_wheel_install_starts_without_site(venv: Path, tmp_path: Path) -> None:
    site = clean_site(venv)
    for name in PACKAGES:
        (site / name).symlink_to(ROOT / "client" / name)
    out, imported = run(venv / "bin" / "enyal-hook", tmp_path)
    assert json.loads(out) == {}
    assert "enyal_client.commands.hook" in imported, "the listing is of the hook's own path"
    # site (and the .pth files it reads) and re (enum, functools, its compiler): neither
    # is needed to answer an event that compiles no pattern.
    assert not imported & {"site", "re", "argparse", "msgspec"}, sorted(imported)


def test_the_project_folder_is_not_on_the_path(venv: Path, tmp_path: Path) -> None:
    """A hook runs in the user's project: a folder there named like one of Enyal's
    packages (or the standard library's) must not be imported in their place."""
    site = clean_site(venv)
    for name in PACKAGES:
        (site / name).symlink_to(ROOT / "client" / name)
    (tmp_path / "enyal_client").mkdir()
    (tmp_path / "enyal_client" / "__init__.py").write_text("raise SystemExit(3)\n")
    out, imported = run(venv / "bin" / "enyal-hook", tmp_path)
    assert json.loads(out) == {}
    assert "enyal_client.commands.hook" in imported, "the installed package answered"


def test_a_link_to_the_launcher_is_followed(venv: Path, tmp_path: Path) -> None:
    site = clean_site(venv)
    for name in PACKAGES:
        (site / name).symlink_to(ROOT / "client" / name)
    link = tmp_path / "bin" / "enyal-hook"
    link.parent.mkdir()
    link.symlink_to(venv / "bin" / "enyal-hook")
    out, imported = run(link, tmp_path)
    assert json.loads(out) == {}
    assert "site" not in imported and "enyal_client.commands.hook" in imported


def test_an_editable_install_falls_back_to_site(venv: Path, tmp_path: Path) -> None:
    site = clean_site(venv)
    (site / "enyal-editable.pth").write_text(f"{ROOT / 'client'}\n")
    out, imported = run(venv / "bin" / "enyal-hook", tmp_path)
    assert json.loads(out) == {}
    assert "site" in imported and "enyal_client.commands.hook" in imported


def test_with_no_interpreter_beside_it_the_console_script_answers(tmp_path: Path) -> None:
    alone = tmp_path / "alone" / "enyal-hook"
    alone.parent.mkdir()
    shutil.copy(LAUNCHER, alone)
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "PYTHONPATH": str(ROOT / "client")}
    out, imported = run(alone, tmp_path, env)
    assert json.loads(out) == {}
    assert "site" in imported and "enyal_client.commands.hook" in imported


def test_a_wrong_event_is_refused_as_enyal_hook_refuses_it(venv: Path, tmp_path: Path) -> None:
    """Everything but the plain form is cli.py's (entry.py): the same message, exit 1
    (a hook's refusal never blocks: enyal_protocol/exits.py).
    Enyal is found without site (PYTHONPATH) but msgspec only through a .pth, which
    only site reads: entry.py runs site before cli.py when the launcher skipped it."""
    import msgspec

    site = clean_site(venv)
    (site / "deps.pth").write_text(f"{Path(msgspec.__file__).parents[1]}\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT / "client")
    env["ENYAL_HOME"] = str(tmp_path / "home")
    ours = subprocess.run(
        [str(venv / "bin" / "enyal-hook"), "no-such-event"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    theirs = subprocess.run(
        [str(BIN / "python"), "-m", "enyal_client.entry", "hook", "no-such-event"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert ours.returncode == theirs.returncode == EXIT_HOOK_FAILED == 1, ours.stderr
    assert ours.stderr.replace("enyal-hook", "enyal") == theirs.stderr.replace("entry.py", "enyal")
    assert "no-such-event" in ours.stderr

"""`enyal service`: the unit files it writes, checked by systemd's own verifier, the launchd
plist checked by plistlib, and the exact commands --dry-run prints.

A user service manager does not run in CI containers. Where one answers, the real
install / status / uninstall cycle runs; otherwise that test is skipped (with the
reason) and the files and the printed commands are what is tested.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from enyal_client import service_units
from enyal_protocol import paths as enyal_paths
from service_support import ENYAL, env_for, enyal

ROOT = Path(__file__).resolve().parent.parent


def test_the_repository_templates_are_the_ones_installed() -> None:
    assert (ROOT / "systemd" / "enyal.socket").read_text() == service_units.SYSTEMD_SOCKET
    assert (ROOT / "systemd" / "enyal.service").read_text() == service_units.SYSTEMD_SERVICE
    plist = (ROOT / "launchd" / "dev.enyal.daemon.plist").read_text()
    assert plist == service_units.LAUNCHD_PLIST
    assert plistlib.loads(plist.encode())["Label"] == service_units.LAUNCHD_LABEL


def _dry_run(home: Path, tmp_path: Path, *extra: str, **env: str | None) -> dict[str, object]:
    r = enyal(
        "service",
        "install",
        "--dry-run",
        "--json",
        *extra,
        env=env_for(home, HOME=str(tmp_path / "user"), XDG_CONFIG_HOME=None, **env),
    )
    assert r.code == 0, r.err
    result: dict[str, object] = r.json()
    return result


def _verify(unit_dir: Path, runtime: Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.fail("systemd-analyze is missing: install the Debian package `systemd`")
    runtime.mkdir(exist_ok=True, mode=0o700)
    return subprocess.run(
        [tool, "--user", "verify", str(unit_dir / "enyal.socket"), str(unit_dir / "enyal.service")],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        check=False,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="systemd units are verified on Linux")
def test_generated_units_pass_systemd_analyze_verify(home: Path, tmp_path: Path) -> None:
    result = _dry_run(home, tmp_path)
    files = result["files"]
    assert isinstance(files, list)
    unit_dir = tmp_path / "user" / ".config" / "systemd" / "user"
    assert [f["path"] for f in files] == [
        str(unit_dir / "enyal.socket"),
        str(unit_dir / "enyal.service"),
    ]
    assert not unit_dir.exists()  # a dry run writes nothing
    unit_dir.mkdir(parents=True)
    for f in files:
        Path(f["path"]).write_text(f["text"])
    service = (unit_dir / "enyal.service").read_text()
    socket_unit = (unit_dir / "enyal.socket").read_text()
    # The daemon is the installed `enyal`, by absolute path, serving the clients' home.
    assert f"ExecStart={ENYAL} daemon\n" in service
    assert Path(ENYAL).is_absolute() and os.access(ENYAL, os.X_OK)
    assert "Type=notify\n" in service and f"Environment=ENYAL_HOME={home}\n" in service
    assert f"ListenStream={enyal_paths.resolve().socket}\n" in socket_unit
    assert "SocketMode=0600\n" in socket_unit
    # systemd's own parser: exit 0 and not a single warning (it only warns on unknown keys).
    r = _verify(unit_dir, tmp_path / "rt")
    assert r.returncode == 0 and r.stderr == "" and r.stdout == "", r.stderr + r.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="systemd units are verified on Linux")
def test_without_enyal_home_the_socket_is_in_the_runtime_dir(home: Path, tmp_path: Path) -> None:
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    result = _dry_run(home, tmp_path, ENYAL_HOME=None, XDG_RUNTIME_DIR=str(runtime))
    files = result["files"]
    assert isinstance(files, list)
    socket_unit, service = files[0]["text"], files[1]["text"]
    assert "ListenStream=%t/enyal/enyal.sock\n" in socket_unit  # where platformdirs looks
    assert "Environment=" not in service
    unit_dir = Path(files[0]["path"]).parent
    unit_dir.mkdir(parents=True)
    for f in files:
        Path(f["path"]).write_text(f["text"])
    r = _verify(unit_dir, runtime)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_dry_run_prints_the_files_and_the_exact_commands(home: Path, tmp_path: Path) -> None:
    env = env_for(home, HOME=str(tmp_path / "user"), XDG_CONFIG_HOME=None)
    r = enyal("service", "install", "--dry-run", "--manager", "systemd", env=env)
    assert r.code == 0, r.err
    unit_dir = tmp_path / "user" / ".config" / "systemd" / "user"
    assert f"# write {unit_dir / 'enyal.socket'}\n[Unit]" in r.out
    assert f"# write {unit_dir / 'enyal.service'}\n[Unit]" in r.out
    assert r.out.rstrip().endswith(
        "# then run:\nsystemctl --user daemon-reload\nsystemctl --user enable --now enyal.socket"
    )
    r = enyal("service", "uninstall", "--dry-run", "--manager", "systemd", env=env)
    assert r.code == 0, r.err
    assert r.out.rstrip().endswith(
        "# then run:\nsystemctl --user disable --now enyal.socket enyal.service\n"
        "systemctl --user daemon-reload"
    )
    assert not (tmp_path / "user").exists()


def test_launchd_plist_is_valid_and_socket_activated(home: Path, tmp_path: Path) -> None:
    result = _dry_run(home, tmp_path, "--manager", "launchd")
    files = result["files"]
    assert isinstance(files, list)
    (f,) = files
    assert f["path"] == str(
        tmp_path / "user" / "Library" / "LaunchAgents" / "dev.enyal.daemon.plist"
    )
    plist = plistlib.loads(f["text"].encode())
    assert plist["Label"] == "dev.enyal.daemon"
    assert plist["ProgramArguments"] == [ENYAL, "daemon", "--log-file"]
    sock = plist["Sockets"]["enyal"]
    assert sock == {
        "SockPathName": str(enyal_paths.resolve().socket),
        "SockPathMode": 0o600,
        "SockFamily": "Unix",
        "SockType": "stream",
    }
    assert plist["EnvironmentVariables"] == {"ENYAL_HOME": str(home)}
    assert "KeepAlive" not in plist  # on demand: launchd starts it on the first connection
    uid = os.getuid()
    assert result["commands"] == [
        ["launchctl", "bootout", f"gui/{uid}/dev.enyal.daemon"],
        ["launchctl", "bootstrap", f"gui/{uid}", f["path"]],
    ]


def _user_manager_answers() -> bool:
    if shutil.which("systemctl") is None:
        return False
    r = subprocess.run(
        ["systemctl", "--user", "is-system-running"], capture_output=True, text=True, check=False
    )
    return r.stdout.strip() in ("running", "degraded")


@pytest.mark.skipif(_user_manager_answers(), reason="a user service manager answers here")
def test_install_without_a_user_manager_says_so_and_writes_nothing(
    home: Path, tmp_path: Path
) -> None:
    env = env_for(home, HOME=str(tmp_path / "user"), XDG_CONFIG_HOME=None)
    r = enyal("service", "install", env=env)
    assert r.code == 1
    assert "no user service manager answers" in r.out
    assert "starts the daemon in the background" in r.out
    assert not (tmp_path / "user").exists()
    st = enyal("service", "status", "--json", env=env)
    assert st.code == 0, st.err
    s = st.json()
    assert s["manager_answers"] is False
    assert [u["installed"] for u in s["units"]] == [False, False]
    assert s["daemon"] == {"reachable": False}
    r = enyal("service", "uninstall", env=env)
    assert r.code == 0 and "nothing to uninstall" in r.out


@pytest.mark.skipif(
    not _user_manager_answers(), reason="no systemd --user manager answers (as in containers)"
)
@pytest.mark.usefixtures("autostarted")
def test_real_install_status_and_uninstall(home: Path) -> None:
    unit_dir = service_units.systemd_user_dir()
    if (unit_dir / "enyal.socket").exists():
        pytest.skip(f"{unit_dir} already has an enyal.socket; not touching a real installation")
    env = env_for(home)
    try:
        r = enyal("service", "install", env=env)
        assert r.code == 0, r.err
        assert "ran systemctl --user enable --now enyal.socket" in r.out
        st = enyal("status", "--json", env=env)  # the socket activates the service
        assert st.code == 0, st.err
        s = enyal("service", "status", "--json", env=env).json()
        assert s["state"]["socket"] == "active" and s["daemon"]["reachable"]
    finally:
        r = enyal("service", "uninstall", env=env)
    assert r.code == 0, r.err
    assert not (unit_dir / "enyal.socket").exists()

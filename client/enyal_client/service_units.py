"""The service manager files Enyal installs, rendered for this installation.

The templates below are also in the repository as systemd/enyal.socket,
systemd/enyal.service and launchd/dev.enyal.daemon.plist for packagers to read;
tests/test_service.py keeps the two copies identical. They live here because an
installed wheel has no repository next to it.

Placeholders: @ENYAL@ is the absolute path of the installed `enyal`; @SOCKET@ the
socket path clients use; @LOG@ the log folder (launchd has no journal).
"""

from __future__ import annotations

import os
import plistlib
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from enyal_protocol.paths import Paths

SYSTEMD_SOCKET = """\
[Unit]
Description=Enyal memory daemon (socket)

[Socket]
# Where clients look: their runtime dir, %t/enyal ($XDG_RUNTIME_DIR), unless ENYAL_HOME
# or ENYAL_SOCKET moved it when the unit was installed.
ListenStream=%t/enyal/enyal.sock
SocketMode=0600
DirectoryMode=0700
# Gone when the unit stops, so a client then starts a daemon itself instead of
# connecting to a socket no one serves.
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
"""

SYSTEMD_SERVICE = """\
[Unit]
Description=Enyal memory daemon
Requires=enyal.socket
After=enyal.socket

[Service]
# READY=1 comes once the model is loaded and warm; the socket queues clients until then.
Type=notify
NotifyAccess=main
ExecStart=@ENYAL@ daemon
# Clean exits (idle timeout, `enyal daemon stop`) wait for the next connection;
# crashes are restarted.
Restart=on-failure
RestartSec=2
TimeoutStartSec=90
TimeoutStopSec=45

[Install]
Also=enyal.socket
"""

LAUNCHD_LABEL = "dev.enyal.daemon"

LAUNCHD_PLIST = """\
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>dev.enyal.daemon</string>
	<key>ProgramArguments</key>
	<array>
		<string>@ENYAL@</string>
		<string>daemon</string>
		<string>--log-file</string>
	</array>
	<key>Sockets</key>
	<dict>
		<key>enyal</key>
		<dict>
			<key>SockPathName</key>
			<string>@SOCKET@</string>
			<key>SockPathMode</key>
			<integer>384</integer>
			<key>SockFamily</key>
			<string>Unix</string>
			<key>SockType</key>
			<string>stream</string>
		</dict>
	</dict>
	<key>StandardErrorPath</key>
	<string>@LOG@/launchd.log</string>
</dict>
</plist>
"""

DEFAULT_LISTEN = "%t/enyal/enyal.sock"
# What install passes on to the daemon, so it serves the home its clients use.
PASSED_ENV = ("ENYAL_HOME", "ENYAL_SOCKET", "ENYAL_MODEL_DIR")


@dataclass(frozen=True)
class UnitFile:
    path: Path
    text: str


def enyal_executable() -> list[str]:
    """The command that runs this installation's `enyal`, as absolute paths."""
    beside = Path(sys.executable).parent / "enyal"  # a venv's bin, or the interpreter's
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("enyal")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "enyal_client.cli"]


def _systemd_quote(word: str) -> str:
    word = word.replace("%", "%%")  # systemd expands %-specifiers in these lines
    if any(c in word for c in ' \t"\\'):
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word


def systemd_user_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "systemd" / "user"


def _listen_for(paths: Paths, env: Mapping[str, str]) -> str:
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and paths.socket == Path(runtime) / "enyal" / "enyal.sock":
        return DEFAULT_LISTEN
    return str(paths.socket).replace("%", "%%")


def render_systemd(
    paths: Paths, command: list[str], environ: Mapping[str, str] | None = None
) -> list[UnitFile]:
    env = os.environ if environ is None else environ
    unit_dir = systemd_user_dir(env)
    socket_text = SYSTEMD_SOCKET.replace(DEFAULT_LISTEN, _listen_for(paths, env))
    service_text = SYSTEMD_SERVICE.replace("@ENYAL@", " ".join(map(_systemd_quote, command)))
    passed = [f"{k}={env[k]}" for k in PASSED_ENV if env.get(k)]
    if passed:
        lines = "".join(f"Environment={_systemd_quote(kv)}\n" for kv in passed)
        service_text = service_text.replace("NotifyAccess=main\n", "NotifyAccess=main\n" + lines)
    return [
        UnitFile(unit_dir / "enyal.socket", socket_text),
        UnitFile(unit_dir / "enyal.service", service_text),
    ]


def launchd_agents_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("HOME") or Path.home()) / "Library" / "LaunchAgents"


def render_launchd(
    paths: Paths, command: list[str], environ: Mapping[str, str] | None = None
) -> UnitFile:
    env = os.environ if environ is None else environ
    plist = plistlib.loads(LAUNCHD_PLIST.encode())
    plist["ProgramArguments"] = [*command, "daemon", "--log-file"]
    plist["Sockets"]["enyal"]["SockPathName"] = str(paths.socket)
    plist["StandardErrorPath"] = str(paths.log_dir / "launchd.log")
    passed = {k: env[k] for k in PASSED_ENV if env.get(k)}
    if passed:
        plist["EnvironmentVariables"] = passed
    text = plistlib.dumps(plist, sort_keys=False).decode()
    return UnitFile(launchd_agents_dir(env) / f"{LAUNCHD_LABEL}.plist", text)

"""`enyal daemon`: run the daemon in the foreground (what a service manager runs)."""

from __future__ import annotations

from .base import Args, Context, Registry, Result


class DaemonExit(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def cmd_daemon(ctx: Context, a: Args) -> Result:
    # Imported here: the daemon's modules pull in numpy and onnxruntime, which no other
    # verb may pay for.
    from enyal_daemon.__main__ import main as daemon_main

    argv = ["--log-level", a.log_level] + (["--log-file"] if a.log_file else [])
    raise DaemonExit(daemon_main(argv))


def register(reg: Registry) -> None:
    d = reg.verb("daemon", "run the daemon in the foreground", cmd_daemon)
    d.add_argument("--log-file", action="store_true", help="log to the log dir, not stderr")
    d.add_argument("--log-level", default="INFO")

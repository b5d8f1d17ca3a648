"""Ctrl-C stops `enyal` at any moment of a run: exit 130 and one line on stderr (exit 0
for a stream it ends: `watch` once it watches), never a traceback, a crash or a hang
(enyal_client/interrupts.py, docs/ARCHITECTURE.md "Ctrl-C").

Each command runs in a `python -c` launcher that calls the console script's entry point,
the signal sent from inside it: the interpreter's own start-up (site, the console
script's first import), where a SIGINT is Python's to report, is over before the
launcher's clock starts."""

from __future__ import annotations

import random
import signal
import subprocess
import sys

from conftest import DaemonProc

WAIT = 20  # seconds: a guard against a hang, never a measure
RUNS = 12  # the random moments: ~5 s in all, start-up and watching alike
LATEST = 0.5  # seconds: past a watch's start-up on a loaded machine
SHIM = "enyal_client.mcp.shim"  # enyal-mcp's console script


def launch(
    setup: str, *args: str, entry: str = "enyal_client.entry", late: str = ""
) -> subprocess.Popen[str]:
    """`enyal ARGS` (or the console script whose main is in `entry`) in a fresh
    interpreter that first runs `setup`, and `late` once `main` is imported."""
    code = f"import os, signal, sys, threading\n{setup}\n" + (
        f"from {entry} import main\n{late}\nsys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"still running {WAIT} s after SIGINT: {err!r}") from None
    return proc.returncode, out, err


# SIGINT to this process as soon as the datetime module starts to import: msgspec's
# _core imports it (PyDateTime_IMPORT) and does not check that import.
AT_DATETIME = """
def tracer(frame, event, arg):
    if event == "call" and frame.f_code.co_filename.endswith("/datetime.py"):
        sys.settrace(None)
        print("sent", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGINT)
sys.settrace(tracer)
"""


def test_sigint_while_msgspec_loads_exits_130_not_sigsegv() -> None:
    """Raised there, the KeyboardInterrupt left msgspec without datetime's C API, and
    its first Decoder (transport.py's, at import) read through NULL: SIGSEGV."""
    code, out, err = finish(launch(AT_DATETIME, "--version"))
    assert err.startswith("sent\n"), "datetime was loaded before msgspec: nothing tested"
    assert (code, out, err) == (130, "", "sent\nenyal: interrupted\n")


def test_sigint_while_the_mcp_shim_loads_msgspec_ends_it_without_sigsegv() -> None:
    """`enyal-mcp` with an option goes straight to its server's imports (msgspec): a
    SIGINT there ends it quietly (its host stops it so too), never a SIGSEGV."""
    code, out, err = finish(launch(AT_DATETIME, "--log-level", "error", entry=SHIM))
    assert err.startswith("sent\n"), "datetime was loaded before msgspec: nothing tested"
    assert (code, out, err) == (0, "", "sent\n")


# The main thread blocks SIGINT and a thread of its own takes it: Python has the signal,
# its handler waits for the main thread's next bytecode, and the main thread is in
# recv(), never interrupted. The same as a SIGINT that comes after the interpreter's
# last look for one and before recv() blocks, made certain.
ELSEWHERE = """
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
def catch():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Event().wait()
threading.Thread(target=catch, daemon=True).start()
"""


def test_watch_stops_on_a_sigint_its_read_did_not_see(daemon: DaemonProc) -> None:
    w = launch(ELSEWHERE, "watch", "--json")
    assert w.stderr is not None and w.stdout is not None
    assert w.stderr.readline() == "watching every memory (Ctrl-C stops)\n"
    made = daemon.call("remember", {"content": "Deploys go out on Tuesdays", "scope": "global"})
    assert made["id"] in w.stdout.readline()  # it reads the socket again now
    w.send_signal(signal.SIGINT)
    code, out, err = finish(w)
    assert (code, out, err) == (0, "", "")


# SIGINT after {delay} seconds, from a timer thread.
AFTER = """
timer = threading.Timer({delay}, os.kill, (os.getpid(), signal.SIGINT))
timer.daemon = True
timer.start()
"""


def test_watch_stops_cleanly_on_sigint_at_random_moments(daemon: DaemonProc) -> None:
    """From its imports to its subscription: exit 130 and one line; while it watches:
    exit 0, the banner alone."""
    for delay in (random.uniform(0, LATEST) for _ in range(RUNS)):
        # The timer starts once the console script's module is imported: before that (the
        # import of entry.py, kept to os and sys for this: its docstring) Ctrl-C ends any
        # Python program with a traceback. A delay drawn from the interpreter's start hit
        # that window once (0.18 ms, fresh-clone CI at 76e34cd).
        code, out, err = finish(launch("", "watch", late=AFTER.format(delay=delay)))
        assert out == "", (delay, out)
        if code == 0:
            assert err == "watching every memory (Ctrl-C stops)\n", (delay, err)
        else:
            assert (code, err) == (130, "enyal watch: interrupted\n"), delay

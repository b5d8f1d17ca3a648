"""On-demand start: clients that find no daemon start exactly one, it exits after idling,
a second daemon refuses to run, and a daemon of another version is noticed."""

from __future__ import annotations

import fcntl
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import stop_daemon_of_home, wait_for
from enyal_client import transport
from enyal_protocol import __version__
from enyal_protocol import paths as enyal_paths
from enyal_protocol.paths import ensure_private_dir
from service_support import ENYAL, alive, daemon_pids, env_for, enyal

pytestmark = [
    pytest.mark.usefixtures("autostarted"),
    pytest.mark.skipif(sys.platform != "linux", reason="counts processes through /proc"),
]


def test_sixteen_clients_at_once_make_exactly_one_daemon(home: Path) -> None:
    assert not home.exists()
    env = env_for(home)
    procs = [
        subprocess.Popen(
            [ENYAL, "status", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(16)
    ]
    results = [(p.wait(120), *p.communicate()) for p in procs]
    assert [code for code, _, _ in results] == [0] * 16, [err for _, _, err in results]
    pids = {json.loads(out)["pid"] for _, out, _ in results}
    assert len(pids) == 1
    assert daemon_pids(home) == pids  # and no second one lingering, started or exiting
    assert enyal_paths.resolve().pid_file.read_text().strip() == str(pids.pop())


def test_a_second_daemon_on_the_same_home_exits_with_a_clear_message(home: Path) -> None:
    first = enyal("status", "--json", env=env_for(home)).json()["pid"]
    r = enyal("daemon", env=env_for(home))
    assert r.code == 75
    assert f"another enyal daemon (pid {first}) already serves" in r.err
    assert daemon_pids(home) == {first}


def test_an_idle_daemon_exits_and_the_next_client_brings_one_back(home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text("[daemon]\nidle_timeout = 1\n")
    paths = enyal_paths.resolve()
    first = enyal("status", "--json", env=env_for(home)).json()["pid"]
    wait_for(lambda: not alive(first), 30, "the idle daemon to exit")
    assert not paths.socket.exists() and not paths.pid_file.exists()
    assert "idle: no connection for 1s" in enyal("logs", env=env_for(home)).out
    second = enyal("status", "--json", env=env_for(home))
    assert second.code == 0, second.err
    assert second.json()["pid"] != first


def test_a_new_daemon_waits_for_a_predecessor_still_holding_the_pidfile(home: Path) -> None:
    # What a daemon exiting after idling looks like to its successor: the pidfile is
    # locked, nobody answers on the socket. The successor waits instead of giving up.
    paths = enyal_paths.resolve()
    ensure_private_dir(paths.runtime_dir)
    held = paths.pid_file.open("a")
    fcntl.flock(held, fcntl.LOCK_EX)
    timer = threading.Timer(1.5, held.close)
    timer.start()
    try:
        t0 = time.monotonic()
        r = enyal("status", "--json", env=env_for(home))
        assert r.code == 0, r.err
        assert time.monotonic() - t0 >= 1.5
    finally:
        timer.join()


def test_a_daemon_of_another_version_is_detected_and_restart_fixes_it(home: Path) -> None:
    # A real daemon whose package says it is an older release, as after an upgrade.
    code = (
        "import sys, enyal_protocol\n"
        "enyal_protocol.__version__ = '0.0.1-old'\n"
        "from enyal_daemon.__main__ import main\n"
        "sys.exit(main())\n"
    )
    old = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(enyal_paths.resolve().socket.exists, 60, "the old daemon")
        r = enyal("stats", env=env_for(home))
        assert r.code == 1
        assert f"this client is enyal {__version__}" in r.err
        assert "runs enyal 0.0.1-old" in r.err and "`enyal daemon restart`" in r.err
        r = enyal("daemon", "restart", env=env_for(home))
        assert r.code == 0, r.err
        assert f"pid {old.pid} (enyal 0.0.1-old) -> pid" in r.out
        assert old.wait(30) == 0
        st = enyal("status", "--json", env=env_for(home))
        assert st.code == 0, st.err
        assert st.json()["version"] == __version__
    finally:
        if old.poll() is None:
            old.send_signal(signal.SIGKILL)
            old.wait()


def test_a_daemon_that_cannot_start_tells_the_client_why(home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text("[daemon]\nlog_level = 'LOUD'\n")
    r = enyal("stats", env=env_for(home))
    assert r.code == 1
    assert "daemon.log_level must be one of DEBUG, INFO, WARNING, ERROR" in r.err


def test_logs_shows_and_follows_the_background_daemons_log(home: Path) -> None:
    assert enyal("stats", env=env_for(home)).code == 0
    r = enyal("logs", "-n", "3", env=env_for(home))
    assert r.code == 0 and "ready on" in r.out
    assert len(r.out.splitlines()) <= 4
    follower = subprocess.Popen(
        [ENYAL, "logs", "-f", "-n", "0"], env=env_for(home), stdout=subprocess.PIPE, text=True
    )
    assert follower.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    out = follower.stdout

    def read() -> None:
        for x in out:
            lines.put(x)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code: int | None = None
    try:
        # The follower seeks to the end once it has started, at a moment this test cannot
        # see: a line appended before that is skipped (-n 0). So append one line every
        # half second until one comes through, reading in a thread so a quiet log never
        # blocks the deadline.
        deadline = time.monotonic() + 30
        seen = ""
        while "appended" not in seen and time.monotonic() < deadline:
            with enyal_paths.resolve().log_file.open("a") as f:
                f.write("a line appended after -f started\n")
            try:
                while "appended" not in seen:
                    seen = lines.get(timeout=0.5)
            except queue.Empty:
                pass
        assert "a line appended after -f started" in seen
    finally:
        # Whatever happened above, the follower does not outlive the test: a process left
        # running is reported (ResourceWarning, as an error) in whichever test of this
        # worker the garbage collector happens to run in next.
        follower.send_signal(signal.SIGINT)
        try:
            # Ctrl-C ends its 0.25 s poll at once; it then exits in 0.1-0.3 s (interpreter
            # teardown, measured at load 6 on the 2-core box): 10 s is a hang, not load.
            code = follower.wait(10)
        except subprocess.TimeoutExpired:
            follower.kill()
            follower.wait()
        reader.join(10)  # EOF once the follower is gone; then its pipe can be closed
        out.close()
    assert code == 0, f"the follower didn't end on SIGINT within 10 s (status {code})"


def test_a_request_the_daemon_hung_up_on_reaches_its_successor(home: Path) -> None:
    # A connection whose daemon went away (an idle exit, a restart) between two requests:
    # the next request is sent again to a daemon reached (or started) anew, not failed.
    conn = transport.connect(enyal_paths.resolve())
    try:
        first = conn.call("status", {})["pid"]
        stop_daemon_of_home()
        assert conn.call("stats", {})["total"] == 0
        assert conn.call("status", {})["pid"] != first
    finally:
        conn.close()
        stop_daemon_of_home()

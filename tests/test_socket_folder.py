"""ENYAL_SOCKET in a folder Enyal did not make: used as it is, never chmod-ed, and refused
when other users can write into it (they could put their own socket in its place)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from enyal_protocol.paths import ensure_private_dir
from service_support import env_for, enyal


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_daemon_refuses_a_socket_folder_others_can_write(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = env_for(tmp_path / "home", ENYAL_SOCKET=str(shared / "enyal.sock"))
    run = subprocess.run(
        [sys.executable, "-m", "enyal_daemon"], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1
    assert "writable by other users" in run.stderr and str(shared) in run.stderr
    assert mode(shared) == 0o777  # left as it was
    assert not (shared / "enyal.sock").exists()


def test_folders_are_tightened_only_when_enyal_made_them(tmp_path: Path) -> None:
    ours = tmp_path / "run"
    ours.mkdir(mode=0o755)
    ours.chmod(0o755)
    ensure_private_dir(ours)
    assert mode(ours) == 0o700
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o755)  # readable, not writable, by others: usable, and left alone
    ensure_private_dir(theirs, ours=False)
    assert mode(theirs) == 0o755
    theirs.chmod(0o1777)  # like /tmp
    with pytest.raises(PermissionError, match="writable by other users"):
        ensure_private_dir(theirs, ours=False)
    assert mode(theirs) == 0o1777
    fresh = tmp_path / "new" / "sock-dir"
    ensure_private_dir(fresh, ours=False)
    assert mode(fresh) == 0o700


# --- another user on the machine (issue 25): played by `nobody`, where we are root -------

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from torturelib import hostile  # noqa: E402


def _other_user() -> None:
    try:
        hostile.other_user()
    except hostile.Skip as skip:
        pytest.skip(str(skip))


def test_a_socket_another_user_listens_on_is_refused_and_told(tmp_path: Path) -> None:
    _other_user()
    with hostile.shared_temp_dir() as shared:
        bait = shared / "theirs" / "enyal.sock"
        with hostile.impostor(bait, make_folder=True) as them:
            env = env_for(tmp_path / "home", ENYAL_SOCKET=str(bait))
            r = enyal("remember", "The deploy key is in the vault.", env=env)
            assert r.code == 1, r
            assert f"{bait.parent} belongs to uid " in r.err and "ENYAL_SOCKET" in r.err, r.err
            assert them.received() == b""  # not one byte of the memory reached them
            assert not (tmp_path / "home" / "enyal.db").exists()


def test_a_listener_of_another_user_is_refused_even_on_our_own_socket_file(
    tmp_path: Path,
) -> None:
    """The socket file in our own folder, owned by us (moved there and chowned, as root
    can), but the process listening is another user's: its credentials give it away."""
    _other_user()
    ours = tmp_path / "run"
    ours.mkdir(mode=0o700)
    with hostile.shared_temp_dir() as shared:
        bait = shared / "theirs" / "enyal.sock"
        with hostile.impostor(bait, make_folder=True) as them:
            os.rename(bait, ours / "enyal.sock")
            os.chown(ours / "enyal.sock", os.getuid(), os.getgid())
            env = env_for(tmp_path / "home", ENYAL_SOCKET=str(ours / "enyal.sock"))
            r = enyal("recall", "deploy", env=env)
            assert r.code == 1, r
            assert "runs as uid " in r.err and "nothing was sent" in r.err, r.err
            assert them.received() == b""


def test_a_fallback_folder_another_user_made_first_is_passed_over(tmp_path: Path) -> None:
    """No XDG_RUNTIME_DIR and a home too deep for a socket: the socket would go in
    $TMPDIR/enyal-<uid>. Another user made that folder first and listens there; the
    client and the daemon use ~/.local/state/enyal/run instead, and work."""
    _other_user()
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "home"
    # The fallback socket must fit AF_UNIX's 108 bytes: a state folder short whatever
    # tmp_path is (pytest-xdist's workers add a level to it).
    with tempfile.TemporaryDirectory(prefix="st") as short, hostile.shared_temp_dir() as shared:
        state = Path(short)
        env = env_for(deep, TMPDIR=str(shared), XDG_RUNTIME_DIR=None, XDG_STATE_HOME=str(state))
        taken = shared / f"enyal-{os.getuid()}"
        import hashlib

        digest = hashlib.sha256(str(deep / "run").encode()).hexdigest()[:16]
        with hostile.impostor(taken / f"{digest}.sock", make_folder=True) as them:
            try:
                r = enyal("remember", "The deploy key is in the vault.", env=env)
                assert r.code == 0, r
                st = enyal("status", "--json", env=env).json()
                assert st["socket"] == str(state / "enyal" / "run" / f"{digest}.sock")
                assert mode(state / "enyal" / "run") == 0o700
                assert them.received() == b""
            finally:
                enyal("daemon", "stop", env=env)


def test_enyal_socket_naming_a_file_or_a_folder_is_refused_and_left_alone(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    folder = tmp_path / "afolder"
    folder.mkdir()
    for target in (notes, folder):
        env = env_for(tmp_path / "home", ENYAL_SOCKET=str(target))
        run = subprocess.run(
            [sys.executable, "-m", "enyal_daemon"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 1, run.stderr
        assert f"{target} is a " in run.stderr and "Traceback" not in run.stderr, run.stderr
        r = enyal("status", env=env)  # a client says so too, without starting anything
        assert r.code == 1 and f"{target} is not a socket" in r.err, r
        doctor = enyal("doctor", "--json", env=env)
        checks = {c["name"]: c for c in json.loads(doctor.out)["checks"]}
        assert checks["daemon"]["status"] == "fail", checks["daemon"]
        assert checks["daemon"]["detail"].startswith(f"connecting to {target}: {target} is not")
        assert not any("the check raised" in c["detail"] for c in checks.values()), checks
    assert notes.read_text() == "my notes\n" and folder.is_dir()


def test_a_daemon_serving_another_data_dir_is_noticed(tmp_path: Path) -> None:
    """Two homes, one socket (ENYAL_SOCKET set for both): the second home's client must
    not read and write the first home's memories as if they were its own."""
    first = env_for(tmp_path / "first")
    assert enyal("remember", "The first home's secret plan.", env=first).code == 0
    try:
        sock = enyal("status", "--json", env=first).json()["socket"]
        second = env_for(tmp_path / "second", ENYAL_SOCKET=sock)
        r = enyal("recall", "secret plan", env=second)
        assert r.code == 1, r
        assert f"serves the database {tmp_path / 'first' / 'enyal.db'}" in r.err, r.err
        assert str(tmp_path / "second" / "enyal.db") in r.err and "ENYAL_SOCKET" in r.err
        assert "secret plan" not in r.out
    finally:
        enyal("daemon", "stop", env=first)


def test_paths_answer_for_the_environment_given(tmp_path: Path) -> None:
    """Clients send the database they resolved, to be compared with the daemon's: resolve()
    must read XDG_* from the environment it is given, as platformdirs would from its own."""
    from enyal_protocol.paths import resolve

    if not sys.platform.startswith("linux"):
        pytest.skip("the XDG folders are Linux's")
    env = {k: str(tmp_path / k.lower()) for k in ("XDG_DATA_HOME", "XDG_STATE_HOME")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_CACHE_HOME": str(tmp_path / "k")}
    paths = resolve(env)
    assert paths.db == tmp_path / "xdg_data_home" / "enyal" / "enyal.db"
    assert paths.log_dir == tmp_path / "xdg_state_home" / "enyal" / "log"
    assert paths.config_file == tmp_path / "c" / "enyal" / "config.toml"
    assert paths.cache_dir == tmp_path / "k" / "enyal"


def test_the_temp_folder_is_tempfiles_choice(tmp_path: Path) -> None:
    """paths._temp_dir (where the socket goes without XDG_RUNTIME_DIR) answers as
    tempfile.gettempdir() does, without importing it: the client and a daemon of an
    older release must find the same socket. Each case in a fresh interpreter (tempfile
    keeps its first answer)."""
    code = (
        "import sys\n"
        "from enyal_protocol.paths import _temp_dir\n"
        "mine, loaded = _temp_dir(), 'tempfile' in sys.modules\n"
        "import tempfile\n"
        "print(loaded, str(mine) == tempfile.gettempdir())"
    )
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    cases = [{}, {"TMPDIR": str(tmp_path)}, {"TMPDIR": str(tmp_path / "missing")}]
    cases += [{"TMPDIR": "", "TMP": str(tmp_path)}, {"TMPDIR": str(tmp_path / "a" / "..")}]
    if os.getuid() != 0:  # root may write anywhere: tempfile would take it too
        cases.append({"TMPDIR": str(locked)})
    for extra in cases:
        env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
        r = subprocess.run(
            [sys.executable, "-c", code],
            env=env | extra,
            capture_output=True,
            text=True,
            check=True,
        )
        assert r.stdout.split() == ["False", "True"], (extra, r.stdout)

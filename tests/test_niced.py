"""The niced thread (enyal_daemon/niced.py): what it is handed runs there, at a lower CPU
priority, the caller waiting for its result or its exception; the caller's own priority
never changes; close stops the thread."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.niced import NICE, Niced

LINUX = sys.platform.startswith("linux")


def _where() -> tuple[str, int]:
    return threading.current_thread().name, os.getpriority(
        os.PRIO_PROCESS, threading.get_native_id()
    )


def test_what_is_handed_runs_on_the_niced_thread_and_the_caller_keeps_its_priority() -> None:
    low = Niced("test-low")
    before = _where()
    try:
        name, nice = low.run(_where)
        assert name == "test-low"
        if LINUX:  # renices its own thread only, NICE steps below the caller
            assert nice == min(19, before[1] + NICE)
        assert _where() == before
        with pytest.raises(ZeroDivisionError):
            low.run(lambda: 1 // 0)
        assert low.run(lambda: 42) == 42  # the thread lives on after an exception
    finally:
        low.close()
    assert not any(t.name == "test-low" for t in threading.enumerate())
    try:  # handed more after close: a thread of its own again
        assert low.run(_where)[0] == "test-low"
    finally:
        low.close()


# Run in a process of its own: the tokenizer's pool is the process's, started once.
_FIRST_EMBEDDING_NICED = """
import os, sys, threading
from pathlib import Path
from enyal_daemon.embedder import build8
from enyal_daemon.embedder.model_files import locate
from enyal_daemon.niced import Niced
from enyal_daemon.service.core.engine import Engine

embedder = build8.load(locate(Path("/nonexistent")), Path(sys.argv[1]))
embedder.warm_up()  # as open_engine does
engine = Engine(Path(sys.argv[2]), embedder)
low = Niced("low")
texts = [f"passage {k} of a long text that a catch-up embeds" for k in range(64)]
low_id = low.run(threading.get_native_id)
low.run(lambda: engine.embed_many_soon(texts)())
def nice(tid):
    return int(Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()[16])
named = {t.native_id: t.name for t in threading.enumerate()}
print(sorted((named.get(int(t), "?"), nice(t)) for t in os.listdir("/proc/self/task")))
low.close()
engine.close()
"""


@pytest.mark.skipif(not LINUX, reason="niceness per thread is Linux's")
def test_the_embedding_threads_keep_the_daemons_priority_whoever_embeds_first(
    embedder: Any, model_cache: Path, tmp_path: Path
) -> None:
    """A thread is born at its creator's CPU priority, and the embedding pool's threads
    and the tokenizer's are started by the first batch: a hub catch-up's niced thread
    embedding a long text first left them niced for the daemon's life (every import after
    embedding at low priority). Both are started as the daemon starts (Engine;
    Embedder.warm_up), so every thread but the niced one keeps the process's priority."""
    script = [
        sys.executable,
        "-c",
        _FIRST_EMBEDDING_NICED,
        str(model_cache),
        str(tmp_path / "e.db"),
    ]
    out = subprocess.run(script, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    threads = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    # Niced by design: the catch-up's stand-in, and the WAL's checkpoint thread.
    rest = [(name, nice) for name, nice in threads if name not in ("low", "enyal-checkpoint")]
    assert sum(name.startswith("enyal-embed_") for name, _ in rest) == 2, threads
    assert any(name == "?" for name, _ in rest), threads  # the tokenizer's (Rust) threads
    assert {nice for _, nice in rest} == {mine}, threads

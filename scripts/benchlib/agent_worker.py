"""One agent of the many-agents mix: 80% recall, 20% remember, for a fixed time.

    python agent_worker.py MODE SECONDS SEED [RECALL_SHARE]    (MODE: daemon | peer)

daemon: a thin client on the daemon's socket (what `enyal` and `enyal-mcp` are).
peer:   the engine in this process on the same database file, as per-client
        servers do (model, index and a writer connection of its own), flushing its
        access counts and analytics every 2 s as the daemon does.
It prints "ready" once set up, waits for a line on stdin (every agent starts at
once), runs, and prints one JSON line: latencies, errors, RSS.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import corpus
from benchlib.procs import rss_mb

RECALL_SHARE = 0.8


def daemon_ops() -> tuple[Callable[[str], Any], Callable[[str], Any], Callable[[], None]]:
    from enyal_client import transport

    conn = transport.connect(autostart=False)
    cwd = os.getcwd()

    def recall(q: str) -> Any:
        return conn.call_raw("recall", {"query": q, "cwd": cwd})

    def remember(text: str) -> Any:
        return conn.call_raw("remember", {"content": text, "cwd": cwd})

    return recall, remember, conn.close


def peer_ops() -> tuple[Callable[[str], Any], Callable[[str], Any], Callable[[], None]]:
    from benchlib.peer_mcp import load_engine
    from enyal_daemon.server.daemon import TOUCH_FLUSH_SECONDS
    from enyal_daemon.service.memory.memories import remember as remember_verb
    from enyal_daemon.service.memory.recall import recall as recall_verb
    from enyal_protocol import wire as p

    memory = load_engine()
    cwd = os.getcwd()
    stop = threading.Event()

    def flusher() -> None:  # what the daemon's flush_bookkeeping_forever does
        while not stop.wait(TOUCH_FLUSH_SECONDS):
            memory.flush_bookkeeping()

    thread = threading.Thread(target=flusher, daemon=True)
    thread.start()

    def recall(q: str) -> Any:
        return recall_verb(memory, p.RecallParams(query=q, cwd=cwd))

    def remember(text: str) -> Any:
        return remember_verb(memory, p.RememberParams(content=text, cwd=cwd))

    def close() -> None:
        stop.set()
        thread.join()
        memory.close()

    return recall, remember, close


def main() -> int:
    mode, seconds, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    share = float(sys.argv[4]) if len(sys.argv) > 4 else RECALL_SHARE
    recall, remember, close = daemon_ops() if mode == "daemon" else peer_ops()
    rng = random.Random(seed)
    queries = corpus.questions(500, seed=seed)
    texts = [t for _, t in corpus.base_texts(300, seed=1000 + seed)]
    lat: dict[str, list[float]] = {"recall": [], "remember": []}
    errors: Counter[str] = Counter()
    recall(queries[0])  # warm the connection (or the engine) before the clock starts
    print("ready", flush=True)
    sys.stdin.readline()
    cpu0 = time.process_time()
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:
        i += 1
        kind = "recall" if rng.random() < share else "remember"
        t0 = time.perf_counter()
        try:
            if kind == "recall":
                # a query of its own (agent and op number): the daemon remembers a
                # query's vector (embedder/memo.py), shared by every agent, where each
                # per-client engine remembers only its own: repeats would favour it
                recall(f"{rng.choice(queries)} (agent {seed} asks {i})")
            else:
                remember(f"{rng.choice(texts)} (agent {seed}, note {i})")
        except Exception as exc:
            errors[f"{kind}: {type(exc).__name__}: {str(exc)[:80]}"] += 1
            if os.environ.get("ENYAL_BENCH_DEBUG"):
                traceback.print_exc()
            continue
        lat[kind].append(time.perf_counter() - t0)
    cpu = time.process_time() - cpu0
    rss, hwm = rss_mb(os.getpid())
    close()
    out = {"lat": lat, "errors": dict(errors), "rss_mb": rss, "hwm_mb": hwm, "cpu_s": cpu}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a recall's time goes while an initial sync runs (issue 28): the bench's initial
sync and its recalls (s_hub.py `sync_and_recall`), the syncing daemon recorded as
profile_tail.py records one (each recall's verb: its wall, its thread's CPU and its wait
for a core; the commits, inferences, keyword searches, checkpoints, collections, and the
sync's own pieces beside them), then profile_tail's report for the recalls during the
sync and for those idle after it.

    cd scripts && PYTHONPATH=../daemon:../client ../.venv/bin/python -m benchlib.profile_hubtail
        [--sync 100000] [--json out.json]

A first daemon, as its own role, pushes one memory to a space: the template of the
SYNC put changes seeded into the space the recorded daemon then joins, as s_hub.py does.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sync", type=int, default=100_000, help="memories in the space synced")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    ap.add_argument("--slow", type=float, default=0.01, help="share of recalls called slow")
    ap.add_argument("--json", type=Path, help="also write the recalls and events here")
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib import profile_tail, s_hub
    from benchlib.procs import Daemon
    from benchlib.store import Engine, make_corpus
    from enyal_daemon.hub.link import PgLink
    from harnesslib.pg_cluster import PgCluster

    c = make_corpus(Engine.load(), s_hub.SYNC["full"], args.cache, print)
    texts, vecs = [t for _, t in c.texts][: args.sync], c.vecs[: args.sync]
    cluster = PgCluster(tcp=True)
    work = Path(tempfile.mkdtemp(prefix="enyal-hubtail-"))
    started: list[Daemon] = []
    try:
        cluster.start()
        cluster.hub_setup()
        os.environ.update(cluster.env())
        url = functools.partial(cluster.url, tcp=True)
        owner = PgLink(cluster.url("enyal_hub"))
        owner.init_schema()
        owner.close()
        a = Daemon.start(work / "a")
        started.append(a)
        ca = a.connect()
        ca.call("hub.init", {"url": url("alice")})
        ca.call("hub.join", {"space": "team"})
        template = {"content": texts[0] + " (template)", "space": "team", "scope": "global"}
        ca.call("remember", template)
        deadline = time.monotonic() + 60
        while ca.call("hub.status", {})["outbox"]:
            assert time.monotonic() < deadline, "the template was never pushed"
            time.sleep(0.1)
        s_hub._seed(cluster, texts, vecs, "big")
        events_file = work / "events.json"
        os.environ["ENYAL_BENCH_DAEMON"] = (
            f"{sys.executable} {HERE / 'profile_tail.py'} --daemon {events_file}"
        )
        os.environ["ENYAL_TAIL_VERB"] = "recall"
        d = Daemon.start(work / "c")
        started.append(d)
        got = s_hub.sync_and_recall(d, url("carol"), "big", len(texts))
        d.stop()  # the recorder writes its events as the daemon exits
        started.remove(d)
        events = [tuple(e) for e in json.loads(events_file.read_text())]
        print(f"sync {len(texts) / got.sync_s:,.0f} memories/s")
        for name, lat in (("during the sync", got.during), ("idle after it", got.idle)):
            print(f"=== recalls {name} ===")
            profile_tail.report(lat, events, args.slow)  # type: ignore[arg-type]
        if args.json:
            args.json.write_text(
                json.dumps({"during": got.during, "idle": got.idle, "events": events})
            )
    finally:
        for daemon in started:
            daemon.stop()
        cluster.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

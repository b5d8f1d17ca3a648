"""12. The team hub's PostgreSQL side (issue 28): push and pull throughput of the change
log with 384-dim vectors, and LISTEN/NOTIFY wake-up latency, on a throwaway cluster over
loopback TCP (scripts/harnesslib/pg_cluster.py; its fsync is off, see there).

Push: alice appends N changes in batches of PUSH_BATCH (one transaction each, as the
replica's outbox drains). Pull: bob, a member of the space, reads them all from seq 0 in
pages of PULL_PAGE, each row checked into a Change (the hub's side of an initial sync:
the replica's apply comes on top). Wake-up: bob waits, alice pushes one change; from the
push's call to bob's wait returning (the hub's side of propagation: the replica's pull
and apply come on top).

Runs alone, without the rest of the bench:

    PYTHONPATH=daemon:client:scripts .venv/bin/python scripts/benchlib/s_hub.py [ROWS]
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: benchlib is its folder's package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from benchlib.config import Ctx
from benchlib.report import Report, Row, Target, size
from benchlib.stats import Runs, pct
from enyal_daemon.hub.change import Change, Pulled
from enyal_daemon.hub.link import PgLink
from harnesslib.pg_cluster import PgCluster, pg_bin

ROWS = {"full": 100_000, "quick": 10_000}
DIM = 384  # all-MiniLM-L6-v2's
PUSH_BATCH = 500
PULL_PAGE = 1_000
WAKES = {"full": 200, "quick": 40}
SYNC_GOAL = 1_000.0  # memories/s for an initial sync (issue 28): the hub must pull faster
WAKE_GOAL_MS = 1_000.0  # propagation p99 (issue 28): the hub's wake-up is part of it


def _changes(space: str, n: int, seed: int) -> list[Change]:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype("<f4")
    return [
        Change(
            change_id=uuid.uuid4().hex,
            space=space,
            memory_id=str(uuid.uuid4()),
            clock=i + 1,
            device="bench-a",
            kind="put",
            body=b'{"content": "memory %d of the bench, about the same size as a real '
            b'note an agent keeps", "content_type": "fact", "tags": ["bench"]}' % i,
            vector=vectors[i].tobytes(),
            model_id="all-MiniLM-L6-v2",
        )
        for i in range(n)
    ]


def run(ctx: Ctx | None, daemon: Any = None, n: int = 0, report: Report | None = None) -> None:
    """The daemon and store size the other sections use are not needed: the hub section
    makes its own cluster and log of ROWS changes."""
    rep = report or (ctx.report if ctx is not None else None)
    assert rep is not None
    mode = ctx.cfg.mode if ctx is not None else "full"
    rows = n or ROWS[mode]
    if pg_bin() is None:
        rep.notes.append("Section 12 (the hub) did not run: no PostgreSQL initdb here.")
        return
    cluster = PgCluster(tcp=True)
    saved = os.environ.get("PGPASSFILE")
    try:
        cluster.start()
        cluster.hub_setup()
        os.environ.update(cluster.env())
        _measure(cluster, rows, WAKES[mode], rep)
    finally:
        cluster.close()
        if saved is None:
            os.environ.pop("PGPASSFILE", None)
        else:
            os.environ["PGPASSFILE"] = saved


def _measure(cluster: PgCluster, rows: int, wakes: int, rep: Report) -> None:
    s = size(rows)
    owner = PgLink(cluster.url("enyal_hub"))
    owner.init_schema()
    owner.close()
    alice, bob = PgLink(cluster.url("alice")), PgLink(cluster.url("bob"))
    try:
        alice.join("bench")
        alice.invite("bench", "bob")
        bob.join("bench")
        changes = _changes("bench", rows, 12)
        t0 = time.perf_counter()
        for i in range(0, rows, PUSH_BATCH):
            alice.push(changes[i : i + PUSH_BATCH])
        push_s = time.perf_counter() - t0
        rep.add(
            Row(
                "12",
                f"hub push: changes/s, {DIM}-dim vectors, batches of {PUSH_BATCH}",
                s,
                Runs([rows / push_s]),
                "/s",
                note=f"{rows:,} changes in {push_s:.1f} s over loopback TCP, "
                "one transaction a batch",
            )
        )
        t0 = time.perf_counter()
        got, cursor = 0, 0
        while page := bob.pull(cursor, PULL_PAGE):
            got += sum(isinstance(p, Pulled) for p in page)
            cursor = page[-1].seq
        pull_s = time.perf_counter() - t0
        assert got == rows, f"pulled {got:,} of {rows:,}"
        rep.add(
            Row(
                "12",
                f"hub pull from 0: changes/s, vectors carried, pages of {PULL_PAGE:,}",
                s,
                Runs([rows / pull_s]),
                "/s",
                Target(">=", SYNC_GOAL),
                note=f"{rows:,} in {pull_s:.1f} s, each checked into a Change; the hub's "
                "side of the initial-sync goal (the replica's apply comes on top)",
            )
        )
        rep.add(_wake_row(alice, bob, wakes, s))
    finally:
        alice.close()
        bob.close()


def _wait(bob: PgLink, ready: threading.Event, woke: list[float]) -> None:
    ready.set()
    if bob.wait(10):
        woke.append(time.perf_counter())


def _wake_row(alice: PgLink, bob: PgLink, wakes: int, s: str) -> Row:
    bob.wait(1)  # the first wait listens and answers at once
    samples: list[float] = []
    more = _changes("bench", wakes, 13)
    for change in more:
        ready = threading.Event()
        woke: list[float] = []
        waiter = threading.Thread(target=_wait, args=(bob, ready, woke))
        waiter.start()
        ready.wait()
        t0 = time.perf_counter()
        alice.push([change])
        waiter.join()
        if woke:
            samples.append((max(woke[0], t0) - t0) * 1000)
    return Row(
        "12",
        "hub LISTEN wake-up after another role's push: p99",
        s,
        Runs([pct(samples, 99)]),
        "ms",
        Target("<=", WAKE_GOAL_MS),
        note=f"{len(samples)} of {wakes} woke; p50 {pct(samples, 50):.1f} ms; from the push's "
        "call (its commit included) to the waiter's return: the hub's side of propagation",
        pooled=pct(samples, 99),
    )


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else ROWS["quick"]
    report = Report({"cores": os.cpu_count()}, {})
    run(None, None, rows, report)
    print(report.markdown())


if __name__ == "__main__":
    main()

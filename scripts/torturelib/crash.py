"""Case 1: kill -9 during acknowledged writes.

Per trial, 2-4 client threads on their own connections remember, update, forget (soft
and hard) and link their own entries as fast as the daemon answers, writing down every
acknowledgement; after 0.5-2 s the daemon is SIGKILLed, restarted on the same home, and
every write acknowledged so far (this trial and the earlier ones) must be there as
acknowledged. A write that was sent but never answered may or may not have landed.
The database must be whole: integrity_check, FTS5's integrity-check, and as many
vectors and FTS rows as entries.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enyal_client import transport

from .harness import (
    TOPICS,
    Daemon,
    Row,
    check_db,
    export_edges,
    export_entries,
    home_env,
    log,
    logged_faults,
)

TYPES = ["fact", "preference", "decision", "convention", "pattern"]


@dataclass
class Item:
    content: str
    tag: str
    trial: int
    maybe: set[str] = field(default_factory=set)  # contents of unanswered updates
    hard_deleted: bool = False
    maybe_hard_deleted: bool = False
    forgotten: bool = False
    maybe_forgotten: bool = False

    @property
    def certain(self) -> bool:
        doubt = self.maybe or self.maybe_hard_deleted or self.maybe_forgotten
        return not (doubt or self.hard_deleted or self.forgotten)


@dataclass
class Ledger:
    """What the clients were told, across every trial."""

    items: dict[str, Item] = field(default_factory=dict)
    edges: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    sent: set[str] = field(default_factory=set)  # every content sent, answered or not
    acked: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Stream(threading.Thread):
    """One client: writes on its own connection until the daemon goes away."""

    def __init__(
        self, trial: int, t: int, conn: transport.Connection, ledger: Ledger, seed: int
    ) -> None:
        super().__init__(name=f"stream-{trial}-{t}", daemon=True)
        self.trial, self.t, self.conn, self.ledger = trial, t, conn, ledger
        self.rng = random.Random(seed)
        self.tag = f"k{trial}-{t}"
        self.unexpected: list[str] = []  # errors answered while the daemon was up
        self.ended_at: float | None = None  # when the connection failed
        self.end: str = ""
        self.ops = 0

    def run(self) -> None:
        live: list[str] = []
        pairs: set[tuple[str, str, str]] = set()
        led, rng = self.ledger, self.rng
        i = 0
        while True:
            i += 1
            r = rng.random()
            op = "remember"
            if len(live) >= 3 and r < 0.2:
                op = "update"
            elif len(live) >= 3 and r < 0.3:
                op = "forget"
            elif len(live) >= 2 and r < 0.42:
                op = "link"
            pending: Any = None
            try:
                if op == "remember":
                    text = (
                        f"Trial {self.trial}, client {self.t}, note {i}: a remark about "
                        f"{rng.choice(TOPICS)} ({rng.randrange(10**9)})"
                    )
                    with led.lock:
                        led.sent.add(text)
                    params = {
                        "content": text,
                        "scope": "global",
                        "tags": [self.tag],
                        "content_type": rng.choice(TYPES),
                    }
                    res = self.conn.call("remember", params)
                    with led.lock:
                        if res["entry"]["content"] != text or res["action"] != "created":
                            self.unexpected.append(f"remember answered {res['action']}")
                        led.items[res["id"]] = Item(text, self.tag, self.trial)
                        led.acked += 1
                    live.append(res["id"])
                elif op == "update":
                    target = rng.choice(live)
                    text = f"Trial {self.trial}, client {self.t}, rewrite {i}: {rng.choice(TOPICS)}"
                    with led.lock:
                        led.sent.add(text)
                    pending = ("update", target, text)
                    res = self.conn.call("update", {"id": target, "content": text})
                    pending = None
                    with led.lock:
                        if res["content"] != text:
                            self.unexpected.append(f"update of {target} answered other content")
                        led.items[target].content = text
                        led.acked += 1
                elif op == "forget":
                    target = live.pop(rng.randrange(len(live)))
                    hard = rng.random() < 0.5
                    pending = ("forget", target, hard)
                    res = self.conn.call("forget", {"id": target, "hard": hard})
                    pending = None
                    with led.lock:
                        item = led.items[target]
                        if hard:
                            item.hard_deleted = True
                        else:
                            item.forgotten = True
                        led.acked += 1
                else:
                    src, dst = rng.sample(live, 2)
                    kind = rng.choice(["relates_to", "depends_on"])
                    if (src, dst, kind) in pairs:
                        continue
                    pairs.add((src, dst, kind))
                    params = {"source_id": src, "target_id": dst, "edge_type": kind}
                    res = self.conn.call("link", params)
                    with led.lock:
                        led.edges[res["id"]] = (src, dst, kind)
                        led.acked += 1
                self.ops += 1
            except transport.RpcError as exc:
                self.unexpected.append(f"{op}: {exc.code} {exc.message}")
            except Exception as exc:  # the daemon went away (or the connection broke)
                self.ended_at = time.monotonic()
                self.end = f"{type(exc).__name__}: {exc}"
                with led.lock:
                    if pending is not None and pending[0] == "update":
                        led.items[pending[1]].maybe.add(pending[2])
                    elif pending is not None and pending[0] == "forget":
                        if pending[2]:
                            led.items[pending[1]].maybe_hard_deleted = True
                        else:
                            led.items[pending[1]].maybe_forgotten = True
                return


class Verifier:
    """Compares the store with the ledger; each loss is counted once over all trials."""

    def __init__(self, row: Row) -> None:
        self.row = row
        self.seen: set[tuple[str, str]] = set()

    def lost(self, key: tuple[str, str], text: str) -> None:
        if key not in self.seen:
            self.seen.add(key)
            self.row.problem("lost", text)

    def check(self, d: Daemon, ledger: Ledger, trial: int, probe_text: str) -> None:
        row = self.row
        stored = {e["id"]: e for e in export_entries(d.call)}
        edges = {e["id"]: e for e in export_edges(d.call)}
        for eid, item in ledger.items.items():
            if item.hard_deleted:
                if eid in stored:
                    self.lost(("delete", eid), f"acknowledged hard forget of {eid} was undone")
                continue
            entry = stored.get(eid)
            if entry is None:
                if not item.maybe_hard_deleted:
                    self.lost(("entry", eid), f"acknowledged entry {eid} is missing")
                continue
            if entry["content"] != item.content and entry["content"] not in item.maybe:
                self.lost(
                    ("content", eid),
                    f"{eid} holds {entry['content']!r}, acknowledged {item.content!r}",
                )
            if item.forgotten and not entry["is_deprecated"]:
                self.lost(("forget", eid), f"acknowledged forget of {eid} was undone")
            if entry["is_deprecated"] and not (item.forgotten or item.maybe_forgotten):
                row.bad_integrity(f"{eid} is forgotten but nobody forgot it")
        gone = {i for i, it in ledger.items.items() if it.hard_deleted or it.maybe_hard_deleted}
        for edge_id, (src, dst, kind) in ledger.edges.items():
            if src in gone or dst in gone:
                continue
            got = edges.get(edge_id)
            if got is None or (got["source_id"], got["target_id"], got["edge_type"]) != (
                src,
                dst,
                kind,
            ):
                self.lost(("edge", edge_id), f"acknowledged {kind} edge {edge_id} is missing")
        for eid, entry in stored.items():
            if (
                eid not in ledger.items
                and entry["content"] not in ledger.sent
                and entry["content"] != probe_text
            ):
                row.bad_integrity(f"an entry nobody wrote: {eid} {entry['content'][:60]!r}")
        stats = d.call("stats", {})
        if stats["total"] != len(stored):
            row.problem("errors", f"stats says {stats['total']} entries, export {len(stored)}")


def run(row: Row, root: Path, trials: int, rng: random.Random) -> None:
    home = root / "home"
    env = home_env(home)
    ledger = Ledger()
    verifier = Verifier(row)
    killed_ops: list[int] = []
    try:
        trial_loop(row, root, env, ledger, verifier, killed_ops, trials, rng)
    finally:
        row.acked = ledger.acked
        if killed_ops:
            row.note(
                f"{len(killed_ops)} kills after 0.5-2 s; {min(killed_ops)}-{max(killed_ops)} "
                "acked writes per trial; every ack re-checked after each restart"
            )
        row.details["acked_per_trial"] = killed_ops


def trial_loop(
    row: Row,
    root: Path,
    env: dict[str, str],
    ledger: Ledger,
    verifier: Verifier,
    killed_ops: list[int],
    trials: int,
    rng: random.Random,
) -> None:
    for trial in range(trials):
        d = Daemon(env, root / "daemon.log").start()
        n_clients = rng.randint(2, 4)
        delay = rng.uniform(0.5, 2.0)
        conns = [d.connect() for _ in range(n_clients)]
        streams = [
            Stream(trial, t, conns[t], ledger, rng.randrange(2**32)) for t in range(n_clients)
        ]
        acked_before = ledger.acked
        for s in streams:
            s.start()
        time.sleep(delay)
        died = not d.alive()
        if died:
            row.problem("crashes", f"trial {trial}: the daemon died early: {d.log_tail()}")
        killed_at = time.monotonic()
        status = d.kill()
        if not died and status != -9:
            row.problem("crashes", f"trial {trial}: the daemon exited with {status}")
        for s in streams:
            s.join(60)
            if s.is_alive():
                row.problem("errors", f"trial {trial}: client {s.t} still blocked after the kill")
            if s.ended_at is not None and s.ended_at < killed_at:
                row.problem("errors", f"trial {trial}: client {s.t} lost its connection: {s.end}")
            for text in s.unexpected:
                row.problem("errors", f"trial {trial}: client {s.t}: {text}")
        for c in conns:
            c.close()
        for fault in logged_faults(d.log_text()):
            row.problem("errors", f"trial {trial} (before the kill): {fault}")
        acked = ledger.acked - acked_before
        killed_ops.append(acked)

        try:
            d = Daemon(env, root / "daemon.log").start()
        except Exception as exc:
            row.problem("crashes", f"trial {trial}: the daemon does not restart: {exc}")
            return
        try:
            check = check_db(d.paths.db)
            for problem in check.problems:
                row.bad_integrity(f"trial {trial}: {problem}")
            probe_text = f"Trial {trial}: written after the restart"
            verifier.check(d, ledger, trial, probe_text)
            # The vector index was rebuilt from what survived: an entry's own text finds it.
            certain = [
                (i, it) for i, it in ledger.items.items() if it.trial == trial and it.certain
            ]
            if certain:
                eid, item = rng.choice(certain)
                hits = d.call(
                    "recall",
                    {"query": item.content, "tags": [item.tag], "limit": 100, "min_confidence": 0},
                )["results"]
                semantic = {h["id"]: h["semantic"] for h in hits}.get(eid, 0.0)
                if semantic < 0.99:
                    row.problem("errors", f"trial {trial}: recall of {eid}'s text: {semantic}")
            res = d.call("remember", {"content": probe_text, "scope": "global"})
            ledger.items[res["id"]] = Item(probe_text, "", trial)
            ledger.acked += 1
        finally:
            code = d.stop()
            if code != 0:
                row.problem("errors", f"trial {trial}: SIGTERM after the restart: exit {code}")
            for fault in logged_faults(d.log_text()):
                row.problem("errors", f"trial {trial} (after the restart): {fault}")
        log(
            f"[{row.case}] trial {trial + 1}/{trials}: {n_clients} clients, killed after "
            f"{delay:.2f} s and {acked} acknowledged writes; {len(ledger.items)} entries checked"
        )
        row.runs += 1

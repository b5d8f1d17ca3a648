"""Case 2: 16 clients, each on its own connection, mixing every kind of request on a
shared pool of entries for T seconds.

Every error is classified. Expected are only the ones the race makes legitimate: -32001
for an id that some client has (been) sending a hard forget for, and -32005 for a link
that exists already or would give a supersession chain a second head. Anything else (an
internal error, invalid params for a valid request, "database is locked", a dropped
connection, a timeout) is a failure. At the end the daemon must be up, every
acknowledged write there, and the database consistent.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enyal_client import transport
from enyal_protocol import wire as p

from .harness import (
    TOPICS,
    Daemon,
    Row,
    check_db,
    connect,
    export_edges,
    export_entries,
    home_env,
    log,
    logged_faults,
)

TYPES = ["fact", "preference", "decision", "convention", "pattern"]
EDGE_TYPES = ["relates_to", "depends_on", "supersedes", "conflicts_with"]
OPS = {
    "remember": 24,
    "recall": 20,
    "get": 14,
    "update": 12,
    "forget": 7,
    "link": 12,
    "stats": 4,
    "edges": 4,
    "history": 3,
}
CODE_NAMES = {
    getattr(p, n): n
    for n in dir(p)
    if n.isupper() and isinstance(getattr(p, n), int) and -32800 < getattr(p, n) < -32000
}


def code_name(code: int) -> str:
    return CODE_NAMES.get(code, str(code))


@dataclass
class Shared:
    lock: threading.Lock = field(default_factory=threading.Lock)
    pool: list[str] = field(default_factory=list)  # ids the clients pick from
    deleting: set[str] = field(default_factory=set)  # a hard forget was sent for these
    hard_acked: set[str] = field(default_factory=set)
    contents: dict[str, set[str]] = field(default_factory=dict)  # id -> acknowledged contents
    edges: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    ops: Counter[str] = field(default_factory=Counter)
    acked: int = 0
    expected: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    locked: int = 0  # "database is locked" answers
    slowest: float = 0.0


class Client(threading.Thread):
    def __init__(self, w: int, d: Daemon, shared: Shared, deadline: float, seed: int) -> None:
        super().__init__(name=f"client-{w}", daemon=True)
        self.w, self.d, self.shared, self.deadline = w, d, shared, deadline
        self.rng = random.Random(seed)
        self.conn: transport.Connection | None = None
        self.n = 0

    def pick(self, k: int = 1) -> list[str]:
        with self.shared.lock:
            pool = self.shared.pool
            if len(pool) < k:
                return []
            return self.rng.sample(pool, k)

    def run(self) -> None:
        ops, weights = list(OPS), list(OPS.values())
        failures = 0
        while time.monotonic() < self.deadline and failures < 3:
            op = self.rng.choices(ops, weights)[0]
            try:
                if self.conn is None:
                    self.conn = connect(self.d.paths)
                self.one(op)
            except Exception as exc:
                failures += 1
                with self.shared.lock:
                    self.shared.unexpected.append(
                        f"client {self.w} {op}: connection failed: {type(exc).__name__}: {exc}"
                    )
                if self.conn is not None:
                    self.conn.close()
                    self.conn = None
        if self.conn is not None:
            self.conn.close()

    def call(self, op: str, params: dict[str, Any], ids: list[str]) -> Any:
        """One request; an error is classified as expected (returns None) or not."""
        assert self.conn is not None
        started = time.monotonic()
        try:
            return self.conn.call(op, params)
        except transport.RpcError as exc:
            s = self.shared
            with s.lock:
                if "database is locked" in exc.message:
                    s.locked += 1
                if exc.code == p.NOT_FOUND and any(i in s.deleting for i in ids):
                    s.expected[f"{op}: NOT_FOUND (racing hard forget)"] += 1
                elif exc.code == p.CONFLICT and op == "link":
                    s.expected[f"link: CONFLICT ({exc.message[:40]}…)"] += 1
                elif exc.code == p.CONFLICT and op == "remember" and "supersedes" in params:
                    s.expected["remember: CONFLICT (chain head)"] += 1
                else:
                    s.unexpected.append(f"{op} {params}: {code_name(exc.code)} {exc.message}"[:400])
            return None
        finally:
            took = time.monotonic() - started
            with self.shared.lock:
                self.shared.ops[op] += 1
                self.shared.slowest = max(self.shared.slowest, took)

    def one(self, op: str) -> None:
        rng, s = self.rng, self.shared
        self.n += 1
        if op == "remember":
            text = (
                f"Client {self.w}, note {self.n}: a remark about {rng.choice(TOPICS)} "
                f"(#{rng.randrange(10**9)})"
            )
            params: dict[str, Any] = {
                "content": text,
                "scope": "global",
                "content_type": rng.choice(TYPES),
                "tags": [f"c{self.w}"],
            }
            ids: list[str] = []
            r = rng.random()
            if r < 0.15:
                ids = self.pick()
                if ids:
                    params["relates_to"] = ids
            elif r < 0.25:
                params["dedup"] = "reject"
            res = self.call("remember", params, ids)
            if res is not None and res["action"] == "created":
                with s.lock:
                    s.pool.append(res["id"])
                    s.contents[res["id"]] = {text}
                    s.acked += 1
        elif op == "recall":
            params = {"query": rng.choice(TOPICS), "limit": rng.randint(1, 50)}
            if rng.random() < 0.3:
                params["tags"] = [f"c{rng.randrange(16)}"]
            if rng.random() < 0.2:
                params["include_deprecated"] = True
            self.call("recall", params, [])
        elif op in ("get", "edges", "history"):
            ids = self.pick()
            if ids:
                self.call(op, {"id": ids[0]}, ids)
        elif op == "stats":
            self.call("stats", {}, [])
        elif op == "update":
            ids = self.pick()
            if not ids:
                return
            if rng.random() < 0.6:
                text = f"Client {self.w}, rewrite {self.n}: {rng.choice(TOPICS)} changed"
                params = {"id": ids[0], "content": text}
            else:
                text = ""
                params = {"id": ids[0], "confidence": round(rng.uniform(0.3, 1), 2)}
            res = self.call("update", params, ids)
            if res is not None:
                with s.lock:
                    if text:
                        s.contents.setdefault(ids[0], set()).add(text)
                    s.acked += 1
        elif op == "forget":
            ids = self.pick()
            if not ids:
                return
            hard = rng.random() < 0.5
            if hard:
                with s.lock:
                    s.deleting.add(ids[0])
            res = self.call("forget", {"id": ids[0], "hard": hard}, ids)
            with s.lock:
                if hard and ids[0] in s.pool and rng.random() < 0.5:
                    s.pool.remove(ids[0])  # some stay a while, to race the forget
                if res is not None:
                    s.acked += 1
                    if hard:
                        s.hard_acked.add(ids[0])
        elif op == "link":
            ids = self.pick(2)
            if not ids:
                return
            kind = rng.choice(EDGE_TYPES)
            params = {"source_id": ids[0], "target_id": ids[1], "edge_type": kind}
            res = self.call("link", params, ids)
            if res is not None:
                with s.lock:
                    s.edges[res["id"]] = (ids[0], ids[1], kind)
                    s.acked += 1


def run(row: Row, root: Path, n_clients: int, seconds: float, rng: random.Random) -> None:
    d = Daemon(home_env(root / "home"), root / "daemon.log").start()
    shared = Shared()
    try:
        for i in range(40):
            text = f"Seed note {i}: something about {TOPICS[i % len(TOPICS)]}"
            res = d.call("remember", {"content": text, "scope": "global"})
            shared.pool.append(res["id"])
            shared.contents[res["id"]] = {text}
        deadline = time.monotonic() + seconds
        clients = [Client(w, d, shared, deadline, rng.randrange(2**32)) for w in range(n_clients)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(seconds + 120)
            if c.is_alive():
                row.problem("errors", f"client {c.w} is still blocked after the deadline")
        total = sum(shared.ops.values())
        row.runs = total
        row.acked = shared.acked
        for text in shared.unexpected:
            row.problem("errors", text)
        if shared.locked:
            row.note(f"{shared.locked} 'database is locked'")
        if not d.alive():
            row.problem("crashes", f"the daemon died: {d.log_tail()}")
            return
        if d.call("status", {})["pid"] != d.pid:
            row.problem("crashes", "another daemon answers")
        verify(row, d, shared)
        check = check_db(d.paths.db)
        for problem in check.problems:
            row.bad_integrity(problem)
        expected = sum(shared.expected.values())
        row.note(
            f"{n_clients} clients × {seconds:g} s: {total} requests ({total / seconds:.0f}/s), "
            f"slowest {shared.slowest * 1000:.0f} ms"
        )
        row.note(f"{expected} expected errors (NOT_FOUND after a racing forget, link CONFLICT)")
        row.note(f"{len(shared.unexpected)} unexpected, {shared.locked} 'database is locked'")
        row.details["ops"] = dict(shared.ops)
        row.details["expected_errors"] = dict(shared.expected)
        row.details["entries_at_end"] = check.entries
        log(f"[{row.case}] {total} requests, {shared.acked} acknowledged writes, checked")
    finally:
        code = d.stop()
        if code != 0:
            row.problem("errors", f"SIGTERM at the end: exit {code}")
        for fault in logged_faults(d.log_text()):
            row.problem("errors", fault)


def verify(row: Row, d: Daemon, shared: Shared) -> None:
    stored = {e["id"]: e for e in export_entries(d.call)}
    edges = {e["id"]: e for e in export_edges(d.call)}
    for eid, contents in shared.contents.items():
        entry = stored.get(eid)
        if eid in shared.hard_acked:
            if entry is not None:
                row.problem("lost", f"acknowledged hard forget of {eid} was undone")
            continue
        if entry is None:
            if eid not in shared.deleting:
                row.problem("lost", f"acknowledged entry {eid} is missing")
            continue
        if entry["content"] not in contents:
            row.problem("lost", f"{eid} holds {entry['content']!r}, none of what was acked")
    for edge_id, (src, dst, kind) in shared.edges.items():
        if src in shared.deleting or dst in shared.deleting:
            continue
        if edge_id not in edges:
            row.problem("lost", f"acknowledged {kind} edge {edge_id} ({src} → {dst}) is missing")
    stats = d.call("stats", {})
    if stats["total"] != len(stored):
        row.problem("errors", f"stats says {stats['total']} entries, export {len(stored)}")

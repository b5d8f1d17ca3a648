"""Case 4: storage that fails, on a real small tmpfs (mounting needs root; elsewhere
both rows are reported as skipped, with the reason).

Disk full: with the database on a 16 MiB tmpfs filled to the last byte, every kind of
write gets -32009 (reason "full") and nothing else; reads go on; SIGTERM exits 0; the
daemon restarts while the disk is still full; once space is freed writes work again
without a restart, and every acknowledged write is there.

Read-only: the database's file system remounted read-only under a daemon started
afresh (data on the tmpfs through XDG_DATA_HOME, socket elsewhere): recall and the other
reads work, writes get -32009 (reason "read-only"); remounted read-write, writes work
again without a restart.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enyal_client import transport
from enyal_protocol import wire as p

from .harness import (
    Daemon,
    Row,
    Skip,
    check_db,
    export_entries,
    fill,
    home_env,
    log,
    logged_faults,
    tmpfs,
)

FACTS = [
    ("The staging database is stage-db-2", "fact"),
    ("Deploys happen on Tuesdays after the standup", "decision"),
    ("Use structured JSON logs in every service", "convention"),
    ("The user prefers short commit messages", "preference"),
    ("Wrap flaky HTTP calls in a retry with backoff", "pattern"),
    ("Metrics are scraped by Prometheus every 15 seconds", "fact"),
    ("Feature flags live in LaunchDarkly", "fact"),
    ("The API is versioned in the URL path", "decision"),
]


def seed(row: Row, d: Daemon, acked: dict[str, str], tag: str) -> list[str]:
    ids = []
    for text, kind in FACTS:
        res = d.call(
            "remember", {"content": text, "content_type": kind, "scope": "global", "tags": [tag]}
        )
        ids.append(res["id"])
        acked[res["id"]] = text
    d.call("link", {"source_id": ids[1], "target_id": ids[0], "edge_type": "depends_on"})
    new = FACTS[0][0].replace("stage-db-2", "stage-db-3")
    d.call("update", {"id": ids[0], "content": new})
    acked[ids[0]] = new
    row.acked += len(FACTS) + 2
    return ids


def writes(ids: list[str], n: int, done: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """One of every kind of write, each of which would change the store; not a forget or a
    link that an earlier round's write already made (`done`: it fit)."""
    every: list[tuple[str, dict[str, Any]]] = [
        ("remember", {"content": f"Written while storage fails, #{n}", "scope": "global"}),
        ("update", {"id": ids[2], "content": f"Rewritten while storage fails, #{n}"}),
        ("update", {"id": ids[3], "confidence": 0.5, "tags": ["changed"]}),
        ("forget", {"id": ids[4]}),
        ("forget", {"id": ids[5], "hard": True}),
        ("link", {"source_id": ids[6], "target_id": ids[7], "edge_type": "relates_to"}),
        ("import", {"lines": [f'{{"content": "Imported while storage fails, #{n}"}}']}),
        (
            "import",
            {
                "lines": [
                    json.dumps({"content": f"Bulk import {n}.{i}: " + "lorem ipsum " * 40})
                    for i in range(25)
                ]
            },
        ),
    ]
    return [(method, params) for method, params in every if _once(method, params) not in done]


def _once(method: str, params: dict[str, Any]) -> str:
    """What a write that cannot be made twice is known by ("" for one that can): a forget
    of an entry, a link of two."""
    if method == "forget":
        return f"forget {params['id']}"
    if method == "link":
        return f"link {params['source_id']} {params['target_id']} {params['edge_type']}"
    return ""


def expect_refused(
    row: Row,
    d: Daemon,
    reason: str,
    ids: list[str],
    acked: dict[str, str],
    n: int,
    done: set[str] | None = None,
) -> int:
    """Every kind of write must be refused with -32009 and this reason. A write that
    still fits (a page SQLite had free, or the WAL's blocks after a checkpoint let it
    start again from its beginning) is fine, if it is then kept: `done` collects the
    forgets and links that fit, and `acked` loses what a hard forget deleted."""
    refused = 0
    done = set() if done is None else done
    for method, params in writes(ids, n, done):
        row.runs += 1
        try:
            res = d.call(method, params)
        except transport.RpcError as exc:
            data = exc.data if isinstance(exc.data, dict) else {}
            if exc.code != p.STORAGE_UNAVAILABLE:
                row.problem("errors", f"{method} on {reason} storage: {exc.code} {exc.message}")
            elif data.get("reason") != reason:
                row.problem("errors", f"{method}: -32009 says reason {data.get('reason')!r}")
            else:
                refused += 1
            continue
        if method == "import" and res["failed"]:
            errors = "; ".join(sorted({str(x.get("error")) for x in res["lines"]}))
            row.problem(
                "errors",
                f"import on {reason} storage answered {res['failed']} failed lines, not -32009: "
                f"{errors[:120]}",
            )
            continue
        if reason == "read-only":
            row.problem("errors", f"{method} succeeded on a read-only database: {str(res)[:160]}")
            continue
        row.acked += 1
        row.note("some writes still fit on the full disk (and were kept)")
        if _once(method, params):
            done.add(_once(method, params))
        if method == "forget" and params.get("hard"):
            acked.pop(params["id"], None)
        if method == "remember":
            acked[res["id"]] = params["content"]
        elif method == "update" and "content" in params:
            acked[params["id"]] = params["content"]
    return refused


def use_up(row: Row, d: Daemon, acked: dict[str, str]) -> None:
    """Remember long texts until one is refused -32009: what the database's files already
    hold room for (a WAL started again from its beginning after a checkpoint, the free
    part of the database file's last chunk: store/db.py, DB_CHUNK) is used up, so that
    the writes after it find no room."""
    for i in range(2000):
        text = f"Filler {i}: " + " ".join(f"word{i}x{j}" for j in range(1500))
        try:
            res = d.call("remember", {"content": text, "scope": "global"})
        except transport.RpcError as exc:
            if exc.code != p.STORAGE_UNAVAILABLE:
                row.problem("errors", f"remember while filling: {exc.code} {exc.message}")
            return
        acked[res["id"]] = text
        row.acked += 1
    row.problem("errors", "2,000 long remembers on a full disk, none refused")


def expect_reads(row: Row, d: Daemon, acked: dict[str, str], when: str) -> None:
    try:
        hits = d.call("recall", {"query": "staging database", "min_confidence": 0})["results"]
        if not hits:
            row.problem("errors", f"recall found nothing {when}")
        for eid, text in acked.items():
            got = d.call("get", {"id": eid})
            if got["content"] != text:
                row.problem("lost", f"{eid} holds {got['content']!r} {when}, acked {text!r}")
        d.call("stats", {})
        export_entries(d.call)
        d.call("edges", {"id": next(iter(acked))})
        d.call("history", {"id": next(iter(acked))})
    except transport.RpcError as exc:
        row.problem("errors", f"a read failed {when}: {exc.code} {exc.message}")


def stop(row: Row, d: Daemon, when: str) -> None:
    code = d.stop()
    if code != 0:
        row.problem("errors", f"SIGTERM {when}: exit {code}")
    for fault in logged_faults(d.log_text()):
        row.problem("errors", f"{when}: {fault}")


def disk_full(row: Row, root: Path) -> None:
    with tmpfs(root / "disk", "16m") as disk:
        env = home_env(disk / "home")
        log_path = root / "daemon-full.log"  # not on the full disk
        d = Daemon(env, log_path).start()
        acked: dict[str, str] = {}
        try:
            ids = seed(row, d, acked, "full")
            filler = fill(disk)
            use_up(row, d, acked)
            done: set[str] = set()
            refused = expect_refused(row, d, "full", ids, acked, 1, done)
            expect_reads(row, d, acked, "on a full disk")
            stop(row, d, "on a full disk")
            try:
                d = Daemon(env, log_path).start()
            except Exception as exc:
                row.problem("crashes", f"the daemon does not restart on a full disk: {exc}")
                return
            expect_reads(row, d, acked, "after a restart on a full disk")
            refused += expect_refused(row, d, "full", ids, acked, 2, done)
            filler.unlink()
            deadline = time.monotonic() + 10
            while True:  # writes resume without a restart
                try:
                    res = d.call("remember", {"content": "Room again", "scope": "global"})
                    acked[res["id"]] = "Room again"
                    row.acked += 1
                    break
                except transport.RpcError as exc:
                    if time.monotonic() > deadline:
                        row.problem("errors", f"writes do not resume with space: {exc.message}")
                        break
                    time.sleep(0.2)
            expect_reads(row, d, acked, "once space was freed")
            stop(row, d, "at the end")
            check = check_db(d.paths.db)
            for problem in check.problems:
                row.bad_integrity(problem)
            row.note(
                f"{refused} writes refused -32009 'full' (8 kinds, before and after a restart); "
                "reads served; SIGTERM exit 0 while full; writes resume once space is freed"
            )
        finally:
            if d.alive():
                d.stop()


def read_only(row: Row, root: Path) -> None:
    with tmpfs(root / "ro-disk", "16m") as disk:
        runtime = root / "runtime"
        runtime.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ENYAL_", "XDG_"))}
        env.update(
            ENYAL_SOCKET=str(runtime / "enyal.sock"),
            XDG_RUNTIME_DIR=str(runtime),
            XDG_DATA_HOME=str(disk / "data"),
            XDG_STATE_HOME=str(root / "state"),
            XDG_CONFIG_HOME=str(root / "config"),
        )
        log_path = root / "daemon-ro.log"
        d = Daemon(env, log_path).start()
        acked: dict[str, str] = {}
        try:
            ids = seed(row, d, acked, "ro")
            stop(row, d, "before the remount")
            remount = subprocess.run(
                ["mount", "-o", "remount,ro", str(disk)], capture_output=True, text=True
            )
            if remount.returncode != 0:
                raise Skip(f"cannot remount read-only ({remount.stderr.strip()})")
            try:
                d = Daemon(env, log_path).start()
            except Exception as exc:
                row.problem("crashes", f"the daemon does not start on a read-only disk: {exc}")
                return
            try:
                hits = d.call("recall", {"query": "what is the staging database?", "limit": 3})
                if ids[0] not in [h["id"] for h in hits["results"]]:
                    row.problem("errors", "recall on the read-only database misses the entry")
                expect_reads(row, d, acked, "on a read-only database")
                if d.call("stats", {})["total"] != len(acked):
                    row.problem("lost", "stats counts another number of entries")
                refused = expect_refused(row, d, "read-only", ids, acked, 1)
                expect_reads(row, d, acked, "after refused writes")
                subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
                row.runs += 1
                try:  # writes come back without a restart
                    res = d.call("remember", {"content": "Writable again", "scope": "global"})
                    acked[res["id"]] = "Writable again"
                    row.acked += 1
                except transport.RpcError as exc:
                    row.problem("errors", f"no write after remount rw: {exc.code} {exc.message}")
                expect_reads(row, d, acked, "once writable again")
            finally:
                stop(row, d, "on a read-only disk")
            row.note(
                f"{refused} writes refused -32009 'read-only' (8 kinds); recall, get, stats, "
                "export, edges, history served; writes back after remount rw, no restart; "
                "SIGTERM exit 0"
            )
        finally:
            if d.alive():
                d.stop()
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], capture_output=True)
        check = check_db(disk / "data" / "enyal" / "enyal.db")
        for problem in check.problems:
            row.bad_integrity(problem)


def run(rows: list[Row], root: Path, rng: random.Random) -> None:
    cases: list[tuple[Row, Callable[[Row, Path], None]]] = [
        (rows[0], disk_full),
        (rows[1], read_only),
    ]
    for row, case in cases:
        try:
            case(row, root)
            log(f"[{row.case}] {row.runs} writes tried, {row.errors} unexpected")
        except Skip as skip:
            row.skipped = str(skip)
            log(f"[{row.case}] skipped: {skip}")
        except Exception as exc:  # reported on its row; the other case still runs
            row.problem("errors", f"the case stopped: {type(exc).__name__}: {exc}")
            row.note(f"stopped: {type(exc).__name__}: {str(exc)[:160]}")

"""Many clients at once: separate processes writing and reading through their own
connections, and racing writes that the single writer must decide one at a time.

Nothing may fail, nothing acknowledged may go missing, and what a client was told
(created, existing, rejected) must match what the database holds afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from daemon_support import (
    RawConn,
    census,
    export_all,
    frame,
    integrity,
    isolated_env,
    open_db,
    result_of,
    running,
)
from enyal_client.transport import RpcError

# One client process. argv: kind, worker number, count. Prints one JSON object:
# {"created": {id: content}, "deleted": [id], "errors": [str]}.
WORKER = r"""
import json, sys
from enyal_client import transport
from enyal_protocol import paths

kind, w, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
topics = [
    "the CI pipeline", "database migrations", "the deploy schedule", "code review rules",
    "logging format", "feature flags", "the test runner", "secret storage",
    "API versioning", "error budgets",
]
out = {"created": {}, "deleted": [], "errors": []}
p = paths.resolve()
writes = transport.connect(p, autostart=False)
reads = transport.connect(p, autostart=False)  # reads on another connection than writes
tag = f"w{w}"

def note(i):
    return f"Worker {w}, note {i}: a remark about {topics[(w + i) % len(topics)]} (#{w}-{i})"

try:
    if kind == "import":
        for batch in range(3):
            lines = [
                json.dumps({"content": note(batch * 100 + i), "tags": [tag]}) for i in range(n)
            ]
            res = writes.call("import", {"lines": lines})
            if res["failed"] or res["existing"]:
                out["errors"].append(f"import: {res}")
            for line, r in zip(lines, res["lines"]):
                out["created"][r["id"]] = json.loads(line)["content"]
    else:
        for i in range(n):
            text = note(i)
            res = writes.call("remember", {"content": text, "scope": "global", "tags": [tag]})
            if res["action"] != "created":
                out["errors"].append(f"remember {i}: {res['action']}")
            out["created"][res["id"]] = text
            # Acknowledged means visible: at once, and from another connection.
            if reads.call("get", {"id": res["id"]})["content"] != text:
                out["errors"].append(f"get {res['id']}: wrong content")
            if kind == "delete" and i % 2 == 1:
                writes.call("forget", {"id": res["id"], "hard": True})
                out["deleted"].append(res["id"])
            if kind == "write" and i % 5 == 4:
                hits = reads.call(
                    "recall",
                    {"query": topics[w % len(topics)], "tags": [tag], "limit": 100,
                     "min_confidence": 0.0},
                )["results"]
                missing = set(out["created"]) - {h["id"] for h in hits}
                if missing:
                    out["errors"].append(f"recall after {i}: missing {sorted(missing)}")
            if kind == "write" and i % 7 == 6:
                some = next(iter(out["created"]))
                writes.call("update", {"id": some, "confidence": 0.9, "tags": [tag, "upd"]})
except Exception as exc:
    out["errors"].append(f"{type(exc).__name__}: {exc}")
print(json.dumps(out))
"""


def run_workers(env: dict[str, str], plan: list[tuple[str, int]]) -> list[dict[str, Any]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, kind, str(w), str(n)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w, (kind, n) in enumerate(plan)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    return results


def test_client_processes_write_and_read_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = [("write", 25)] * 4 + [("import", 15), ("delete", 20)]
    with running(home) as d:
        results = run_workers(isolated_env(home), plan)
        for w, r in enumerate(results):
            assert r["errors"] == [], (w, r["errors"])

        created: dict[str, str] = {}
        for r in results:
            created.update(r["created"])
        deleted = {i for r in results for i in r["deleted"]}
        expected = {i: c for i, c in created.items() if i not in deleted}
        n_created = sum(n if kind != "import" else 3 * n for kind, n in plan)
        assert len(created) == n_created  # every acknowledged id is distinct
        assert len(deleted) == 10

        # Every acknowledged write is there, with its content; every delete is gone.
        exported = {e["id"]: e for e in export_all(d.call)}
        assert set(exported) == set(expected)
        assert {i: e["content"] for i, e in exported.items()} == expected
        for gone in deleted:
            with pytest.raises(RpcError):
                d.call("get", {"id": gone})
        st = d.call("stats")
        assert (st["total"], st["active"]) == (len(expected), len(expected))
        # Per client, a recall sees exactly that client's surviving entries.
        for w in range(len(plan)):
            hits = d.call(
                "recall",
                {"query": "a remark", "tags": [f"w{w}"], "limit": 100, "min_confidence": 0.0},
            )["results"]
            mine = {i for i in results[w]["created"] if i not in deleted}
            assert {h["id"] for h in hits} == mine, w
        # The updates landed too.
        upd = [e for e in exported.values() if "upd" in e["tags"]]
        assert upd and all(e["confidence"] == 0.9 for e in upd)

        c = census(d.paths.db)
        c.assert_consistent()
        assert len(c.entries) == len(expected)
        assert integrity(d.paths.db) == ["ok"]
        assert "Traceback" not in d.log.text(), d.log.text()


def test_racing_identical_writes_make_one_entry(tmp_path: Path) -> None:
    # The exact-duplicate check runs on the writer, inside the transaction: however the
    # racing writes are batched, one is created and every other one is told "existing".
    content = "The on-call rotation changes every Monday at 09:00"
    with running(tmp_path / "home") as d:
        answers: list[dict[str, Any]] = []
        lock = threading.Lock()

        def client(c: int) -> None:
            with RawConn(d.paths.socket) as conn:
                conn.send(
                    b"".join(
                        frame("remember", {"content": content, "scope": "global"}, i)
                        for i in range(5)
                    )
                )
                got = [result_of(conn.read()) for _ in range(5)]
            with lock:
                answers.extend(got)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(answers) == 30
        actions = [a["action"] for a in answers]
        assert actions.count("created") == 1 and actions.count("existing") == 29
        assert len({a["id"] for a in answers}) == 1
        assert [e["content"] for e in export_all(d.call)] == [content]


def test_racing_near_duplicates_in_one_batch_are_deduplicated(tmp_path: Path) -> None:
    # Semantic dedup compares with what is stored. Writes that the writer commits
    # together (group commit) must see each other too, or "reject" lets several
    # near-duplicates in. To make them share a batch, this test holds the database's
    # write lock from outside: the writer blocks on its first batch while the racing
    # remembers are embedded and queue up behind it.
    variants = [f"Note {i}: the CI pipeline runs on GitHub Actions" for i in range(8)]
    with running(tmp_path / "home") as d:
        holder = open_db(d.paths.db)
        holder.execute("BEGIN IMMEDIATE")
        conns = [RawConn(d.paths.socket) for _ in range(len(variants) + 1)]
        try:
            conns[0].send(
                frame("remember", {"content": "Unrelated: tabs or spaces?", "scope": "global"})
            )
            for conn, text in zip(conns[1:], variants, strict=True):
                conn.send(
                    frame("remember", {"content": text, "scope": "global", "dedup": "reject"})
                )
            # Nothing outside the daemon shows when the embeddings are done and queued, so
            # this waits; a wait too short only makes the race less likely, never the
            # test wrong.
            time.sleep(1.5)
            holder.execute("ROLLBACK")
            assert result_of(conns[0].read())["action"] == "created"
            answers = [result_of(conn.read()) for conn in conns[1:]]
        finally:
            holder.close()
            for conn in conns:
                conn.close()
        actions = sorted(a["action"] for a in answers)
        assert actions == ["created"] + ["rejected"] * (len(variants) - 1), answers
        kept = next(a["id"] for a in answers if a["action"] == "created")
        assert all(a["duplicate_of"] == kept for a in answers if a["action"] == "rejected")
        assert len(export_all(d.call)) == 2

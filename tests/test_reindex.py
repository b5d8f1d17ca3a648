"""A database embedded with another model: refused by the daemon with a message naming
`enyal reindex`, which re-embeds every entry, and resumes without loss when killed."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from enyal_daemon.store import db, meta
from enyal_protocol import paths as enyal_paths
from service_support import ENYAL, env_for, enyal

pytestmark = pytest.mark.usefixtures("autostarted")

INT8 = "all-MiniLM-L6-v2/onnx-int8"
WORDS = ("retry", "cache", "schema", "deploy", "review", "lint", "release", "token")


def _populate(home: Path, tmp_path: Path, n: int) -> None:
    """n entries stored by a real daemon (so with real vectors), then the daemon stopped."""
    lines = [
        json.dumps(
            {
                "content": f"Note {i}: the {WORDS[i % len(WORDS)]} step runs "
                f"{'before' if i % 2 else 'after'} stage {i % 13}.",
                "scope_level": "global",
            }
        )
        for i in range(n)
    ]
    f = tmp_path / "entries.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = enyal("import", str(f), env=env_for(home))
    assert r.code == 0, r.err
    assert enyal("daemon", "stop", env=env_for(home)).code == 0


def _pretend_another_model(path: Path) -> None:
    """What a database embedded by another model looks like: its id, and vectors that are
    not this model's (zeros, so a rewritten one is easy to tell)."""
    conn = db.connect(path, writer=True)
    try:
        rids = [int(r[0]) for r in conn.execute("SELECT rid FROM context_entries")]
        zero = np.zeros(384, dtype=np.float32).tobytes()
        with conn:
            meta.put(conn, "model_id", "other-model/v1")
            for rid in rids:
                conn.execute("DELETE FROM context_vectors WHERE rowid = ?", (rid,))
                conn.execute(
                    "INSERT INTO context_vectors(rowid, embedding) VALUES (?, ?)", (rid, zero)
                )
    finally:
        conn.close()


def _vectors(path: Path) -> list[tuple[int, str, Any]]:
    conn = db.connect(path, writer=False)
    try:
        rows = conn.execute(
            "SELECT e.rid, e.content, v.embedding FROM context_entries e "
            "JOIN context_vectors v ON v.rowid = e.rid ORDER BY e.rid"
        ).fetchall()
    finally:
        conn.close()
    return [(int(r), str(c), np.frombuffer(v, dtype=np.float32)) for r, c, v in rows]


def _meta(path: Path) -> dict[str, str]:
    conn = db.connect(path, writer=False)
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM enyal_meta")}
    finally:
        conn.close()


def _assert_fresh(path: Path, embedder: Any) -> None:
    """Every vector is this model's embedding of its entry's content. (Batches pad
    differently and int8 quantizes per batch, so compare directions, not bits.)"""
    rows = _vectors(path)
    fresh = embedder.embed_many([c for _, c, _ in rows])
    cos = np.array([float(np.dot(v, f)) for (_, _, v), f in zip(rows, fresh, strict=True)])
    assert cos.min() > 0.99, cos.min()


def test_another_models_database_is_refused_then_reindexed(
    home: Path, tmp_path: Path, embedder: Any
) -> None:
    env = env_for(home)
    _populate(home, tmp_path, 40)
    path = enyal_paths.resolve().db
    _pretend_another_model(path)
    r = enyal("stats", env=env)
    assert r.code == 1
    assert "this database was embedded with other-model/v1" in r.err
    assert "run `enyal reindex`" in r.err
    r = enyal("reindex", "--json", env=env)
    assert r.code == 0, r.err
    assert r.json() == {
        "action": "reindexed",
        "model_id": INT8,
        "previous": "other-model/v1",
        "total": 40,
        "reembedded": 40,
        "resumed_at": 0,
    }
    assert "reindex: 100% 40/40" in r.err  # the progress, on stderr
    m = _meta(path)
    assert m["model_id"] == INT8 and not any(k.startswith("reindex_") for k in m)
    _assert_fresh(path, embedder)
    hits = enyal("recall", "which stage does the deploy step run in", "--json", env=env)
    assert hits.code == 0, hits.err
    assert "deploy" in hits.json()["results"][0]["content"]
    # Now a daemon serves it; reindexing under a running daemon is refused.
    r = enyal("reindex", env=env)
    assert r.code == 1 and "enyal daemon stop" in r.err
    assert enyal("daemon", "stop", env=env).code == 0
    r = enyal("reindex", env=env)
    assert r.code == 0 and "nothing to do" in r.out


def test_a_killed_reindex_resumes_without_loss(home: Path, tmp_path: Path, embedder: Any) -> None:
    env = env_for(home)
    n = 300
    _populate(home, tmp_path, n)
    path = enyal_paths.resolve().db
    _pretend_another_model(path)
    proc = subprocess.Popen(
        [ENYAL, "reindex", "--batch-size", "4"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        for line in proc.stderr:  # "reindex: 12% 72/600"
            if line.startswith("reindex: ") and int(line.split()[1].rstrip("%")) >= 10:
                break
        proc.send_signal(signal.SIGKILL)  # no chance to clean up
        proc.wait(30)
    finally:
        proc.stderr.close()
    m = _meta(path)
    assert m["model_id"] == f"{INT8} (reindex unfinished)"
    done_rid = int(m["reindex_done_rid"])
    rows = _vectors(path)
    done = [r for r in rows if r[0] <= done_rid]
    assert 0 < len(done) < n
    # Committed batches hold new vectors; everything after the mark is untouched.
    assert all(np.linalg.norm(v) > 0.99 for _, _, v in done)
    assert all(not v.any() for rid, _, v in rows if rid > done_rid)
    # Half-converted: no daemon may serve it.
    r = enyal("stats", env=env)
    assert r.code == 1 and "(reindex unfinished)" in r.err and "`enyal reindex`" in r.err
    r = enyal("reindex", "--json", env=env)
    assert r.code == 0, r.err
    res = r.json()
    assert res["resumed_at"] == len(done)
    assert res["reembedded"] == n - len(done)
    assert res["previous"] == "other-model/v1" and res["total"] == n
    assert len(_vectors(path)) == n
    _assert_fresh(path, embedder)
    assert enyal("stats", env=env).code == 0

"""Every JSON-RPC method over the real socket, against the daemon as a subprocess, each
with its effect checked: in the method's answer, in what later reads return, and (for
deletes and re-embeds) inside the database file itself.

Most tests share one daemon to keep the suite fast. They do not depend on each other:
each works under its own tag or scope path and compares before/after, never absolute
totals. Tests that need an empty database start their own daemon.
"""

from __future__ import annotations

import hashlib
import json
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from conftest import wait_for
from daemon_support import (
    RawConn,
    RunningDaemon,
    census,
    export_all,
    frame,
    notification,
    open_db,
    result_of,
    running,
)
from enyal_client.transport import RpcError
from enyal_protocol import wire as p


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("methods") / "home") as d:
        yield d
        # Every failure a client can cause is answered as an error object; a traceback
        # in the log means something escaped as an internal error.
        assert "Traceback" not in d.log.text(), d.log.text()


def uniq(prefix: str = "t") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def rpc_error(d: RunningDaemon, method: str, params: dict[str, Any]) -> RpcError:
    with pytest.raises(RpcError) as info:
        d.call(method, params)
    return info.value


def rid_of(db: Path, entry_id: str) -> int:
    conn = open_db(db)
    try:
        row = conn.execute("SELECT rid FROM context_entries WHERE id = ?", (entry_id,)).fetchone()
        assert row is not None, f"{entry_id} is not in context_entries"
        return int(row[0])
    finally:
        conn.close()


def make_repo(root: Path) -> Path:
    """A project folder as scopes.py recognizes one: it holds a .git folder."""
    (root / ".git").mkdir(parents=True)
    return root


def ids(hits: list[dict[str, Any]]) -> list[str]:
    return [h["id"] for h in hits]


# --- status ------------------------------------------------------------------------------


def test_status_describes_this_daemon(shared: RunningDaemon) -> None:
    st = shared.call("status")
    assert st["pid"] == shared.proc.proc.pid
    assert st["protocol"] == p.PROTOCOL_VERSION
    assert st["socket"] == str(shared.paths.socket)
    assert st["db_path"] == str(shared.paths.db)
    assert st["model"]["dim"] == 384
    assert len(st["model"]["sha256"]) == 64
    assert st["uptime_s"] >= 0
    assert st["sqlite_vec_version"].startswith("v")
    assert st["entries"] == len(census(shared.paths.db).entries)


# --- remember ----------------------------------------------------------------------------


def test_remember_stores_every_field(shared: RunningDaemon, tmp_path: Path) -> None:
    before = census(shared.paths.db)
    params = {
        "content": "app.py retries HTTP calls with exponential backoff",
        "content_type": "decision",
        "scope": "file",
        "scope_path": "src/./app.py",  # relative: resolved against cwd, then normalized
        "cwd": str(tmp_path),
        "tags": ["http", "retry", "http"],
        "source_type": "commit",
        "source_ref": "deadbeef",
        "metadata": {"nested": {"list": [1, 2.5, "three", None, True]}, "text": "日本語 ✓"},
        "confidence": 0.75,
    }
    res = shared.call("remember", params)
    assert res["action"] == "created"
    assert res["similarity"] is None and res["duplicate_of"] is None
    entry = res["entry"]
    assert entry["id"] == res["id"]
    assert entry["content"] == params["content"]
    assert entry["content_type"] == "decision"
    assert entry["scope_level"] == "file"
    assert entry["scope_path"] == str(tmp_path / "src" / "app.py")
    assert entry["tags"] == ["http", "retry"]  # duplicates dropped, order kept
    assert entry["source_type"] == "commit" and entry["source_ref"] == "deadbeef"
    assert entry["metadata"] == params["metadata"]
    assert entry["confidence"] == 0.75
    assert entry["created_at"] == entry["updated_at"]
    assert entry["accessed_at"] is None and entry["access_count"] == 0
    assert entry["is_deprecated"] is False
    assert entry["content_hash"] == hashlib.sha256(str(params["content"]).encode()).hexdigest()
    # What get returns is what remember said it stored.
    assert shared.call("get", {"id": res["id"]}) == entry
    # One entry, one vector, one FTS row.
    after = census(shared.paths.db)
    after.assert_consistent()
    new = after.entries - before.entries
    assert len(new) == 1 and rid_of(shared.paths.db, res["id"]) in new


def test_remember_identical_content_is_existing(shared: RunningDaemon, tmp_path: Path) -> None:
    content = f"The staging cluster is called {uniq('c')}"
    first = shared.call("remember", {"content": content, "scope": "global"})
    assert first["action"] == "created"
    total = len(census(shared.paths.db).entries)

    again = shared.call("remember", {"content": content, "scope": "global"})
    assert again["action"] == "existing"
    assert again["id"] == first["id"] and again["entry"] == first["entry"]
    assert len(census(shared.paths.db).entries) == total

    # The same words in another scope are another memory.
    other = shared.call(
        "remember", {"content": content, "scope": "project", "scope_path": str(tmp_path)}
    )
    assert other["action"] == "created" and other["id"] != first["id"]

    # A forgotten entry does not swallow a new one with the same content.
    shared.call("forget", {"id": first["id"]})
    fresh = shared.call("remember", {"content": content, "scope": "global"})
    assert fresh["action"] == "created" and fresh["id"] != first["id"]


def test_dedup_decisions(shared: RunningDaemon, tmp_path: Path) -> None:
    scope = {"scope": "project", "scope_path": str(tmp_path / "proj")}
    base = shared.call(
        "remember", {"content": "The build uses Poetry for dependency management", **scope}
    )
    assert base["action"] == "created"
    paraphrase = "Dependency management in the build is done with Poetry"

    # reject: nothing is stored, the similar entry is returned.
    before = len(census(shared.paths.db).entries)
    rej = shared.call("remember", {"content": paraphrase, "dedup": "reject", **scope})
    assert rej["action"] == "rejected"
    assert rej["id"] == rej["duplicate_of"] == base["id"]
    assert rej["similarity"] >= 0.85
    assert rej["entry"]["content"] == base["entry"]["content"]
    assert len(census(shared.paths.db).entries) == before

    # reject below the threshold: stored, with the nearest similarity reported.
    far = shared.call(
        "remember", {"content": "The team prefers tabs over spaces", "dedup": "reject", **scope}
    )
    assert far["action"] == "created" and far["duplicate_of"] is None
    assert far["similarity"] is not None and far["similarity"] < 0.85

    # store: stored anyway, the duplicate and its similarity reported.
    stored = shared.call(
        "remember",
        {
            "content": "Poetry handles the dependencies of the build",
            "dedup": "store",
            "dedup_threshold": 0.6,
            **scope,
        },
    )
    assert stored["action"] == "stored"
    assert stored["id"] not in (base["id"], far["id"])
    assert stored["duplicate_of"] == base["id"] and stored["similarity"] >= 0.6

    # merge: the nearest entry takes the new content; no entry is added.
    before = len(census(shared.paths.db).entries)
    merged_text = "The build uses Poetry to manage all of its dependencies"
    merged = shared.call(
        "remember", {"content": merged_text, "dedup": "merge", "dedup_threshold": 0.8, **scope}
    )
    assert merged["action"] == "merged"
    assert merged["id"] == merged["duplicate_of"]
    assert merged["id"] in (base["id"], stored["id"])
    assert merged["similarity"] >= 0.8
    now = shared.call("get", {"id": merged["id"]})
    assert now["content"] == merged_text
    assert now["content_hash"] == hashlib.sha256(merged_text.encode()).hexdigest()
    assert len(census(shared.paths.db).entries) == before

    # Dedup looks only inside the scope: the same paraphrase elsewhere is new.
    elsewhere = shared.call(
        "remember",
        {
            "content": paraphrase,
            "dedup": "reject",
            "scope": "project",
            "scope_path": str(tmp_path / "other"),
        },
    )
    assert elsewhere["action"] == "created" and elsewhere["similarity"] is None

    # off (the default) reports no similarity at all.
    off = shared.call("remember", {"content": paraphrase, **scope})
    assert off["action"] == "created" and off["similarity"] is None


def test_project_scope_resolved_from_cwd(shared: RunningDaemon, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    repo = make_repo(workspace / "repo")
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    (repo / "docs").mkdir()
    other = make_repo(workspace / "other")

    proj = shared.call("remember", {"content": "Run make lint before pushing", "cwd": str(sub)})
    assert proj["entry"]["scope_level"] == "project"
    assert proj["entry"]["scope_path"] == str(repo)

    ws = shared.call(
        "remember",
        {"content": "Every repo here targets Python 3.11", "scope": "workspace", "cwd": str(sub)},
    )
    assert ws["entry"]["scope_path"] == str(workspace)

    # A folder with no project marker above it is its own project.
    loose = tmp_path / "scratch" / "deeper"
    loose.mkdir(parents=True)
    mine = shared.call("remember", {"content": "Scratch notes live here", "cwd": str(loose)})
    assert mine["entry"]["scope_path"] == str(loose)

    def project_hits(cwd: Path) -> list[str]:
        res = shared.call(
            "recall", {"query": "lint before push", "scope": "project", "cwd": str(cwd)}
        )
        return ids(res["results"])

    assert proj["id"] in project_hits(repo / "docs")  # any folder of the repo
    assert proj["id"] not in project_hits(other)
    by_path = shared.call("recall", {"query": "lint before push", "scope_path": str(repo)})
    assert ids(by_path["results"]) == [proj["id"]]


def test_recall_filters(shared: RunningDaemon) -> None:
    tag = uniq()

    def rem(content: str, **kw: Any) -> str:
        res = shared.call("remember", {"content": content, "scope": "global", **kw})
        assert res["action"] == "created"
        return str(res["id"])

    a = rem("Use ruff for linting Python code", content_type="convention", tags=[tag, "lint"])
    b = rem("Ruff replaced flake8 as the linter in March", content_type="decision", tags=[tag])
    c = rem("Linting runs in the pre-commit hooks", tags=[tag, "lint"], confidence=0.2)
    d = rem("The old Python linter was pylint", tags=[tag, "lint"])
    shared.call("forget", {"id": d})

    def recall(**kw: Any) -> list[dict[str, Any]]:
        res: list[dict[str, Any]] = shared.call(
            "recall", {"query": "python linting", "tags": [tag], **kw}
        )["results"]
        return res

    default = recall(min_confidence=0.3)
    # c's confidence is under min_confidence 0.3; d is forgotten.
    assert set(ids(default)) == {a, b}
    for hit in default:
        for key in ("score", "semantic", "keyword", "recency", "effective_confidence"):
            assert 0.0 <= hit[key] <= 1.0, (key, hit)
    assert set(ids(recall(content_type="convention"))) == {a}
    assert set(ids(recall(tags=[tag, "lint"], min_confidence=0.3))) == {a}
    assert set(ids(recall(tags=[tag, "lint"], min_confidence=0.0))) == {a, c}
    with_old = recall(tags=[tag, "lint"], min_confidence=0.0, include_deprecated=True)
    assert set(ids(with_old)) == {a, c, d}
    assert {h["id"]: h["is_deprecated"] for h in with_old}[d] is True
    assert set(ids(recall(scope="global", min_confidence=0.3))) == {a, b}
    assert recall(scope="project", scope_path="/nowhere/at/all") == []
    top = recall(limit=1)
    assert len(top) == 1 and top[0]["id"] in (a, b)


def test_recall_by_scope_walks_file_project_workspace_global(
    shared: RunningDaemon, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    repo = make_repo(workspace / "repo")
    other = make_repo(workspace / "other")
    src = repo / "src" / "app.py"
    word = uniq("w")  # a word no other test's entries hold

    def rem(content: str, **kw: Any) -> str:
        res = shared.call("remember", {"content": f"{content} ({word})", **kw})
        return str(res["id"])

    file_id = rem("app.py retries use exponential backoff", scope="file", scope_path=str(src))
    proj_id = rem("The project retries HTTP calls three times", cwd=str(repo))
    ws_id = rem("All services share one retry policy", scope="workspace", cwd=str(repo))
    glob_id = rem("Retries should always be logged", scope="global")
    foreign = rem(
        "app.py in the other repo never retries",
        scope="file",
        scope_path=str(other / "src" / "app.py"),
    )
    foreign_proj = rem("The other project retries forever", cwd=str(other))

    res = shared.call(
        "recall_by_scope",
        {
            "query": f"how are retries done {word}",
            "file_path": "src/app.py",
            "cwd": str(repo),
            "limit": 100,
            "min_confidence": 0.0,
        },
    )
    assert res["scopes"] == [
        {"level": "file", "path": str(src), "weight": 1.0},
        {"level": "project", "path": str(repo), "weight": 0.9},
        {"level": "workspace", "path": str(workspace), "weight": 0.8},
        {"level": "global", "path": None, "weight": 0.7},
    ]
    got = {h["id"]: h for h in res["results"]}
    assert {file_id, proj_id, ws_id, glob_id} <= set(got)
    assert foreign not in got and foreign_proj not in got
    assert got[file_id]["scope_weight"] == 1.0
    assert got[proj_id]["scope_weight"] == 0.9
    assert got[ws_id]["scope_weight"] == 0.8
    assert got[glob_id]["scope_weight"] == 0.7
    # Every hit lies on the chain.
    chain = {(s["level"], s["path"]) for s in res["scopes"]}
    assert all((h["scope_level"], h["scope_path"]) in chain for h in res["results"])


# --- get / update ------------------------------------------------------------------------


def vector_of(db: Path, rid: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    conn = open_db(db)
    try:
        row = conn.execute("SELECT embedding FROM context_vectors WHERE rowid = ?", (rid,))
        blob = row.fetchone()
        assert blob is not None
        return np.frombuffer(blob[0], dtype=np.float32).copy()
    finally:
        conn.close()


def test_update_content_reembeds(shared: RunningDaemon) -> None:
    tag = uniq()
    a = shared.call(
        "remember",
        {"content": "Deploys go out every Tuesday afternoon", "scope": "global", "tags": [tag]},
    )
    b = shared.call(
        "remember",
        {"content": "Production releases happen on Tuesdays", "scope": "global", "tags": [tag]},
    )
    rid = rid_of(shared.paths.db, a["id"])
    old_vec = vector_of(shared.paths.db, rid)

    new_text = "The primary database is PostgreSQL 16"
    upd = shared.call("update", {"id": a["id"], "content": new_text})
    assert upd["id"] == a["id"] and upd["content"] == new_text
    assert upd["content_hash"] == hashlib.sha256(new_text.encode()).hexdigest()
    assert upd["created_at"] == a["entry"]["created_at"]
    assert upd["updated_at"] > a["entry"]["updated_at"]
    assert upd.pop("redacted") == {}  # the update's report; the entry is the rest
    assert shared.call("get", {"id": a["id"]}) == upd

    # The stored vector is the new text's, not the old one's.
    new_vec = vector_of(shared.paths.db, rid)
    assert float(old_vec @ new_vec) < 0.5

    def recall(query: str) -> list[dict[str, Any]]:
        res: list[dict[str, Any]] = shared.call(
            "recall", {"query": query, "tags": [tag], "min_confidence": 0.0}
        )["results"]
        return res

    new_meaning = recall("which database engine do we run")
    assert new_meaning[0]["id"] == a["id"]
    old_meaning = recall("what day of the week do we deploy")
    assert old_meaning[0]["id"] == b["id"]
    # The text index followed too: the old words no longer match, the new ones do.
    assert {h["id"]: h["keyword"] for h in recall("Tuesday afternoon")}.get(a["id"], 0.0) == 0.0
    assert {h["id"]: h["keyword"] for h in recall("PostgreSQL")}[a["id"]] > 0.0
    census(shared.paths.db).assert_consistent()


def test_update_other_fields(shared: RunningDaemon) -> None:
    res = shared.call("remember", {"content": f"Lint with ruff {uniq()}", "scope": "global"})
    entry = res["entry"]
    upd = shared.call(
        "update",
        {
            "id": res["id"],
            "content_type": "convention",
            "confidence": 0.5,
            "tags": ["x", "y", "x"],
            "metadata": {"why": ["speed", 1]},
        },
    )
    assert upd["content_type"] == "convention"
    assert upd["confidence"] == 0.5
    assert upd["tags"] == ["x", "y"]
    assert upd["metadata"] == {"why": ["speed", 1]}
    # Untouched fields stay as they were.
    for key in ("content", "content_hash", "scope_level", "scope_path", "created_at"):
        assert upd[key] == entry[key], key
    assert upd["updated_at"] > entry["updated_at"]
    assert upd.pop("redacted") == {}
    assert shared.call("get", {"id": res["id"]}) == upd
    # Replacing tags with none at all is a change too.
    assert shared.call("update", {"id": res["id"], "tags": []})["tags"] == []


# --- forget / restore --------------------------------------------------------------------


def test_forget_soft_then_restore(shared: RunningDaemon) -> None:
    tag = uniq()
    res = shared.call(
        "remember",
        {"content": "Feature flags live in LaunchDarkly", "scope": "global", "tags": [tag]},
    )
    eid = res["id"]
    stats_before = shared.call("stats")

    assert shared.call("forget", {"id": eid}) == {"id": eid, "action": "deprecated"}
    assert shared.call("get", {"id": eid})["is_deprecated"] is True
    query = {"query": "where are feature flags", "tags": [tag], "min_confidence": 0.0}
    assert shared.call("recall", query)["results"] == []
    assert ids(shared.call("recall", {**query, "include_deprecated": True})["results"]) == [eid]
    stats = shared.call("stats")
    assert stats["deprecated"] == stats_before["deprecated"] + 1
    assert stats["active"] == stats_before["active"] - 1
    # A soft forget keeps the rows: restore needs them.
    assert rid_of(shared.paths.db, eid) in census(shared.paths.db).vectors

    restored = shared.call("restore", {"id": eid})
    assert restored.pop("changed") is True and restored["is_deprecated"] is False
    assert {k: v for k, v in restored.items() if k != "is_deprecated"} == {
        k: v for k, v in res["entry"].items() if k != "is_deprecated"
    }
    assert ids(shared.call("recall", query)["results"]) == [eid]
    assert shared.call("stats")["deprecated"] == stats_before["deprecated"]


def test_forget_hard_removes_entry_vector_and_fts_row(shared: RunningDaemon) -> None:
    word = uniq("zq")  # a token only this entry holds
    res = shared.call(
        "remember", {"content": f"The incident codename was {word}", "scope": "global"}
    )
    eid = res["id"]
    db = shared.paths.db
    rid = rid_of(db, eid)
    before = census(db)
    assert rid in before.entries and rid in before.vectors and rid in before.fts

    def fts_match() -> list[int]:
        conn = open_db(db)
        try:
            cur = conn.execute(
                "SELECT rowid FROM context_fts WHERE context_fts MATCH ?", (f'"{word}"',)
            )
            return [int(r[0]) for r in cur]
        finally:
            conn.close()

    assert fts_match() == [rid]

    assert shared.call("forget", {"id": eid, "hard": True}) == {"id": eid, "action": "deleted"}
    after = census(db)
    after.assert_consistent()
    assert after.entries == before.entries - {rid}
    assert after.vectors == before.vectors - {rid}
    assert after.fts == before.fts - {rid}
    assert fts_match() == []
    hits = shared.call("recall", {"query": word, "min_confidence": 0.0, "include_deprecated": True})
    assert eid not in ids(hits["results"])
    for method, params in (
        ("get", {"id": eid}),
        ("restore", {"id": eid}),
        ("forget", {"id": eid}),
        ("forget", {"id": eid, "hard": True}),
        ("update", {"id": eid, "confidence": 0.5}),
    ):
        assert rpc_error(shared, method, params).code == p.NOT_FOUND, method


# --- stats -------------------------------------------------------------------------------


def test_stats_counts(tmp_path: Path) -> None:
    with running(tmp_path / "home") as d:
        empty = d.call("stats")
        assert (empty["total"], empty["active"], empty["deprecated"]) == (0, 0, 0)
        assert empty["oldest"] is None and empty["newest"] is None
        assert set(empty["by_type"].values()) == {0} and set(empty["by_scope"].values()) == {0}

        made = [
            d.call("remember", {"content": "Python 3.11 is the floor", "scope": "global"}),
            d.call(
                "remember",
                {
                    "content": "Prefer small PRs",
                    "content_type": "preference",
                    "scope": "global",
                    "confidence": 0.5,
                },
            ),
            d.call(
                "remember",
                {
                    "content": "Use attrs here",
                    "content_type": "decision",
                    "scope": "file",
                    "scope_path": str(tmp_path / "a.py"),
                    "confidence": 0.1,
                },
            ),
            d.call(
                "remember",
                {
                    "content": "Tests live in tests/",
                    "content_type": "convention",
                    "scope": "project",
                    "scope_path": str(tmp_path),
                },
            ),
            d.call("remember", {"content": "Old fact to forget", "scope": "global"}),
        ]
        d.call("forget", {"id": made[4]["id"]})
        st = d.call("stats")
        assert (st["total"], st["active"], st["deprecated"]) == (5, 4, 1)
        # by_type, by_scope and the confidence bands count active entries only.
        assert st["by_type"] == {
            "fact": 1,
            "preference": 1,
            "decision": 1,
            "convention": 1,
            "pattern": 0,
            "task": 0,
            "log": 0,
        }
        assert st["by_scope"] == {"global": 2, "workspace": 0, "project": 1, "file": 1}
        assert st["confidence"] == {"high (>=0.7)": 2, "medium (0.3-0.7)": 1, "low (<0.3)": 1}
        created = [m["entry"]["created_at"] for m in made]
        assert st["oldest"] == min(created) and st["newest"] == max(created)
        assert st["db_bytes"] > 0
        assert d.call("status")["entries"] == 5


# --- export / import ---------------------------------------------------------------------


def test_export_pages_through_everything(shared: RunningDaemon) -> None:
    shared.call("remember", {"content": f"Paging filler one {uniq()}", "scope": "global"})
    shared.call("remember", {"content": f"Paging filler two {uniq()}", "scope": "global"})
    gone = shared.call("remember", {"content": f"Paging filler gone {uniq()}", "scope": "global"})
    shared.call("forget", {"id": gone["id"]})

    everything = export_all(shared.call)
    paged: list[dict[str, Any]] = []
    after = 0
    while True:
        page = shared.call("export", {"after": after, "limit": 2})
        assert len(page["entries"]) <= 2
        paged.extend(page["entries"])
        if page["next"] is None:
            break
        assert page["next"] > after  # the cursor only moves forward
        after = page["next"]
    assert [e["id"] for e in paged] == [e["id"] for e in everything]
    assert len({e["id"] for e in everything}) == len(everything)
    assert len(everything) == len(census(shared.paths.db).entries)

    active = export_all(lambda m, prm: shared.call(m, {**prm, "include_deprecated": False}))
    assert gone["id"] not in {e["id"] for e in active}
    assert {e["id"] for e in active} == {e["id"] for e in everything if not e["is_deprecated"]}


def test_import_export_round_trip_is_lossless(tmp_path: Path) -> None:
    handmade: list[dict[str, Any]] = [
        {
            "id": "import-full",
            "content": "The payment service retries webhooks five times",
            "content_type": "decision",
            "scope_level": "file",
            "scope_path": "/srv/pay/webhooks.py",
            "confidence": 0.42,
            "created_at": "2024-01-02T03:04:05.123456Z",
            "updated_at": "2024-02-03T04:05:06Z",
            "accessed_at": "2024-03-04T05:06:07.5+02:00",
            "access_count": 7,
            "source_type": "commit",
            "source_ref": "deadbeef",
            "tags": ["payments", "retry"],
            "metadata": {"nested": {"list": [1, 2.5, "three", None, True]}, "u": "日本語 ✓"},
            "is_deprecated": False,
        },
        {
            "id": "import-deprecated",
            "content": "We used to deploy with Fabric",
            "content_type": "fact",
            "scope_level": "project",
            "scope_path": "/srv/pay",
            "is_deprecated": True,
        },
        {"content": "Only the content was given for this one"},
        {"content": 'Quotes " and \\ backslashes,\nnewlines\tand emoji 🚀 survive'},
    ]
    with running(tmp_path / "a") as a:
        res = a.call("import", {"lines": [json.dumps(x) for x in handmade]})
        assert (res["stored"], res["existing"], res["failed"]) == (4, 0, 0), res
        native = a.call(
            "remember",
            {
                "content": "Made with remember, not import",
                "content_type": "pattern",
                "scope": "workspace",
                "scope_path": str(tmp_path),
                "tags": ["n"],
                "metadata": {"k": 1},
                "source_type": "manual",
                "source_ref": "me",
                "confidence": 0.9,
            },
        )
        exported = export_all(a.call)

    by_id = {e["id"]: e for e in exported}
    full = by_id["import-full"]
    for key, value in handmade[0].items():
        if key not in ("created_at", "updated_at", "accessed_at"):
            assert full[key] == value, key
    # Timestamps are normalized to UTC with microseconds; the instant is kept.
    assert full["created_at"] == "2024-01-02T03:04:05.123456Z"
    assert full["updated_at"] == "2024-02-03T04:05:06.000000Z"
    assert full["accessed_at"] == "2024-03-04T03:06:07.500000Z"
    assert by_id["import-deprecated"]["is_deprecated"] is True
    minimal = next(e for e in exported if e["content"] == handmade[2]["content"])
    assert minimal["scope_level"] == "global" and minimal["content_type"] == "fact"
    assert minimal["confidence"] == 1.0 and minimal["tags"] == [] and minimal["metadata"] == {}
    assert minimal["created_at"] == minimal["updated_at"]
    assert native["id"] in by_id and len(exported) == 5

    with running(tmp_path / "b") as b:
        lines = [msgspec.json.encode(e).decode() for e in exported]
        res = b.call("import", {"lines": lines})
        assert (res["stored"], res["existing"], res["failed"]) == (5, 0, 0), res
        assert [ln["id"] for ln in res["lines"]] == [e["id"] for e in exported]
        # Every field of every entry, in the same order.
        assert export_all(b.call) == exported
        census(b.paths.db).assert_consistent()
        # Importing the same file again changes nothing.
        again = b.call("import", {"lines": lines})
        assert (again["stored"], again["existing"], again["failed"]) == (0, 5, 0)
        assert export_all(b.call) == exported
        # Vectors were recomputed from the content: the imported entry is the nearest in
        # meaning (its score also weighs its old dates and low confidence, so compare
        # the semantic part).
        hits = b.call("recall", {"query": "how often are webhooks retried", "min_confidence": 0})
        nearest = max(hits["results"], key=lambda h: h["semantic"])
        assert nearest["id"] == "import-full"


# --- the connection itself ---------------------------------------------------------------


def test_pipelined_requests_are_matched_by_id(shared: RunningDaemon) -> None:
    tag = uniq()
    contents = {f"rem-{i}": f"Pipelined memory number {i} about {tag}" for i in range(6)}
    frames = [
        frame("remember", {"content": text, "scope": "global", "tags": [tag]}, rid)
        for rid, text in contents.items()
    ]
    frames += [frame("stats", {}, i) for i in range(100, 110)]
    frames += [
        frame("recall", {"query": "pipelined memory", "tags": [tag]}, "q"),
        frame("status", None, 0),
        frame("no_such_method", {}, -5),
        frame("get", {"id": "missing"}, "g"),
    ]
    with RawConn(shared.paths.socket) as conn:
        conn.send(b"".join(frames))  # all of them before reading anything
        responses = [conn.read() for _ in frames]
    by_id = {r["id"]: r for r in responses}
    assert len(by_id) == len(frames), "a response is missing or an id was answered twice"
    for rid, text in contents.items():
        assert result_of(by_id[rid])["entry"]["content"] == text
    for i in range(100, 110):
        assert "total" in result_of(by_id[i])
    assert result_of(by_id[0])["pid"] == shared.proc.proc.pid
    assert by_id[-5]["error"]["code"] == p.METHOD_NOT_FOUND
    assert by_id["g"]["error"]["code"] == p.NOT_FOUND
    assert isinstance(result_of(by_id["q"])["results"], list)


def test_more_pipelined_requests_than_the_in_flight_limit(shared: RunningDaemon) -> None:
    # 200 requests on one connection: the daemon stops reading at its per-connection
    # limit and resumes as answers go out; none may be dropped or duplicated.
    n = 200
    with RawConn(shared.paths.socket) as conn:
        conn.send(b"".join(frame("status", {}, i) for i in range(n)))
        got = sorted(conn.read()["id"] for _ in range(n))
    assert got == list(range(n))


def test_notifications_get_no_response(shared: RunningDaemon) -> None:
    content = f"Stored by a notification {uniq()}"
    with RawConn(shared.paths.socket) as conn:
        conn.send(
            notification("remember", {"content": content, "scope": "global"})
            + notification("no_such_method", {})
            + notification("stats", {"unknown_field": 1})  # invalid params
            + notification("get", {"id": "no-such-id"})  # fails in the handler
            + notification("remember", {"content": "   ", "scope": "global"})
            + frame("status", {}, 41)
        )
        # Half-close: the daemon answers what it has read, then closes; everything
        # that arrives until then is every response it sent on this connection.
        conn.sock.shutdown(socket.SHUT_WR)
        received = []
        while (line := conn.read_line()) is not None:
            received.append(json.loads(line))
    assert [r["id"] for r in received] == [41], received
    # A notification is still carried out, only not answered.
    wait_for(
        lambda: content in {e["content"] for e in export_all(shared.call)},
        what="the notified remember to be stored",
    )


def test_shutdown_method_stops_the_daemon_cleanly(tmp_path: Path) -> None:
    with running(tmp_path / "home") as d:
        d.call("remember", {"content": "Written before shutdown", "scope": "global"})
        with RawConn(d.paths.socket) as conn:
            assert result_of(conn.request("shutdown", {}, 1)) == {"stopping": True}
        assert d.proc.proc.wait(30) == 0
        d.log.join()
        assert not d.paths.socket.exists()
        assert not d.paths.pid_file.exists()
        wal = d.paths.db.with_name(d.paths.db.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0
    with running(tmp_path / "home") as again:
        assert [e["content"] for e in export_all(again.call)] == ["Written before shutdown"]


def test_an_expired_entry_is_gone_at_once_for_every_method(tmp_path: Path) -> None:
    """The sweep runs before any method: no waiting for a cleanup job."""
    with running(tmp_path / "home", clocked=True) as d:
        kept = d.call("remember", {"content": "Deploys happen on Tuesdays.", "scope": "global"})
        soon = d.call(
            "remember",
            {"content": "The deploy freeze lasts until noon.", "scope": "global", "ttl": "1h"},
        )
        linked = d.call(
            "link", {"source_id": kept["id"], "target_id": soon["id"], "edge_type": "relates_to"}
        )
        assert linked["target_id"] == soon["id"]
        assert d.call("stats")["total"] == 2
        d.clock.advance(3601)  # past the hour, without waiting for it
        assert d.call("stats")["total"] == 1
        with pytest.raises(RpcError) as gone:
            d.call("get", {"id": soon["id"]})
        assert gone.value.code == p.NOT_FOUND
        hits = d.call("recall", {"query": "deploy freeze", "min_confidence": 0})["results"]
        assert [h["id"] for h in hits] == [kept["id"]]
        assert d.call("edges", {"id": kept["id"]})["edges"] == []
    census(d.paths.db).assert_consistent()  # entries = vectors = FTS rows

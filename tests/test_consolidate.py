"""Memory hygiene (issue 10), through the real daemon on its socket: consolidation of
near-duplicates (dry run, merge, re-pointed edges, history, undo by restore, bounds,
expired entries, the daemon's own schedule), `get` as an access event, `confirm` in the
history, per-type decay from config.toml, and the m007 migration."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import apsw
import pytest

from conftest import DaemonProc, old_store, run_cli, start_daemon, wait_for
from enyal_client.transport import RpcError, try_connect
from enyal_daemon.store import migrations
from enyal_protocol import wire as p

DUPES = (
    "The project uses pytest for all tests.",
    "The project uses pytest for all of its tests.",
    "This project uses pytest for all tests.",
)
DISTINCT = ("The project uses unittest for all tests.", "Deploys go out on Friday afternoons.")


def plant(d: DaemonProc) -> dict[str, str]:
    """Three duplicates (the first the most important: the survivor), two distinct
    memories, and links: an outside entry depends on a duplicate, a duplicate relates to
    another outside one, and two duplicates relate to each other."""
    lines = [
        {"content": DUPES[0], "importance": 4, "tags": ["testing"], "metadata": {"a": 1, "k": 0}},
        {"content": DUPES[1], "access_count": 5, "tags": ["pytest"], "metadata": {"b": 2, "k": 1}},
        {"content": DUPES[2], "access_count": 2, "tags": ["testing", "ci"]},
        *({"content": text} for text in DISTINCT),
    ]
    r = d.call("import", {"lines": [json.dumps(line) for line in lines]})
    ids = [line["id"] for line in r["lines"]]
    named = dict(zip(("keep", "dup1", "dup2", "other", "deploy"), ids, strict=True))
    for source, target, kind in (
        ("deploy", "dup1", "depends_on"),
        ("dup2", "other", "relates_to"),
        ("dup1", "dup2", "relates_to"),
        ("dup1", "keep", "relates_to"),
    ):
        d.call("link", {"source_id": named[source], "target_id": named[target], "edge_type": kind})
    return named


def export(d: DaemonProc) -> list[Any]:
    entries = d.call("export", {"versions": True})["entries"]
    edges = d.call("export", {"kind": "edges"})["edges"]
    return [*entries, *edges]


def test_dry_run_changes_nothing_and_reports_what_a_run_does(daemon: DaemonProc) -> None:
    ids = plant(daemon)
    before = export(daemon)
    dry = daemon.call("consolidate", {})  # the wire's default is a dry run
    assert dry["dry_run"] is True
    assert export(daemon) == before
    (cluster,) = dry["clusters"]
    assert cluster["survivor"] == ids["keep"]
    assert set(cluster["merged"]) == {ids["dup1"], ids["dup2"]}
    assert 0.92 <= cluster["similarity_min"] < 1
    real = daemon.call("consolidate", {"dry_run": False})
    assert {**real, "dry_run": True} == dry, "a dry run says exactly what a run does"


def test_merge_repoints_edges_records_history_and_restore_undoes_it(daemon: DaemonProc) -> None:
    ids = plant(daemon)
    r = daemon.call("consolidate", {"dry_run": False})
    assert (r["merged"], r["expired_removed"], r["dry_run"]) == (2, 0, False)
    # deploy->dup1 and dup2->other move; dup1-dup2 and dup1-keep would be loops: dropped.
    assert r["edges_repointed"] == 2
    keep = daemon.call("get", {"id": ids["keep"]})
    assert keep["tags"] == ["testing", "pytest", "ci"]
    assert keep["metadata"] == {"a": 1, "b": 2, "k": 0}, "the survivor wins a clash"
    assert (keep["importance"], keep["access_count"]) == (4, 7)
    for dup in ("dup1", "dup2"):
        assert daemon.call("get", {"id": ids[dup]})["is_deprecated"] is True
    edges = daemon.call("edges", {"id": ids["keep"]})["edges"]
    assert {(e["source_id"], e["target_id"], e["edge_type"]) for e in edges} == {
        (ids["deploy"], ids["keep"], "depends_on"),
        (ids["keep"], ids["other"], "relates_to"),
        (ids["keep"], ids["dup1"], "supersedes"),
        (ids["keep"], ids["dup2"], "supersedes"),
    }
    hits = daemon.call("recall", {"query": "which test framework does the project use"})
    found = [h["id"] for h in hits["results"]]
    assert ids["keep"] in found and ids["dup1"] not in found and ids["dup2"] not in found
    assert ids["other"] in found, "a distinct memory is left alone"

    merged = daemon.call("history", {"id": ids["keep"]})["versions"][0]
    assert merged["change_type"] == "merged"
    assert set(merged["merged_from"]) == {ids["dup1"], ids["dup2"]}
    gone = daemon.call("history", {"id": ids["dup1"]})["versions"][0]
    assert (gone["change_type"], gone["merged_into"], gone["is_deprecated"]) == (
        "merged",
        ids["keep"],
        True,
    )
    shown = run_cli("history", ids["keep"])
    assert shown.code == 0 and "merged" in shown.out

    again = daemon.call("consolidate", {"dry_run": False})
    assert (again["clusters"], again["merged"]) == ([], 0), "a second run does nothing"

    back = run_cli("restore", ids["dup1"])
    assert back.code == 0, back.err
    assert daemon.call("get", {"id": ids["dup1"]})["is_deprecated"] is False
    dup1_edges = daemon.call("edges", {"id": ids["dup1"]})["edges"]
    assert {(e["source_id"], e["edge_type"]) for e in dup1_edges} >= {(ids["deploy"], "depends_on")}
    assert not any(e["edge_type"] == "supersedes" for e in dup1_edges)
    hits = daemon.call("recall", {"query": "does the project use pytest for its tests"})
    assert ids["dup1"] in [h["id"] for h in hits["results"]], "no longer superseded"


def test_filters_and_threshold_bounds(daemon: DaemonProc, tmp_path: Path) -> None:
    ids = plant(daemon)
    assert daemon.call("consolidate", {"content_type": "decision"})["clusters"] == []
    assert daemon.call("consolidate", {"scope": "global"})["merged"] == 2
    assert daemon.call("consolidate", {"threshold": 0.999})["clusters"] == []
    for bad in (0.5, 1.0):
        with pytest.raises(RpcError) as info:
            daemon.call("consolidate", {"threshold": bad})
        assert info.value.code == p.INVALID_PARAMS
    refused = run_cli("consolidate", "--threshold", "0.5")
    assert refused.code == 2 and "--threshold" in refused.err and "0.8–0.999" in refused.err

    dry = run_cli("consolidate", "--dry-run")
    assert dry.code == 0, dry.err
    assert f"{ids['keep'][:8]} <- " in dry.out and "dry run, nothing changed" in dry.out
    done = run_cli("consolidate", "--scope", "global", "--json")
    assert done.code == 0, done.err
    assert done.json()["merged"] == 2 and done.json()["dry_run"] is False
    assert "merged 0 entries" in run_cli("consolidate").out


def test_expired_entries_are_counted_then_removed(clocked_daemon: DaemonProc) -> None:
    daemon = clocked_daemon
    daemon.call("remember", {"content": "Scratch: the build is red.", "scope": "global"})
    kept = daemon.call("remember", {"content": "The CI runs nightly.", "scope": "global"})["id"]
    daemon.call(
        "remember", {"content": "Scratch: retry the flaky job.", "scope": "global", "ttl": "1h"}
    )
    assert daemon.call("consolidate", {})["expired_removed"] == 0
    assert daemon.clock is not None
    daemon.clock.advance(3601)  # past the hour, without waiting for it
    dry = daemon.call("consolidate", {})  # the first verb after the expiry: nothing swept yet
    assert (dry["expired_removed"], dry["dry_run"]) == (1, True)
    assert daemon.call("consolidate", {"dry_run": False})["expired_removed"] == 1
    assert daemon.call("stats")["total"] == 2
    assert daemon.call("get", {"id": kept})["is_deprecated"] is False


def test_get_is_an_access_event_and_confirm_a_version(daemon: DaemonProc) -> None:
    made = daemon.call("remember", {"content": "Releases are tagged vX.Y.Z.", "scope": "global"})
    daemon.call("get", {"id": made["id"]})

    def logged() -> bool:
        usage = daemon.call("analytics", {"event_type": "access"})
        return [e["entry_id"] for e in usage["events"]] == [made["id"]]

    wait_for(logged, 10, "the access event to be flushed")
    daemon.call("confirm", {"id": made["id"], "confidence": 0.9})
    latest = daemon.call("history", {"id": made["id"]})["versions"][0]
    assert (latest["change_type"], latest["version"], latest["confidence"]) == (
        "confirmed",
        2,
        0.9,
    )
    assert "confirmed" in run_cli("history", made["id"]).out


def stopped(d: DaemonProc) -> None:
    d.stop()
    if d.proc.stderr:
        d.proc.stderr.close()


def test_the_daemon_consolidates_on_its_schedule(home: Path) -> None:
    env = {**os.environ, "ENYAL_CONSOLIDATE_EVERY_HOURS": "0.0005"}  # 1.8 s
    d = start_daemon(env)
    try:
        ids = plant(d)
        wait_for(
            lambda: d.call("get", {"id": ids["dup1"]})["is_deprecated"], 30, "the scheduled run"
        )
        assert d.call("get", {"id": ids["keep"]})["is_deprecated"] is False
    finally:
        stopped(d)


def aged(content: str, content_type: str, days: int) -> str:
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days * 86400))
    return json.dumps(
        {"content": content, "content_type": content_type, "created_at": when, "updated_at": when}
    )


def test_decay_half_lives_come_from_config(home: Path) -> None:
    lines = [
        aged("The staging database is called ivory.", "fact", 90),
        aged("Prefer the staging database called ivory for experiments.", "preference", 90),
    ]
    query = {"query": "staging database ivory", "min_confidence": 0.0}

    def decay(d: DaemonProc) -> dict[str, float]:
        hits = d.call("recall", query)["results"]
        # freshness_score: the decay alone (effective confidence adds a boost for use)
        return {h["content_type"]: h["freshness_score"] for h in hits}

    d = start_daemon()
    try:
        d.call("import", {"lines": lines})
        built_in = decay(d)
    finally:
        stopped(d)
    assert built_in["fact"] == pytest.approx(0.5, abs=0.01)  # 90 days: one half-life
    home.joinpath("config.toml").write_text("[decay]\nfact = 900\npreference = 9\n")
    d = start_daemon()
    try:
        configured = decay(d)
        order = [h["content_type"] for h in d.call("recall", query)["results"]]
    finally:
        stopped(d)
    assert configured["fact"] == pytest.approx(0.5 ** (90 / 900), abs=0.01)
    assert configured["preference"] < 0.01
    assert order[0] == "fact"

    home.joinpath("config.toml").write_text("[decay]\nfact = -3\n")
    with pytest.raises(RuntimeError, match=r"decay.fact must be a number of days"):
        start_daemon()
    home.joinpath("config.toml").write_text("[decay]\nrumour = 3\n")
    with pytest.raises(RuntimeError, match=r"unknown key 'decay\.rumour'"):
        start_daemon()


def test_m007_upgrades_a_database_made_at_m006(home: Path, embedder: Any) -> None:
    from enyal_daemon.service.core.engine import Engine

    db = home / "enyal.db"
    conn = old_store(db, 6)
    with conn:
        conn.execute(
            "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
            "created_at, updated_at, tags, importance) "
            "VALUES ('old', 'Old news.', 'h', 'fact', 'global', '2026-01-01T00:00:00Z', "
            "'2026-01-02T00:00:00Z', '[\"t\"]', 5)"
        )
        conn.execute(
            "INSERT INTO context_vectors(rowid, embedding) VALUES (1, ?)",
            (embedder.embed("Old news.").tobytes(),),
        )
        conn.execute(
            "INSERT INTO context_versions (entry_id, version, change_type, changed_at, content, "
            "content_type, confidence, tags, metadata, is_deprecated) VALUES "
            "('old', 1, 'created', '2026-01-01T00:00:00Z', 'Old', 'fact', 1, '[]', '{}', 0), "
            "('old', 2, 'updated', '2026-01-02T00:00:00Z', 'Old news.', 'fact', 1, '[\"t\"]', "
            "'{}', 0)"
        )
        conn.execute(
            "INSERT INTO context_analytics (entry_id, event_type, event_at, query, result_rank) "
            "VALUES ('old', 'recall', ?, 'news', 1)",
            (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400)),),
        )
    with pytest.raises(apsw.ConstraintError):  # what m007 exists for
        conn.execute(
            "INSERT INTO context_analytics (entry_id, event_type, event_at) "
            "VALUES ('old', 'access', '2026-01-04T00:00:00Z')"
        )
    conn.close()

    m = Engine(db, embedder)
    try:
        from enyal_daemon.service.memory import memories, validity
        from enyal_daemon.service.upkeep import analytics

        history = validity.history(m, p.HistoryParams(id="old")).versions
        assert [(v.version, v.change_type, v.content) for v in history] == [
            (2, "updated", "Old news."),
            (1, "created", "Old"),
        ]
        assert history[0].merged_from == [] and history[0].merged_into is None
        memories.confirm(m, p.ConfirmParams(id="old"))
        assert validity.history(m, p.HistoryParams(id="old")).versions[0].change_type == (
            "confirmed"
        )
        memories.get(m, p.GetParams(id="old"))
        m.flush_bookkeeping()
        events = analytics.analytics(m, p.AnalyticsParams(days=30)).events
        assert sorted(e.event_type for e in events) == ["access", "recall"]
    finally:
        m.close()
    check = apsw.Connection(str(db))
    names = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"idx_versions_time", "idx_analytics_time", "idx_analytics_entry"} <= names
    assert not names & {"context_versions_new", "context_analytics_new"}
    (version,) = check.execute("SELECT max(version) FROM schema_version").fetchone()
    assert version == len(migrations.MIGRATIONS)  # m007, then whatever came after it
    check.close()


def test_duplicates_in_other_scopes_are_not_merged(daemon: DaemonProc, tmp_path: Path) -> None:
    for project in ("alpha", "beta"):
        daemon.call(
            "remember",
            {"content": DUPES[0], "scope": "project", "scope_path": str(tmp_path / project)},
        )
    assert daemon.call("consolidate", {"dry_run": False})["clusters"] == []


def test_a_failure_midway_leaves_nothing_merged(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from enyal_daemon.service.memory import consolidation
    from enyal_daemon.service.upkeep import transfer
    from enyal_daemon.store import graph as edges

    lines = [json.dumps({"content": text}) for text in (*DUPES, *DISTINCT)]
    transfer.import_lines(memory, p.ImportParams(lines=lines))
    before = transfer.export_page(memory, p.ExportParams(versions=True))
    calls = 0
    real = edges.repoint

    def failing(*args: Any) -> int:
        nonlocal calls
        calls += 1
        if calls == 2:  # the first merged entry is done, the second fails
            raise RuntimeError("killed here")
        return real(*args)

    monkeypatch.setattr(edges, "repoint", failing)
    with pytest.raises(RuntimeError, match="killed here"):
        consolidation.consolidate(memory, p.ConsolidateParams(dry_run=False))
    assert transfer.export_page(memory, p.ExportParams(versions=True)) == before
    hits = memory.index.search(memory.embed(DUPES[0]), 10)
    assert len(hits) == 5, "the index still shows every entry as active"
    monkeypatch.setattr(edges, "repoint", real)
    assert consolidation.consolidate(memory, p.ConsolidateParams(dry_run=False)).merged == 2


def test_sigkill_during_a_consolidation_leaves_all_or_nothing(home: Path) -> None:
    lines = []
    for i in range(40):
        lines += [
            json.dumps({"content": f"Build step {i}: run the linter named tool{i} before tests."}),
            json.dumps(
                {"content": f"Build step {i}: run the linter named tool{i} before testing."}
            ),
        ]
    d = start_daemon()
    d.call("import", {"lines": lines})
    expected = d.call("consolidate", {})["merged"]
    assert expected >= 40
    sock = try_connect(d.paths.socket)
    assert sock is not None
    frame = {"jsonrpc": "2.0", "id": 1, "method": "consolidate", "params": {"dry_run": False}}
    sock.sendall(json.dumps(frame).encode() + b"\n")
    time.sleep(0.05)  # somewhere before, in or after the transaction: any is fine
    d.stop(signal.SIGKILL)
    sock.close()
    if d.proc.stderr:
        d.proc.stderr.close()
    d = start_daemon()
    try:
        deprecated = d.call("stats")["deprecated"]
        assert deprecated in (0, expected)
        left = d.call("consolidate", {})["merged"]
        assert left == expected - deprecated
    finally:
        stopped(d)


def test_a_merged_entry_stays_within_what_update_accepts(daemon: DaemonProc) -> None:
    """Tags are capped at the wire's 32 (the survivor's first) and metadata that would
    outgrow the limit stays the survivor's: otherwise the merged entry could not be
    updated again."""
    big = "x" * 40_000
    lines = [
        {
            "content": DUPES[0],
            "importance": 5,
            "tags": [f"a{i}" for i in range(20)],
            "metadata": {"own": big},
        },
        {"content": DUPES[1], "tags": [f"b{i}" for i in range(20)], "metadata": {"more": big}},
    ]
    r = daemon.call("import", {"lines": [json.dumps(line) for line in lines]})
    keep = r["lines"][0]["id"]
    assert daemon.call("consolidate", {"dry_run": False})["merged"] == 1
    merged = daemon.call("get", {"id": keep})
    assert len(merged["tags"]) == p.MAX_TAGS and merged["tags"][:20] == lines[0]["tags"]
    assert merged["metadata"] == {"own": big}
    daemon.call("update", {"id": keep, "tags": merged["tags"], "metadata": merged["metadata"]})


def test_stale_entries_are_forgotten_restorably_and_a_second_run_does_nothing(
    daemon: DaemonProc,
) -> None:
    recent = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400))
    used = json.loads(aged("The staging VPN needs the ops certificate.", "fact", 400))
    used["accessed_at"] = recent
    lines = [
        aged("The old build server was called zeus.", "fact", 400),  # 0.5^(400/90) = 0.05
        aged("Commit messages use the imperative mood.", "convention", 400),  # 0.54
        aged("The cache TTL is five minutes.", "fact", 10),
        json.dumps(used),
    ]
    ids = [x["id"] for x in daemon.call("import", {"lines": lines})["lines"]]
    dry = daemon.call("consolidate", {})
    assert dry["stale_forgotten"] == [ids[0]]
    # export, not get: reading an entry is using it, which would make it fresh
    assert not any(e["is_deprecated"] for e in daemon.call("export", {})["entries"])
    assert daemon.call("consolidate", {"stale_below": 0})["stale_forgotten"] == []
    real = daemon.call("consolidate", {"dry_run": False})
    assert real["stale_forgotten"] == [ids[0]]
    gone = [e["id"] for e in daemon.call("export", {})["entries"] if e["is_deprecated"]]
    assert gone == [ids[0]]
    again = daemon.call("consolidate", {"dry_run": False})
    assert (again["stale_forgotten"], again["merged"], again["clusters"]) == ([], 0, [])
    history = daemon.call("history", {"id": ids[0]})["versions"]
    assert history[0]["change_type"] == "forgotten"
    daemon.call("restore", {"id": ids[0]})
    assert daemon.call("get", {"id": ids[0]})["is_deprecated"] is False
    out = run_cli("consolidate", "--dry-run", "--stale-days", "1000")
    assert out.code == 0 and "forget 0 stale" in out.out
    bad = run_cli("consolidate", "--stale-below", "2")
    assert bad.code == 2 and "--stale-below" in bad.err
